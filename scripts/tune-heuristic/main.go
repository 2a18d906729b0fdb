// Command tune-heuristic fits the heuristic evaluator's weights to
// Stockfish-labelled datasets (Texel's method) and writes them as Go source
// for search/heuristic/weights.go.
//
//	go run ./scripts/tune-heuristic --data data/labelled,data/more -o search/heuristic/weights.go
//
// Only quiet positions are used: not in check, and Stockfish's best move is
// neither a capture nor a promotion, so a static evaluation can match the
// label. Positions of each dataset's train split are fitted; the val
// splits report the loss before and after.
package main

import (
	"context"
	"flag"
	"fmt"
	"go/format"
	"os"
	"strings"

	"github.com/dchess/dchess/dataset"
	"github.com/dchess/dchess/internal/chess/board"
	"github.com/dchess/dchess/internal/safefile"
	"github.com/dchess/dchess/search/heuristic"
)

func main() {
	var (
		data  = flag.String("data", "", "Stockfish-labelled dataset folders (dchess label), comma-separated")
		out   = flag.String("o", "", "write the Go source here (default stdout)")
		iters = flag.Int("iterations", 1500, "Adam iterations over the whole train split")
		lr    = flag.Float64("lr", 1, "Adam learning rate, centipawns")
		ridge = flag.Float64("ridge", 0, "pull towards the hand-set weights, per squared centipawn")
		clip  = flag.Int("max-cp", 1500, "skip positions Stockfish scores beyond this many centipawns")
	)
	flag.Usage = func() {
		fmt.Fprintf(os.Stderr, "Usage: go run ./scripts/tune-heuristic --data DATASET[,DATASET...] [-o search/heuristic/weights.go]\n\n"+
			"Fits the heuristic's weights to the quiet positions of Stockfish-labelled, split datasets.\n\n"+
			"Example (the run that made the weights in use):\n  go run ./scripts/tune-heuristic --data studies/d8pv4/labelled,studies/match-games/labelled -o search/heuristic/weights.go\n\nFlags:\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if *data == "" {
		fmt.Fprintln(os.Stderr, "tune-heuristic: --data is required")
		os.Exit(2)
	}
	if err := run(*data, *out, *iters, *lr, *ridge, *clip); err != nil {
		fmt.Fprintln(os.Stderr, "tune-heuristic:", err)
		os.Exit(1)
	}
}

func run(dirs, out string, iters int, lr, ridge float64, clip int) error {
	slope := dataset.WinProbCoefficient
	var train, val []heuristic.Sample
	var made []string // each dataset's folder and the label command that made it
	// Every dataset is opened before any is read, so a mistyped name fails at once.
	var sets []*dataset.Dataset
	for _, dir := range strings.Split(dirs, ",") {
		ds, err := dataset.Open(dir)
		if err != nil {
			return err
		}
		sets = append(sets, ds)
	}
	for _, ds := range sets {
		dir := ds.Dir()
		load := func(split dataset.Split) ([]heuristic.Sample, error) {
			var positions []*board.Board
			var scores []int
			err := ds.Scan(context.Background(), split, func(r *dataset.Record) error {
				if b, cp, ok := quiet(r, clip); ok {
					positions = append(positions, b)
					scores = append(scores, cp)
				}
				return nil
			})
			if err != nil {
				return nil, err
			}
			fmt.Fprintf(os.Stderr, "%s %s: %d quiet positions\n", dir, split, len(positions))
			return heuristic.NewSamples(positions, scores, slope), nil
		}
		t, err := load(dataset.Train)
		if err != nil {
			return err
		}
		v, err := load(dataset.Val)
		if err != nil {
			return err
		}
		if len(t) == 0 || len(v) == 0 {
			return fmt.Errorf("%s: no quiet labelled positions in the train or val split "+
				"(label it with dchess label, split it with dchess dataset split %s --val 0.05 --test 0.05)", dir, dir)
		}
		train, val = append(train, t...), append(val, v...)
		made = append(made, dir+": "+strings.Join(ds.Manifest().Command, " "))
	}
	start := heuristic.SeedWeights()
	fmt.Fprintf(os.Stderr, "loss before: train %.6f val %.6f\n",
		heuristic.Loss(train, start, slope), heuristic.Loss(val, start, slope))
	w := heuristic.Fit(train, start, heuristic.FitOptions{
		Slope: slope, Iterations: iters, LearningRate: lr, Ridge: ridge,
		Progress: func(it int, loss float64) {
			if it%100 == 0 {
				fmt.Fprintf(os.Stderr, "iteration %d: train loss %.6f\n", it, loss)
			}
		},
	})
	fmt.Fprintf(os.Stderr, "loss after:  train %.6f val %.6f\n",
		heuristic.Loss(train, w, slope), heuristic.Loss(val, w, slope))

	cmd := fmt.Sprintf("go run ./scripts/tune-heuristic --data %s --iterations %d --lr %g --ridge %g --max-cp %d",
		dirs, iters, lr, ridge, clip)
	src, err := format.Source([]byte(goSource(w, cmd, len(train), made)))
	if err != nil {
		return err
	}
	if out == "" {
		_, err = os.Stdout.Write(src)
		return err
	}
	return safefile.WriteFile(out, src)
}

// quiet returns the position and Stockfish's score from White's view when
// the record is a labelled quiet position.
func quiet(r *dataset.Record, clip int) (*board.Board, int, bool) {
	l := r.Label
	if l == nil || l.Status != dataset.LabelOK || l.Mate != 0 || abs(int(l.CP)) > clip {
		return nil, 0, false
	}
	b, err := board.FromFEN(r.FEN)
	if err != nil || b.InCheck() {
		return nil, 0, false
	}
	m, err := b.ParseUCI(l.BestMove)
	if err != nil || b.IsCapture(m) || m.Promote() != 0 {
		return nil, 0, false
	}
	cp := int(l.CP)
	if b.SideToMove() == board.Black {
		cp = -cp
	}
	return b, cp, true
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// goSource writes w as search/heuristic/weights.go.
func goSource(w heuristic.Weights, cmd string, positions int, made []string) string {
	var b strings.Builder
	pair := func(p [2]int) string { return fmt.Sprintf("{%d, %d}", p[0], p[1]) }
	pairs := func(ps [][2]int) string {
		s := make([]string, len(ps))
		for i, p := range ps {
			s[i] = pair(p)
		}
		return strings.Join(s, ", ")
	}
	fmt.Fprintf(&b, "// Code generated by scripts/tune-heuristic; DO NOT EDIT.\n\npackage heuristic\n\n")
	fmt.Fprintf(&b, "// DefaultWeights were fitted to %d quiet positions by\n//\n//\t%s\n//\n", positions, cmd)
	fmt.Fprintf(&b, "// starting from SeedWeights, on datasets made by\n//\n")
	for _, m := range made {
		fmt.Fprintf(&b, "//\t%s\n", m)
	}
	fmt.Fprintf(&b, "var DefaultWeights = Weights{\n")
	fmt.Fprintf(&b, "\tPieceValue: [7][2]int{%s},\n", pairs(w.PieceValue[:]))
	fmt.Fprintf(&b, "\tPST: [7][64][2]int{\n")
	names := []string{"", "pawn", "knight", "bishop", "rook", "queen", "king"}
	for p := board.Pawn; p <= board.King; p++ {
		fmt.Fprintf(&b, "\t\t%d: { // %s\n", p, names[p])
		for rank := 0; rank < 8; rank++ {
			fmt.Fprintf(&b, "\t\t\t%s,\n", pairs(w.PST[p][rank*8:rank*8+8]))
		}
		fmt.Fprintf(&b, "\t\t},\n")
	}
	fmt.Fprintf(&b, "\t},\n")
	fmt.Fprintf(&b, "\tIsolatedPawn: [2]int%s,\n\tDoubledPawn:  [2]int%s,\n", pair(w.IsolatedPawn), pair(w.DoubledPawn))
	fmt.Fprintf(&b, "\tPassedPawn:   [8][2]int{%s},\n", pairs(w.PassedPawn[:]))
	fmt.Fprintf(&b, "\tBishopPair:   [2]int%s,\n\tRookOpen:     [2]int%s,\n\tRookHalfOpen: [2]int%s,\n",
		pair(w.BishopPair), pair(w.RookOpen), pair(w.RookHalfOpen))
	fmt.Fprintf(&b, "\tMobility:     [7][2]int{%s},\n", pairs(w.Mobility[:]))
	fmt.Fprintf(&b, "\tSupportedPawn: [2]int%s,\n\tPhalanxPawn: [2]int%s,\n", pair(w.SupportedPawn), pair(w.PhalanxPawn))
	fmt.Fprintf(&b, "\tPassedKingDistance: [2][2]int{%s},\n", pairs(w.PassedKingDistance[:]))
	fmt.Fprintf(&b, "\tPawnThreat: [7][2]int{%s},\n", pairs(w.PawnThreat[:]))
	fmt.Fprintf(&b, "\tMinorThreat: [7][2]int{%s},\n", pairs(w.MinorThreat[:]))
	fmt.Fprintf(&b, "\tKingShelter: [2]int%s,\n\tTempo: [2]int%s,\n}\n", pair(w.KingShelter), pair(w.Tempo))
	return b.String()
}
