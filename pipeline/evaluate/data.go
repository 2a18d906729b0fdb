package evaluate

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/dchess/dchess/dataset"
	"github.com/dchess/dchess/dataset/encode"
	"github.com/dchess/dchess/internal/chess/board"
	"github.com/dchess/dchess/models/family"
	"github.com/dchess/dchess/models/transformer"
	"github.com/dchess/dchess/models/transformer/sequence"
	"github.com/dchess/dchess/search"
	"github.com/dchess/dchess/search/player"
)

// DataReport is `eval --data`: how often the player's move is Stockfish's
// best move on the dataset's test split.
type DataReport struct {
	Player    string  `json:"player"`
	Dataset   string  `json:"dataset"`
	Split     string  `json:"split"`
	Positions int     `json:"positions"`
	Correct   int     `json:"correct"`
	Accuracy  float64 `json:"action_accuracy"`
	MsPerMove float64 `json:"ms_per_move"`
	// Value scores a searching player's static evaluation of each position
	// against Stockfish's win probability.
	Value *ValueReport `json:"value,omitempty"`
	// Decoding is the diffusion or policy decoder's report at the player's
	// T (the top-level numbers are its), Sweep the same for each --steps T.
	Decoding *DecodingReport  `json:"decoding,omitempty"`
	Sweep    []DecodingReport `json:"steps_sweep,omitempty"`
}

// ValueReport compares an evaluator's win probability (its centipawns
// mapped as labels are) with the label's, as training reports it.
type ValueReport struct {
	Positions     int64   `json:"positions"`
	MSE           float64 `json:"mse"`
	SignAgreement float64 `json:"sign_agreement"`
	Within01      float64 `json:"within_0_1"`
	// Quiet scores the quiet positions alone (not in check, Stockfish's
	// best move not a capture): the ones a search's quiescence hands the
	// evaluation, where a static score matters.
	Quiet *ValueReport `json:"quiet,omitempty"`
}

// DecodingReport is a sequence player's decoding at one number of steps T.
type DecodingReport struct {
	Steps     int     `json:"steps"`
	Positions int     `json:"positions"`
	Correct   int     `json:"correct"`
	Accuracy  float64 `json:"action_accuracy"`
	MsPerMove float64 `json:"ms_per_move"`
	// UnrestrictedLegal counts the positions where the model's a_i without
	// the legal-move restriction (argmax over the whole vocabulary) is legal:
	// all of them, trivially, for a model trained with LegalMask.
	UnrestrictedLegal     int     `json:"unrestricted_legal"`
	UnrestrictedLegalRate float64 `json:"unrestricted_legal_rate"`
	// LegalMask says the model was trained (and decodes) with legal_mask:
	// its a_i is over the legal moves alone.
	LegalMask bool `json:"legal_mask"`
	// LegalCrossEntropy is the mean -log p(Stockfish's move) with p the
	// model's probabilities renormalised over the legal moves (when a_i was
	// decided), and UniformLegalCrossEntropy the same for a uniform choice
	// among the legal moves, ln(number of legal moves): below it, the model
	// ranks legal moves better than chance. Training's validation loss adds
	// -log(the mass the model puts on legal moves) to the first.
	LegalCrossEntropy        float64 `json:"legal_cross_entropy"`
	UniformLegalCrossEntropy float64 `json:"uniform_legal_cross_entropy"`
	// Imagined is set for a horizon of at least 2.
	Imagined *ImaginedReport `json:"imagined,omitempty"`
	thinking time.Duration
	ceSum    float64
	ceN      int
	uniSum   float64
}

// ImaginedReport scores the imagined s_{i+1} and a_{i+1} against
// Stockfish's line on every position (All) and on those where the model's
// a_i is the line's first move (GivenActionRight).
type ImaginedReport struct {
	All              ImaginedScores `json:"all"`
	GivenActionRight ImaginedScores `json:"given_action_right"`
}

// ImaginedScores: s_{i+1} is scored on the positions whose line has a_i
// (its 70 tokens, and the whole block), a_{i+1} on those whose line has a
// second move.
type ImaginedScores struct {
	StatePositions     int     `json:"state_positions"`
	StateTokensCorrect int     `json:"state_tokens_correct"`
	StateTokenAccuracy float64 `json:"state_token_accuracy"`
	StateExact         int     `json:"state_exact"`
	StateExactRate     float64 `json:"state_exact_rate"`
	// StateWrong sorts the wrong tokens of s_{i+1} by where they are.
	StateWrong          transformer.WrongTokens `json:"state_wrong_tokens"`
	NextActionPositions int                     `json:"next_action_positions"`
	NextActionCorrect   int                     `json:"next_action_correct"`
	NextActionAccuracy  float64                 `json:"next_action_accuracy"`
}

func (sc *ImaginedScores) Add(m transformer.Imagined) {
	if m.HasState {
		sc.StatePositions++
		sc.StateTokensCorrect += m.StateCorrect
		sc.StateWrong.Add(m.Wrong)
		if m.StateExact() {
			sc.StateExact++
		}
	}
	if m.HasNextAction {
		sc.NextActionPositions++
		if m.NextActionCorrect {
			sc.NextActionCorrect++
		}
	}
}

func (sc *ImaginedScores) finish() {
	sc.StateTokenAccuracy = share(sc.StateTokensCorrect, sc.StatePositions*encode.StateLen)
	sc.StateExactRate = share(sc.StateExact, sc.StatePositions)
	sc.NextActionAccuracy = share(sc.NextActionCorrect, sc.NextActionPositions)
}

// DataOptions are `eval --data`'s: the dataset, and how to score it.
type DataOptions struct {
	Options
	Dataset string
	// Steps are the decoding steps T to sweep, for a family that supports
	// EvalStepsSweep.
	Steps []int
	// RunsDir is where a bare decoder family name finds its newest weights.
	RunsDir string
}

// CheckSteps checks the decoding steps to sweep (--steps), before anything
// starts: each in 1..family.MaxDecodingSteps, none twice.
func CheckSteps(steps []int) error {
	for i, t := range steps {
		if t < 1 || t > family.MaxDecodingSteps {
			return fmt.Errorf("--steps: %d must be in 1..%d", t, family.MaxDecodingSteps)
		}
		if slices.Contains(steps[:i], t) {
			return fmt.Errorf("--steps lists %d twice", t)
		}
	}
	return nil
}

// openEvalData checks the options against the player's family, opens the
// dataset and picks its test split, or all of it (said on Log) when it has
// no split.
func openEvalData(opts *DataOptions) (*dataset.Dataset, dataset.Split, string, error) {
	if len(opts.Steps) > 0 && !family.Supports(opts.Player.Family, family.EvalStepsSweep) {
		return nil, 0, "", &InputError{fmt.Errorf("--steps sweeps a diffusion or flow player's decoding steps, not %s's", opts.Player.Family)}
	}
	if family.Supports(opts.Player.Family, family.EvalPairs) && opts.Player.Path == "" {
		return nil, 0, "", &InputError{fmt.Errorf("--player %s: a %s player needs its weights, %s:PATH", opts.Player.Raw, opts.Player.Family, opts.Player.Family)}
	}
	ds, err := dataset.Open(opts.Dataset)
	if err != nil {
		return nil, 0, "", &InputError{fmt.Errorf("--data: %v", err)}
	}
	if ds.Manifest().Split == nil {
		opts.logf("dataset %s has no split: scoring all of it (run `dchess dataset split` first)\n", opts.Dataset)
		return ds, dataset.AllSplits, "all", nil
	}
	return ds, dataset.Test, "test", nil
}

// Data plays every labelled position of the dataset's test split
// and reports the action accuracy (how often the move is Stockfish's best
// move); a searching player's static evaluation is also scored against
// Stockfish's win probability, and a sequence decoder's unrestricted a_i
// and imagined future (Supports EvalActions).
func Data(ctx context.Context, opts DataOptions) (*DataReport, error) {
	ds, split, splitName, err := openEvalData(&opts)
	if err != nil {
		return nil, err
	}
	rep := &DataReport{Dataset: opts.Dataset, Split: splitName}
	if family.Supports(opts.Player.Family, family.EvalActions) {
		err = scoreSequencePlayer(ctx, &opts, ds, split, rep)
	} else {
		err = scorePlayer(ctx, &opts, ds, split, rep)
	}
	if err != nil {
		return nil, err
	}
	if rep.Positions == 0 {
		return nil, fmt.Errorf("--data %s: no labelled position with a best move in the %s split", opts.Dataset, splitName)
	}
	return rep, nil
}

// bestMoves counts the records bestMoveRecords emits at most, for the
// progress bar and the number of workers.
func bestMoves(ds *dataset.Dataset, limit int) int64 {
	total := ds.Manifest().Counts.Labelled
	if limit > 0 {
		total = min(total, int64(limit))
	}
	return total
}

// bestMoveRecords is a produce function for scoreInOrder: every labelled
// record of split that has a best move, up to limit (0: all).
func bestMoveRecords(ds *dataset.Dataset, split dataset.Split, limit int) func(context.Context, func(*dataset.Record) error) error {
	return func(ctx context.Context, emit func(*dataset.Record) error) error {
		emit = emitUpTo(limit, emit)
		return ds.Scan(ctx, split, func(r *dataset.Record) error {
			if r.Label == nil || r.Label.Status != dataset.LabelOK || r.Label.BestMove == "" {
				return nil
			}
			return emit(r)
		})
	}
}

// movePlayed is what a player made of one labelled position: its move,
// and its static evaluation's win probability when it has one (valued).
type movePlayed struct {
	move      string
	thinking  time.Duration
	valued    bool
	predicted float32
	quiet     bool
}

// playPosition plays the record numbered i with p, as a new game; eval,
// when not nil, is p's static evaluation, scored too.
func playPosition(ctx context.Context, p player.Player, eval search.Evaluator, i int, r *dataset.Record, lim player.Limits) (movePlayed, error) {
	var res movePlayed
	if eval != nil {
		b, err := board.FromFEN(r.FEN)
		if err != nil {
			return res, fmt.Errorf("%s: %w", r.FEN, err)
		}
		res.valued = true
		res.predicted = dataset.WinProbability(int32(eval.Evaluate(b)), 0)
		res.quiet, _ = r.Label.Quiet(b)
	}
	if err := newItem(ctx, p, i); err != nil {
		return res, err
	}
	began := time.Now()
	mi, err := p.Move(ctx, player.Position{StartFEN: r.FEN}, lim)
	res.thinking = time.Since(began)
	if err != nil {
		return res, fmt.Errorf("%s: %w", r.FEN, err)
	}
	res.move = mi.Move
	return res, nil
}

// scorePlayer plays each position with the player, as a game would.
func scorePlayer(ctx context.Context, opts *DataOptions, ds *dataset.Dataset, split dataset.Split, rep *DataReport) error {
	total := bestMoves(ds, opts.Limit)
	players, closePlayers, err := newPlayers(ctx, opts.Player, opts.workerCount(total))
	if err != nil {
		return err
	}
	defer closePlayers()
	rep.Player = players[0].Name()
	score := make([]func(context.Context, int, *dataset.Record) (movePlayed, error), len(players))
	for k, p := range players {
		var eval search.Evaluator
		if searcher, ok := player.Unwrap(p).(*player.Searcher); ok {
			eval = searcher.Evaluator()
		}
		score[k] = func(ctx context.Context, i int, r *dataset.Record) (movePlayed, error) {
			return playPosition(ctx, p, eval, i, r, opts.Limits)
		}
	}
	var value, quiet family.ValueScore
	var thinking time.Duration
	bar := newProgress(&opts.Options, total, "positions")
	err = scoreInOrder(ctx, score, bestMoveRecords(ds, split, opts.Limit), func(r *dataset.Record, res movePlayed) error {
		if res.valued {
			value.Add(res.predicted, r.Label.WinProb)
			if res.quiet {
				quiet.Add(res.predicted, r.Label.WinProb)
			}
		}
		thinking += res.thinking
		rep.Positions++
		if res.move == r.Label.BestMove {
			rep.Correct++
		}
		bar.tick()
		return nil
	})
	if err := bar.done(err); err != nil {
		return err
	}
	rep.Accuracy = share(rep.Correct, rep.Positions)
	rep.MsPerMove = thinking.Seconds() * 1000 / float64(max(rep.Positions, 1))
	if value.N() > 0 {
		rep.Value = valueReport(&value)
		if quiet.N() > 0 {
			rep.Value.Quiet = valueReport(&quiet)
		}
	}
	return nil
}

func valueReport(v *family.ValueScore) *ValueReport {
	return &ValueReport{Positions: v.N(), MSE: v.MSE(), SignAgreement: v.SignAgreement(), Within01: v.Within()}
}

// sequenceDecoders open n decoders a diffusion or policy SPEC names, one a
// worker, as the player does; a bare name is the newest weights under
// runs/, looked up once so that every worker has the same.
func sequenceDecoders(spec player.Spec, runsDir string, n int) ([]*family.Decoding, error) {
	if spec.Path == "" {
		path, err := family.NewestWeights(runsDir, spec.Family)
		if err != nil {
			return nil, err
		}
		spec.Path = path
	}
	decs := make([]*family.Decoding, n)
	for k := range decs {
		dec, err := family.SequenceDecoder(spec)
		if err != nil {
			return nil, err
		}
		decs[k] = dec
	}
	return decs, nil
}

// decodedAt is one position's decoding at one number of steps T.
type decodedAt struct {
	thinking          time.Duration
	correct           bool
	unrestrictedLegal bool
	// legalCE and uniformCE are set when the legal moves hold Stockfish's
	// move (hasCE): -log p of it, and ln(number of legal moves).
	hasCE              bool
	legalCE, uniformCE float64
	imagined           transformer.Imagined
	actionRight        bool
}

// decodeRecord decodes one record at each of steps with dec.
func decodeRecord(dec *family.Decoding, steps []int, r *dataset.Record) ([]decodedAt, error) {
	b, err := board.FromFEN(r.FEN)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", r.FEN, err)
	}
	horizon := dec.Decoder.Horizon()
	line := sequence.RecordLine(r, sequence.TargetPV)
	var truth []int16
	if horizon >= 2 {
		// A line with an illegal move is scored up to that move:
		// Sequence leaves the slots after it NoToken.
		truth = make([]int16, encode.SequenceLen(horizon))
		encode.Sequence(b, line, horizon, truth)
	}
	out := make([]decodedAt, len(steps))
	for k, t := range steps {
		d := &out[k]
		began := time.Now()
		res, err := dec.Decoder.DecodeSteps(b, t)
		d.thinking = time.Since(began)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", r.FEN, err)
		}
		move := board.UCI(res.Best)
		for i, m := range res.Moves {
			if board.UCI(m) == r.Label.BestMove {
				d.hasCE, d.legalCE, d.uniformCE = true, -res.Scores[i], math.Log(float64(len(res.Moves)))
			}
		}
		d.correct = move == r.Label.BestMove
		d.unrestrictedLegal = res.UnrestrictedLegal
		if horizon >= 2 {
			if d.imagined, err = transformer.CompareImagined(horizon, res.Tokens, truth); err != nil {
				return nil, err
			}
			d.actionRight = len(line) > 0 && move == line[0]
		}
	}
	return out, nil
}

// scoreSequencePlayer decodes each position with the diffusion or policy
// decoder itself, the move the player would play, to also read the
// unrestricted a_i and the imagined future; with --steps it decodes once
// per T, interleaved position by position so that every T sees the same
// machine load.
func scoreSequencePlayer(ctx context.Context, opts *DataOptions, ds *dataset.Dataset, split dataset.Split, rep *DataReport) error {
	total := bestMoves(ds, opts.Limit)
	decs, err := sequenceDecoders(opts.Player, opts.RunsDir, opts.workerCount(total))
	if err != nil {
		return err
	}
	rep.Player = opts.Player.DisplayName()
	dec := decs[0]
	horizon := dec.Decoder.Horizon()
	// The player's T first, then the sweep's; a T in both decodes once.
	row := map[int]int{}
	var reports []*DecodingReport
	var steps []int
	for _, t := range append([]int{dec.Steps}, opts.Steps...) {
		if _, seen := row[t]; !seen {
			row[t] = len(reports)
			steps = append(steps, t)
			reports = append(reports, &DecodingReport{Steps: t, LegalMask: dec.Decoder.LegalMask()})
			if horizon >= 2 {
				reports[len(reports)-1].Imagined = &ImaginedReport{}
			}
		}
	}
	score := make([]func(context.Context, int, *dataset.Record) ([]decodedAt, error), len(decs))
	for k, dec := range decs {
		score[k] = func(_ context.Context, _ int, r *dataset.Record) ([]decodedAt, error) {
			return decodeRecord(dec, steps, r)
		}
	}
	bar := newProgress(&opts.Options, total, "positions")
	err = scoreInOrder(ctx, score, bestMoveRecords(ds, split, opts.Limit), func(_ *dataset.Record, res []decodedAt) error {
		for k, d := range reports {
			at := &res[k]
			d.thinking += at.thinking
			if at.hasCE {
				d.ceSum += at.legalCE
				d.uniSum += at.uniformCE
				d.ceN++
			}
			d.Positions++
			if at.correct {
				d.Correct++
			}
			if at.unrestrictedLegal {
				d.UnrestrictedLegal++
			}
			if d.Imagined != nil {
				d.Imagined.All.Add(at.imagined)
				if at.actionRight {
					d.Imagined.GivenActionRight.Add(at.imagined)
				}
			}
		}
		bar.tick()
		return nil
	})
	if err := bar.done(err); err != nil {
		return err
	}
	for _, d := range reports {
		d.Accuracy = share(d.Correct, d.Positions)
		d.UnrestrictedLegalRate = share(d.UnrestrictedLegal, d.Positions)
		d.LegalCrossEntropy, d.UniformLegalCrossEntropy = ratio(d.ceSum, float64(d.ceN)), ratio(d.uniSum, float64(d.ceN))
		d.MsPerMove = d.thinking.Seconds() * 1000 / float64(max(d.Positions, 1))
		if d.Imagined != nil {
			d.Imagined.All.finish()
			d.Imagined.GivenActionRight.finish()
		}
	}
	for _, steps := range opts.Steps {
		rep.Sweep = append(rep.Sweep, *reports[row[steps]])
	}
	rep.Decoding = reports[0]
	rep.Positions, rep.Correct, rep.Accuracy, rep.MsPerMove = reports[0].Positions, reports[0].Correct, reports[0].Accuracy, reports[0].MsPerMove
	return nil
}
