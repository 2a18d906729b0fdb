package main

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/dchess/dchess/dataset"
	"github.com/dchess/dchess/dataset/encode"
	"github.com/dchess/dchess/models/deepchess"
	"github.com/dchess/dchess/models/diffusion"
	"github.com/dchess/dchess/pipeline"
	"github.com/dchess/dchess/search"
	"github.com/dchess/dchess/search/board"
	"github.com/dchess/dchess/search/player"
)

// dataReport is `eval --data`: how often the player's move is Stockfish's
// best move on the dataset's test split.
type dataReport struct {
	Player    string  `json:"player"`
	Dataset   string  `json:"dataset"`
	Split     string  `json:"split"`
	Positions int     `json:"positions"`
	Correct   int     `json:"correct"`
	Accuracy  float64 `json:"action_accuracy"`
	MsPerMove float64 `json:"ms_per_move"`
	// Value scores a searching player's static evaluation of each position
	// against Stockfish's win probability.
	Value *valueReport `json:"value,omitempty"`
	// Decoding is the diffusion or policy decoder's report at the player's
	// T (the top-level numbers are its), Sweep the same for each --steps T.
	Decoding *decodingReport  `json:"decoding,omitempty"`
	Sweep    []decodingReport `json:"steps_sweep,omitempty"`
}

// valueReport compares an evaluator's win probability (its centipawns
// mapped as labels are) with the label's, as training reports it.
type valueReport struct {
	Positions     int64   `json:"positions"`
	MSE           float64 `json:"mse"`
	SignAgreement float64 `json:"sign_agreement"`
	Within01      float64 `json:"within_0_1"`
}

// decodingReport is a sequence player's decoding at one number of steps T.
type decodingReport struct {
	Steps     int     `json:"steps"`
	Positions int     `json:"positions"`
	Correct   int     `json:"correct"`
	Accuracy  float64 `json:"action_accuracy"`
	MsPerMove float64 `json:"ms_per_move"`
	// UnrestrictedLegal counts the positions where the model's a_i without
	// the legal-move restriction (argmax over the whole vocabulary) is legal.
	UnrestrictedLegal     int     `json:"unrestricted_legal"`
	UnrestrictedLegalRate float64 `json:"unrestricted_legal_rate"`
	// Imagined is set for a horizon of at least 2.
	Imagined *imaginedReport `json:"imagined,omitempty"`
	thinking time.Duration
}

// imaginedReport scores the imagined s_{i+1} and a_{i+1} against
// Stockfish's line on every position (All) and on those where the model's
// a_i is the line's first move (GivenActionRight).
type imaginedReport struct {
	All              imaginedScores `json:"all"`
	GivenActionRight imaginedScores `json:"given_action_right"`
}

// imaginedScores: s_{i+1} is scored on the positions whose line has a_i
// (its 70 tokens, and the whole block), a_{i+1} on those whose line has a
// second move.
type imaginedScores struct {
	StatePositions      int     `json:"state_positions"`
	StateTokensCorrect  int     `json:"state_tokens_correct"`
	StateTokenAccuracy  float64 `json:"state_token_accuracy"`
	StateExact          int     `json:"state_exact"`
	StateExactRate      float64 `json:"state_exact_rate"`
	NextActionPositions int     `json:"next_action_positions"`
	NextActionCorrect   int     `json:"next_action_correct"`
	NextActionAccuracy  float64 `json:"next_action_accuracy"`
}

func (sc *imaginedScores) add(m diffusion.Imagined) {
	if m.HasState {
		sc.StatePositions++
		sc.StateTokensCorrect += m.StateCorrect
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

func (sc *imaginedScores) finish() {
	sc.StateTokenAccuracy = ratio(sc.StateTokensCorrect, sc.StatePositions*encode.StateLen)
	sc.StateExactRate = ratio(sc.StateExact, sc.StatePositions)
	sc.NextActionAccuracy = ratio(sc.NextActionCorrect, sc.NextActionPositions)
}

// ratio is n/d, 0 when there is nothing to divide by.
func ratio(n, d int) float64 {
	if d == 0 {
		return 0
	}
	return float64(n) / float64(d)
}

// errEvalLimit ends a scan at --limit positions.
var errEvalLimit = errors.New("limit reached")

// scanTally counts what an eval scan scored, ticks its progress bar and
// ends the scan (errEvalLimit) once --limit items are scored.
type scanTally struct {
	bar    *progressbar.ProgressBar
	limit  int
	scored int
}

func newScanTally(s *IOStreams, total int64, what string, limit int) *scanTally {
	return &scanTally{bar: newBar(s, total, what), limit: limit}
}

func (t *scanTally) tick() error {
	t.scored++
	if t.bar != nil {
		t.bar.Add(1)
	}
	if t.limit > 0 && t.scored >= t.limit {
		return errEvalLimit
	}
	return nil
}

// done passes on the scan's error unless it is the limit, and closes the bar.
func (t *scanTally) done(err error) error {
	if err != nil && !errors.Is(err, errEvalLimit) {
		return err
	}
	if t.bar != nil {
		t.bar.Finish()
	}
	return nil
}

func newBar(s *IOStreams, total int64, what string) *progressbar.ProgressBar {
	if !s.ShowProgress() {
		return nil
	}
	return progressbar.NewOptions64(total, progressbar.OptionSetWriter(s.ErrOut), progressbar.OptionSetDescription(what),
		progressbar.OptionShowCount(), progressbar.OptionThrottle(200*time.Millisecond), progressbar.OptionClearOnFinish())
}

// isSequenceFamily tells the players eval --data scores through their
// decoder, for the numbers a move alone does not show.
func isSequenceFamily(family string) bool {
	return pipeline.Supports(family, pipeline.EvalActions)
}

func evalData(ctx context.Context, opts *evalOptions, spec player.Spec, lim player.Limits, s *IOStreams) error {
	if len(opts.Steps) > 0 && !pipeline.Supports(spec.Family, pipeline.EvalStepsSweep) {
		return usagef("--steps sweeps a diffusion player's decoding steps, not %s's", spec.Family)
	}
	if spec.Family == deepchess.SiameseFamily && spec.Path == "" {
		return usagef("--player %s: a siamese player needs its weights, siamese:PATH", spec.Raw)
	}
	ds, err := dataset.Open(opts.Data)
	if err != nil {
		return usagef("--data: %v", err)
	}
	split, splitName := dataset.Test, "test"
	if ds.Manifest().Split == nil {
		split, splitName = dataset.AllSplits, "all"
		s.Infof("dataset %s has no split: scoring all of it (run `dchess dataset split` first)\n", opts.Data)
	}
	if spec.Family == deepchess.SiameseFamily || opts.Pairs {
		return evalPairs(ctx, opts, spec, lim, ds, split, splitName, s)
	}
	rep := dataReport{Dataset: opts.Data, Split: splitName}
	if isSequenceFamily(spec.Family) {
		err = scoreSequencePlayer(ctx, opts, spec, ds, split, &rep, s)
	} else {
		err = scorePlayer(ctx, opts, spec, lim, ds, split, &rep, s)
	}
	if err != nil {
		return err
	}
	if rep.Positions == 0 {
		return fmt.Errorf("--data %s: no labelled position with a best move in the %s split", opts.Data, splitName)
	}
	if opts.JSON {
		return writeJSON(s.Out, rep)
	}
	fmt.Fprintf(s.Out, "%s: action accuracy %.1f%% (%d of %d %s positions play Stockfish's best move), %.1f ms per move\n",
		rep.Player, 100*rep.Accuracy, rep.Correct, rep.Positions, splitName, rep.MsPerMove)
	if v := rep.Value; v != nil {
		fmt.Fprintf(s.Out, "static evaluation against Stockfish's win probability: MSE %.5f, sign agreement %.1f%%, within 0.1 %.1f%% (%d positions)\n",
			v.MSE, 100*v.SignAgreement, 100*v.Within01, v.Positions)
	}
	if d := rep.Decoding; d != nil {
		printDecoding(s.Out, d)
	}
	if len(rep.Sweep) > 0 {
		return printSweep(s.Out, rep.Sweep)
	}
	return nil
}

// scanBestMoves calls score with every labelled record of split that has a
// best move, up to --limit, and ticks a progress bar.
func scanBestMoves(ctx context.Context, opts *evalOptions, ds *dataset.Dataset, split dataset.Split, s *IOStreams,
	score func(r *dataset.Record) error) error {
	total := ds.Manifest().Counts.Labelled
	if opts.Limit > 0 {
		total = min(total, int64(opts.Limit))
	}
	tally := newScanTally(s, total, "positions", opts.Limit)
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
func scorePlayer(ctx context.Context, opts *evalOptions, spec player.Spec, lim player.Limits, ds *dataset.Dataset,
	split dataset.Split, rep *dataReport, s *IOStreams) error {
	p, err := player.NewFromSpec(ctx, spec)
	if err != nil {
		return err
	}
	defer p.Close()
	rep.Player = p.Name()
	var eval search.Evaluator
	if searcher, ok := player.Unwrap(p).(*player.Searcher); ok {
		eval = searcher.Evaluator()
	}
	var value pipeline.ValueScore
	var thinking time.Duration
	err = scanBestMoves(ctx, opts, ds, split, s, func(r *dataset.Record) error {
		if eval != nil {
			b, err := board.FromFEN(r.FEN)
			if err != nil {
				return fmt.Errorf("%s: %w", r.FEN, err)
			}
			value.Add(dataset.WinProbability(int32(eval.Evaluate(b)), 0), r.Label.WinProb)
		}
		if err := p.NewGame(ctx); err != nil {
			return err
		}
		began := time.Now()
		mi, err := p.Move(ctx, player.Position{StartFEN: r.FEN}, lim)
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
	rep.Accuracy = ratio(rep.Correct, rep.Positions)
	rep.MsPerMove = thinking.Seconds() * 1000 / float64(max(rep.Positions, 1))
	if value.N() > 0 {
		rep.Value = &valueReport{Positions: value.N(), MSE: value.MSE(), SignAgreement: value.SignAgreement(),
			Within01: value.Within()}
	}
	return nil
}

// sequenceDecoder opens the decoder a diffusion or policy SPEC names, as
// the player does; a bare name is the newest weights under runs/.
func sequenceDecoder(ctx context.Context, spec player.Spec) (*pipeline.Decoding, error) {
	if spec.Path == "" {
		path, err := newestWeights(ctx, spec.Family)
		if err != nil {
			return nil, err
		}
		spec.Path = path
	}
	return pipeline.SequenceDecoder(spec)
}

// scoreSequencePlayer decodes each position with the diffusion or policy
// decoder itself, the move the player would play, to also read the
// unrestricted a_i and the imagined future; with --steps it decodes once
// per T, interleaved position by position so that every T sees the same
// machine load.
func scoreSequencePlayer(ctx context.Context, opts *evalOptions, spec player.Spec, ds *dataset.Dataset,
	split dataset.Split, rep *dataReport, s *IOStreams) error {
	dec, err := sequenceDecoder(ctx, spec)
	if err != nil {
		return err
	}
	rep.Player = spec.DisplayName()
	horizon := dec.Decoder.Horizon()
	// The player's T first, then the sweep's; a T in both decodes once.
	row := map[int]int{}
	var reports []*decodingReport
	for _, steps := range append([]int{dec.Steps}, opts.Steps...) {
		if _, seen := row[steps]; !seen {
			row[steps] = len(reports)
			reports = append(reports, &decodingReport{Steps: steps})
			if horizon >= 2 {
				reports[len(reports)-1].Imagined = &imaginedReport{}
			}
		}
	}
	truth := make([]int16, encode.SequenceLen(horizon))
	err = scanBestMoves(ctx, opts, ds, split, s, func(r *dataset.Record) error {
		b, err := board.FromFEN(r.FEN)
		if err != nil {
			return fmt.Errorf("%s: %w", r.FEN, err)
		}
		line := pipeline.RecordLine(r, diffusion.TargetPV)
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
			d.Positions++
			if move == r.Label.BestMove {
				d.Correct++
			}
			if res.UnrestrictedLegal {
				d.UnrestrictedLegal++
			}
			if d.Imagined != nil {
				m, err := diffusion.CompareImagined(horizon, res.Tokens, truth)
				if err != nil {
					return err
				}
				d.Imagined.All.add(m)
				if len(line) > 0 && move == line[0] {
					d.Imagined.GivenActionRight.add(m)
				}
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, d := range reports {
		d.Accuracy = ratio(d.Correct, d.Positions)
		d.UnrestrictedLegalRate = ratio(d.UnrestrictedLegal, d.Positions)
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

// printDecoding prints the decoder's lines under the accuracy line.
func printDecoding(w io.Writer, d *decodingReport) {
	fmt.Fprintf(w, "decoding with T = %d: the unrestricted a_i (argmax over all %d moves) is legal in %.1f%% (%d of %d)\n",
		d.Steps, encode.ActionVocab, 100*d.UnrestrictedLegalRate, d.UnrestrictedLegal, d.Positions)
	im := d.Imagined
	if im == nil {
		return
	}
	all, given := im.All, im.GivenActionRight
	fmt.Fprintf(w, "imagined s_{i+1} after Stockfish's a_i: %.1f%% of its %d tokens right, whole block exact in %.1f%% (%d of %d)\n",
		100*all.StateTokenAccuracy, encode.StateLen, 100*all.StateExactRate, all.StateExact, all.StatePositions)
	fmt.Fprintf(w, "  when a_i is right: %.1f%% of tokens, exact in %.1f%% (%d of %d)\n",
		100*given.StateTokenAccuracy, 100*given.StateExactRate, given.StateExact, given.StatePositions)
	fmt.Fprintf(w, "imagined a_{i+1}: %.1f%% is Stockfish's second move (%d of %d); when a_i is right: %.1f%% (%d of %d)\n",
		100*all.NextActionAccuracy, all.NextActionCorrect, all.NextActionPositions,
		100*given.NextActionAccuracy, given.NextActionCorrect, given.NextActionPositions)
}

// printSweep prints the --steps table.
func printSweep(w io.Writer, rows []decodingReport) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "T\taction %\tms/move\tlegal a_i %\ts_{i+1} tokens %\ts_{i+1} exact %\ta_{i+1} %\t")
	for _, d := range rows {
		state, exact, next := "-", "-", "-"
		if im := d.Imagined; im != nil {
			state = fmt.Sprintf("%.1f", 100*im.All.StateTokenAccuracy)
			exact = fmt.Sprintf("%.1f", 100*im.All.StateExactRate)
			next = fmt.Sprintf("%.1f", 100*im.All.NextActionAccuracy)
		}
		fmt.Fprintf(tw, "%d\t%.1f\t%.1f\t%.1f\t%s\t%s\t%s\t\n", d.Steps, 100*d.Accuracy, d.MsPerMove,
			100*d.UnrestrictedLegalRate, state, exact, next)
	}
	return tw.Flush()
}

// puzzle is one Lichess puzzle: Moves[0] is the opponent's move that sets
// it, then the solver's and the opponent's moves alternate.
type puzzle struct {
	FEN    string
	Moves  []string
	Rating int
}

// puzzleBucketWidth groups puzzles by rating.
const puzzleBucketWidth = 200

type puzzleBucket struct {
	From    int     `json:"from"` // ratings from..from+199
	Puzzles int     `json:"puzzles"`
	Solved  int     `json:"solved"`
	Rate    float64 `json:"solved_rate"`
}

type puzzleReport struct {
	Player    string         `json:"player"`
	File      string         `json:"file"`
	Puzzles   int            `json:"puzzles"`
	Solved    int            `json:"solved"`
	Rate      float64        `json:"solved_rate"`
	MsPerMove float64        `json:"ms_per_move"`
	Buckets   []puzzleBucket `json:"buckets"`
}

// readPuzzles reads a Lichess puzzle CSV by its header: FEN, Moves and
// Rating columns (others, such as PuzzleId and Themes, are ignored).
func readPuzzles(path string, limit int) ([]puzzle, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("--puzzles: %w", err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.FieldsPerRecord = -1
	header, err := r.Read()
	if err != nil {
		return nil, fmt.Errorf("--puzzles %s: %w", path, err)
	}
	col := map[string]int{}
	for i, name := range header {
		col[strings.TrimSpace(name)] = i
	}
	fenCol, ok1 := col["FEN"]
	movesCol, ok2 := col["Moves"]
	ratingCol, ok3 := col["Rating"]
	if !ok1 || !ok2 || !ok3 {
		return nil, fmt.Errorf("--puzzles %s: the header needs FEN, Moves and Rating columns (Lichess CSV)", path)
	}
	var out []puzzle
	for line := 2; ; line++ {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("--puzzles %s: %w", path, err)
		}
		if len(rec) <= max(fenCol, movesCol, ratingCol) {
			return nil, fmt.Errorf("--puzzles %s:%d: too few columns", path, line)
		}
		rating, err := strconv.Atoi(strings.TrimSpace(rec[ratingCol]))
		moves := strings.Fields(rec[movesCol])
		if err != nil || len(moves) < 2 {
			return nil, fmt.Errorf("--puzzles %s:%d: want a rating and at least two moves", path, line)
		}
		out = append(out, puzzle{FEN: rec[fenCol], Moves: moves, Rating: rating})
		if limit > 0 && len(out) >= limit {
			break
		}
	}
	return out, nil
}

// solve plays a puzzle: the player must find every one of its moves (a
// mate that ends the line counts too, as on Lichess).
func solve(ctx context.Context, p player.Player, pz puzzle, lim player.Limits) (bool, time.Duration, int, error) {
	b, err := board.FromFEN(pz.FEN)
	if err != nil {
		return false, 0, 0, err
	}
	if err := p.NewGame(ctx); err != nil {
		return false, 0, 0, err
	}
	var thinking time.Duration
	moves := 0
	for i, want := range pz.Moves {
		if i%2 == 1 {
			began := time.Now()
			mi, err := p.Move(ctx, player.Position{StartFEN: pz.FEN, Moves: pz.Moves[:i]}, lim)
			thinking += time.Since(began)
			moves++
			if err != nil {
				return false, thinking, moves, err
			}
			if mi.Move != want {
				m, err := b.ParseUCI(mi.Move)
				if err != nil {
					return false, thinking, moves, nil
				}
				b.Make(m)
				mate := b.Status() == board.Checkmate
				return mate && i == len(pz.Moves)-1, thinking, moves, nil
			}
		}
		m, err := b.ParseUCI(want)
		if err != nil {
			return false, thinking, moves, fmt.Errorf("puzzle %s: %w", pz.FEN, err)
		}
		b.Make(m)
	}
	return true, thinking, moves, nil
}

func evalPuzzles(ctx context.Context, opts *evalOptions, spec player.Spec, lim player.Limits, s *IOStreams) error {
	puzzles, err := readPuzzles(opts.Puzzles, opts.Limit)
	if err != nil {
		return usagef("%v", err)
	}
	if len(puzzles) == 0 {
		return usagef("--puzzles %s holds no puzzle", opts.Puzzles)
	}
	p, err := player.NewFromSpec(ctx, spec)
	if err != nil {
		return err
	}
	defer p.Close()
	rep := puzzleReport{Player: p.Name(), File: opts.Puzzles}
	buckets := map[int]*puzzleBucket{}
	bar := newBar(s, int64(len(puzzles)), "puzzles")
	var thinking time.Duration
	moves := 0
	for _, pz := range puzzles {
		ok, took, n, err := solve(ctx, p, pz, lim)
		if err != nil {
			return err
		}
		thinking += took
		moves += n
		from := pz.Rating / puzzleBucketWidth * puzzleBucketWidth
		bk := buckets[from]
		if bk == nil {
			bk = &puzzleBucket{From: from}
			buckets[from] = bk
		}
		bk.Puzzles++
		rep.Puzzles++
		if ok {
			bk.Solved++
			rep.Solved++
		}
		if bar != nil {
			bar.Add(1)
		}
	}
	if bar != nil {
		bar.Finish()
	}
	rep.Rate = float64(rep.Solved) / float64(rep.Puzzles)
	rep.MsPerMove = thinking.Seconds() * 1000 / float64(max(moves, 1))
	for from := 0; from <= 4000; from += puzzleBucketWidth {
		if bk := buckets[from]; bk != nil {
			bk.Rate = float64(bk.Solved) / float64(bk.Puzzles)
			rep.Buckets = append(rep.Buckets, *bk)
		}
	}
	if opts.JSON {
		return writeJSON(s.Out, rep)
	}
	fmt.Fprintf(s.Out, "%s: solved %d of %d puzzles (%.1f%%), %.1f ms per move\n", rep.Player, rep.Solved, rep.Puzzles, 100*rep.Rate, rep.MsPerMove)
	tw := tabwriter.NewWriter(s.Out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "rating\tpuzzles\tsolved\t%\t")
	for _, bk := range rep.Buckets {
		fmt.Fprintf(tw, "%d-%d\t%d\t%d\t%.1f\t\n", bk.From, bk.From+puzzleBucketWidth-1, bk.Puzzles, bk.Solved, 100*bk.Rate)
	}
	return tw.Flush()
}
