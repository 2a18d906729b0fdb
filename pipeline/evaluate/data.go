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

// scanBestMoves calls score with every labelled record of split that has a
// best move, up to --limit, and ticks a progress bar.
func scanBestMoves(ctx context.Context, opts *DataOptions, ds *dataset.Dataset, split dataset.Split,
	score func(r *dataset.Record) error) error {
	total := ds.Manifest().Counts.Labelled
	if opts.Limit > 0 {
		total = min(total, int64(opts.Limit))
	}
	tally := newScanTally(&opts.Options, total, "positions")
	return tally.done(ds.Scan(ctx, split, func(r *dataset.Record) error {
		if r.Label == nil || r.Label.Status != dataset.LabelOK || r.Label.BestMove == "" {
			return nil
		}
		if err := score(r); err != nil {
			return err
		}
		return tally.tick()
	}))
}

// scorePlayer plays each position with the player, as a game would.
func scorePlayer(ctx context.Context, opts *DataOptions, ds *dataset.Dataset, split dataset.Split, rep *DataReport) error {
	p, err := player.NewFromSpec(ctx, opts.Player)
	if err != nil {
		return err
	}
	defer p.Close()
	rep.Player = p.Name()
	var eval search.Evaluator
	if searcher, ok := player.Unwrap(p).(*player.Searcher); ok {
		eval = searcher.Evaluator()
	}
	var value, quiet family.ValueScore
	var thinking time.Duration
	err = scanBestMoves(ctx, opts, ds, split, func(r *dataset.Record) error {
		if eval != nil {
			b, err := board.FromFEN(r.FEN)
			if err != nil {
				return fmt.Errorf("%s: %w", r.FEN, err)
			}
			predicted := dataset.WinProbability(int32(eval.Evaluate(b)), 0)
			value.Add(predicted, r.Label.WinProb)
			if q, _ := r.Label.Quiet(b); q {
				quiet.Add(predicted, r.Label.WinProb)
			}
		}
		if err := p.NewGame(ctx); err != nil {
			return err
		}
		began := time.Now()
		mi, err := p.Move(ctx, player.Position{StartFEN: r.FEN}, opts.Limits)
		thinking += time.Since(began)
		if err != nil {
			return fmt.Errorf("%s: %w", r.FEN, err)
		}
		rep.Positions++
		if mi.Move == r.Label.BestMove {
			rep.Correct++
		}
		return nil
	})
	if err != nil {
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

// sequenceDecoder opens the decoder a diffusion or policy SPEC names, as
// the player does; a bare name is the newest weights under runs/.
func sequenceDecoder(spec player.Spec, runsDir string) (*family.Decoding, error) {
	if spec.Path == "" {
		path, err := family.NewestWeights(runsDir, spec.Family)
		if err != nil {
			return nil, err
		}
		spec.Path = path
	}
	return family.SequenceDecoder(spec)
}

// scoreSequencePlayer decodes each position with the diffusion or policy
// decoder itself, the move the player would play, to also read the
// unrestricted a_i and the imagined future; with --steps it decodes once
// per T, interleaved position by position so that every T sees the same
// machine load.
func scoreSequencePlayer(ctx context.Context, opts *DataOptions, ds *dataset.Dataset, split dataset.Split, rep *DataReport) error {
	dec, err := sequenceDecoder(opts.Player, opts.RunsDir)
	if err != nil {
		return err
	}
	rep.Player = opts.Player.DisplayName()
	horizon := dec.Decoder.Horizon()
	// The player's T first, then the sweep's; a T in both decodes once.
	row := map[int]int{}
	var reports []*DecodingReport
	for _, steps := range append([]int{dec.Steps}, opts.Steps...) {
		if _, seen := row[steps]; !seen {
			row[steps] = len(reports)
			reports = append(reports, &DecodingReport{Steps: steps, LegalMask: dec.Decoder.LegalMask()})
			if horizon >= 2 {
				reports[len(reports)-1].Imagined = &ImaginedReport{}
			}
		}
	}
	truth := make([]int16, encode.SequenceLen(horizon))
	err = scanBestMoves(ctx, opts, ds, split, func(r *dataset.Record) error {
		b, err := board.FromFEN(r.FEN)
		if err != nil {
			return fmt.Errorf("%s: %w", r.FEN, err)
		}
		line := sequence.RecordLine(r, sequence.TargetPV)
		if horizon >= 2 {
			// A line with an illegal move is scored up to that move:
			// Sequence leaves the slots after it NoToken.
			encode.Sequence(b, line, horizon, truth)
		}
		for _, d := range reports {
			began := time.Now()
			res, err := dec.Decoder.DecodeSteps(b, d.Steps)
			d.thinking += time.Since(began)
			if err != nil {
				return fmt.Errorf("%s: %w", r.FEN, err)
			}
			move := board.UCI(res.Best)
			for i, m := range res.Moves {
				if board.UCI(m) == r.Label.BestMove {
					d.ceSum -= res.Scores[i]
					d.uniSum += math.Log(float64(len(res.Moves)))
					d.ceN++
				}
			}
			d.Positions++
			if move == r.Label.BestMove {
				d.Correct++
			}
			if res.UnrestrictedLegal {
				d.UnrestrictedLegal++
			}
			if d.Imagined != nil {
				m, err := transformer.CompareImagined(horizon, res.Tokens, truth)
				if err != nil {
					return err
				}
				d.Imagined.All.Add(m)
				if len(line) > 0 && move == line[0] {
					d.Imagined.GivenActionRight.Add(m)
				}
			}
		}
		return nil
	})
	if err != nil {
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
