package main

import (
	"context"
	"encoding/csv"
	"encoding/json"
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
}

// errEvalLimit ends a scan at --limit positions.
var errEvalLimit = errors.New("limit reached")

func newBar(s *IOStreams, total int64, what string) *progressbar.ProgressBar {
	if !s.ShowProgress() {
		return nil
	}
	return progressbar.NewOptions64(total, progressbar.OptionSetWriter(s.ErrOut), progressbar.OptionSetDescription(what),
		progressbar.OptionShowCount(), progressbar.OptionThrottle(200*time.Millisecond), progressbar.OptionClearOnFinish())
}

func evalData(ctx context.Context, opts *evalOptions, spec player.Spec, lim player.Limits, s *IOStreams) error {
	ds, err := dataset.Open(opts.Data)
	if err != nil {
		return usagef("--data: %v", err)
	}
	split, splitName := dataset.Test, "test"
	if ds.Manifest().Split == nil {
		split, splitName = dataset.AllSplits, "all"
		s.Infof("dataset %s has no split: scoring every labelled position (run `dchess dataset split` first)\n", opts.Data)
	}
	p, err := player.NewFromSpec(ctx, spec)
	if err != nil {
		return err
	}
	defer p.Close()
	rep := dataReport{Player: p.Name(), Dataset: opts.Data, Split: splitName}
	total := ds.Manifest().Counts.Labelled
	if opts.Limit > 0 {
		total = min(total, int64(opts.Limit))
	}
	bar := newBar(s, total, "positions")
	var thinking time.Duration
	err = ds.Scan(ctx, split, func(r *dataset.Record) error {
		if r.Label == nil || r.Label.Status != dataset.LabelOK || r.Label.BestMove == "" {
			return nil
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
		if bar != nil {
			bar.Add(1)
		}
		if opts.Limit > 0 && rep.Positions >= opts.Limit {
			return errEvalLimit
		}
		return nil
	})
	if err != nil && !errors.Is(err, errEvalLimit) {
		return err
	}
	if bar != nil {
		bar.Finish()
	}
	if rep.Positions == 0 {
		return fmt.Errorf("--data %s: no labelled position with a best move in the %s split", opts.Data, splitName)
	}
	rep.Accuracy = float64(rep.Correct) / float64(rep.Positions)
	rep.MsPerMove = thinking.Seconds() * 1000 / float64(rep.Positions)
	if opts.JSON {
		enc := json.NewEncoder(s.Out)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	fmt.Fprintf(s.Out, "%s: action accuracy %.1f%% (%d of %d %s positions play Stockfish's best move), %.1f ms per move\n",
		rep.Player, 100*rep.Accuracy, rep.Correct, rep.Positions, splitName, rep.MsPerMove)
	return nil
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
		enc := json.NewEncoder(s.Out)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	fmt.Fprintf(s.Out, "%s: solved %d of %d puzzles (%.1f%%), %.1f ms per move\n", rep.Player, rep.Solved, rep.Puzzles, 100*rep.Rate, rep.MsPerMove)
	tw := tabwriter.NewWriter(s.Out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "rating\tpuzzles\tsolved\t%\t")
	for _, bk := range rep.Buckets {
		fmt.Fprintf(tw, "%d-%d\t%d\t%d\t%.1f\t\n", bk.From, bk.From+puzzleBucketWidth-1, bk.Puzzles, bk.Solved, 100*bk.Rate)
	}
	return tw.Flush()
}
