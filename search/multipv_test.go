package search

import (
	"context"
	"slices"
	"testing"

	"github.com/dchess/dchess/internal/chess/board"
)

// With MultiPV k every iteration reports k lines together, numbered 1 to
// k, best first, each starting with a different move, and the move played
// is the first of the last iteration's line 1. Here Ra8# and Qb8# mate:
// they are the first two lines, the third is no mate.
func TestMultiPVReportsTheBestLines(t *testing.T) {
	const fen = "6k1/5ppp/8/8/8/8/1Q6/R5K1 w - - 0 1"
	mates := []string{"a1a8", "b2b8"}
	engines := map[string]func() *Engine{
		"alphabeta":            func() *Engine { return New(materialEval{}, Options{HashMB: 1}) },
		"alphabeta, 2 threads": func() *Engine { return New(materialEval{}, Options{HashMB: 1, Threads: 2}) },
		"minimax":              func() *Engine { return New(materialEval{}, Options{HashMB: 1, Algorithm: Minimax}) },
	}
	for name, newEngine := range engines {
		var infos []Info
		res := newEngine().Search(context.Background(), mustFEN(t, fen), Limits{Depth: 3, MultiPV: 3},
			func(in Info) { infos = append(infos, in) })
		if len(infos) == 0 || len(infos)%3 != 0 {
			t.Fatalf("%s: %d info lines, want 3 an iteration", name, len(infos))
		}
		for i := 0; i < len(infos); i += 3 {
			checkLines(t, name, infos[i:i+3], 3)
		}
		last := infos[len(infos)-3:]
		if res.Best != last[0].PV[0] || res.Score != last[0].Score || res.Depth != last[0].Depth {
			t.Errorf("%s: played %v (score %d, depth %d), line 1 is %v (score %d, depth %d)",
				name, res.Best, res.Score, res.Depth, last[0].PV, last[0].Score, last[0].Depth)
		}
		var got []string
		for _, l := range last[:2] {
			got = append(got, board.UCI(l.PV[0]))
			if l.Mate != 1 {
				t.Errorf("%s: line %d is %v, mate %d; want a mate in 1", name, l.MultiPV, l.PV, l.Mate)
			}
		}
		slices.Sort(got)
		if !slices.Equal(got, mates) || last[2].Mate != 0 {
			t.Errorf("%s: lines start %v, then %v (mate %d); want the mates %v, then no mate", name, got, last[2].PV, last[2].Mate, mates)
		}
	}
}

// checkLines checks one iteration's lines: numbered 1 to k in order, the
// same depth, scores not rising, the first moves all different.
func checkLines(t *testing.T, name string, lines []Info, k int) {
	t.Helper()
	seen := map[board.Move]bool{}
	for j, l := range lines {
		if l.MultiPV != j+1 || l.Depth != lines[0].Depth || len(l.PV) == 0 || seen[l.PV[0]] {
			t.Errorf("%s: line %d of %d at depth %d: multipv %d, depth %d, pv %v (first moves so far %v)",
				name, j+1, k, lines[0].Depth, l.MultiPV, l.Depth, l.PV, seen)
			continue
		}
		seen[l.PV[0]] = true
		if j > 0 && l.Score > lines[j-1].Score {
			t.Errorf("%s: depth %d: line %d scores %d above line %d's %d", name, l.Depth, j+1, l.Score, j, lines[j-1].Score)
		}
	}
}

// Asked for more lines than there are moves, the search reports every
// move; restricted by searchmoves, only those moves.
func TestMultiPVAboveTheMoves(t *testing.T) {
	const fen = "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"
	legal := len(mustFEN(t, fen).LegalMoves())
	for _, algo := range []Algorithm{AlphaBeta, Minimax} {
		var infos []Info
		New(materialEval{}, Options{HashMB: 1, Algorithm: algo}).Search(context.Background(), mustFEN(t, fen),
			Limits{Depth: 2, MultiPV: 500}, func(in Info) { infos = append(infos, in) })
		if len(infos) == 0 || len(infos)%legal != 0 {
			t.Fatalf("%v: %d info lines, want %d an iteration", algo, len(infos), legal)
		}
		for i := 0; i < len(infos); i += legal {
			checkLines(t, algo.String(), infos[i:i+legal], legal)
		}
		b := mustFEN(t, fen)
		only := []board.Move{}
		for _, s := range []string{"e2e4", "e1d1"} {
			m, err := b.ParseUCI(s)
			if err != nil {
				t.Fatal(err)
			}
			only = append(only, m)
		}
		infos = nil
		New(materialEval{}, Options{HashMB: 1, Algorithm: algo}).Search(context.Background(), b,
			Limits{Depth: 2, MultiPV: 500, SearchMoves: only}, func(in Info) { infos = append(infos, in) })
		if len(infos) == 0 || len(infos)%2 != 0 {
			t.Fatalf("%v: searchmoves of 2: %d info lines", algo, len(infos))
		}
		for _, in := range infos {
			if !slices.Contains(only, in.PV[0]) {
				t.Errorf("%v: line %v is outside searchmoves %v", algo, in.PV, only)
			}
		}
	}
}

// A search stopped while it looks for a later line plays the best line
// it finished, never the partial result of a search that left that line's
// move out: with one mate on the board, every node limit that lets the
// first iteration finish plays the mate.
func TestMultiPVStoppedInALaterLine(t *testing.T) {
	const fen = "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1" // Ra8# only
	var infos []Info
	New(materialEval{}, Options{HashMB: 1}).Search(context.Background(), mustFEN(t, fen),
		Limits{Depth: 4, Infinite: true, MultiPV: 2}, func(in Info) { infos = append(infos, in) })
	if len(infos) < 4 {
		t.Fatalf("%d info lines", len(infos))
	}
	for nodes := infos[1].Nodes; nodes <= infos[len(infos)-1].Nodes; nodes++ {
		res := New(materialEval{}, Options{HashMB: 1}).Search(context.Background(), mustFEN(t, fen),
			Limits{Nodes: nodes, Infinite: true, MultiPV: 2}, nil)
		if board.UCI(res.Best) != "a1a8" || res.Mate != 1 {
			t.Fatalf("stopped after %d nodes: played %s (mate %d), want a1a8, the mate", nodes, board.UCI(res.Best), res.Mate)
		}
	}
}

// MultiPV 1 is the one-line search: the same lines, unnumbered.
func TestMultiPVOneIsTheOneLineSearch(t *testing.T) {
	const fen = "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4"
	run := func(k int) (Result, []Info) {
		var infos []Info
		res := New(materialEval{}, Options{HashMB: 1}).Search(context.Background(), mustFEN(t, fen),
			Limits{Depth: 6, MultiPV: k}, func(in Info) { in.Time, in.NPS = 0, 0; infos = append(infos, in) })
		res.Elapsed = 0
		return res, infos
	}
	res0, infos0 := run(0)
	res1, infos1 := run(1)
	if !slices.EqualFunc(infos0, infos1, func(a, b Info) bool {
		return a.Depth == b.Depth && a.Score == b.Score && a.Nodes == b.Nodes && a.MultiPV == 0 && b.MultiPV == 0 && slices.Equal(a.PV, b.PV)
	}) || res0.Best != res1.Best || res0.Nodes != res1.Nodes {
		t.Errorf("MultiPV 1 searched otherwise than MultiPV 0:\n%+v\n%+v", infos1, infos0)
	}
}
