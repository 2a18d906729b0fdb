package search

import (
	"context"
	"slices"
	"testing"

	"github.com/dchess/dchess/internal/chess/board"
)

type rootSearcher interface {
	Search(context.Context, *board.Board, Limits, func(Info)) Result
}

// SearchMoves restricts the root moves of every search (alpha-beta on one
// and on two threads, minimax, the comparison search): with the mate left
// out the search plays one of the moves it was given, and its PV starts
// with it; a list with no legal move searches every move.
func TestSearchMovesRestrictsTheRoot(t *testing.T) {
	const fen = "6k1/5ppp/8/8/8/8/1Q6/R5K1 w - - 0 1" // Ra8# and Qb8# mate
	b := mustFEN(t, fen)
	parse := func(ucis ...string) []board.Move {
		var ms []board.Move
		for _, s := range ucis {
			m, err := b.ParseUCI(s)
			if err != nil {
				t.Fatal(err)
			}
			ms = append(ms, m)
		}
		return ms
	}
	only := parse("b2b7", "g1f1", "a1a2")
	engines := map[string]func() rootSearcher{
		"alphabeta": func() rootSearcher {
			return New(materialEval{}, Options{HashMB: 1})
		},
		"alphabeta, 2 threads": func() rootSearcher {
			return New(materialEval{}, Options{HashMB: 1, Threads: 2})
		},
		"minimax": func() rootSearcher {
			return New(materialEval{}, Options{HashMB: 1, Algorithm: Minimax})
		},
		"compare": func() rootSearcher {
			return NewCompare(&materialComparator{}, CompareOptions{HashMB: 1})
		},
	}
	for name, newEngine := range engines {
		e := newEngine()
		var infos []Info
		res := e.Search(context.Background(), mustFEN(t, fen), Limits{Depth: 3, SearchMoves: only}, func(in Info) { infos = append(infos, in) })
		if !slices.Contains(only, res.Best) || res.Mate > 0 {
			t.Errorf("%s: searchmoves %v played %v (mate %d)", name, only, res.Best, res.Mate)
		}
		for _, in := range infos {
			if len(in.PV) == 0 || !slices.Contains(only, in.PV[0]) {
				t.Errorf("%s: info pv %v is outside %v", name, in.PV, only)
			}
		}
		// Next, unrestricted, the same engine finds the mate: the
		// restricted search left no root entry that hides it.
		if res := e.Search(context.Background(), mustFEN(t, fen), Limits{Depth: 3}, nil); res.Mate != 1 {
			t.Errorf("%s: after a restricted search, no mate in 1 (got %v, mate %d)", name, res.Best, res.Mate)
		}
		e = newEngine()
		illegal := []board.Move{parse("a1a8")[0]}
		other := mustFEN(t, "6k1/5ppp/8/8/8/8/1Q6/1R4K1 w - - 0 1") // a1a8 is not a move here
		if res := e.Search(context.Background(), other, Limits{Depth: 3, SearchMoves: illegal}, nil); res.Mate != 1 {
			t.Errorf("%s: searchmoves with no legal move: %v, mate %d; want a mate in 1", name, res.Best, res.Mate)
		}
	}
}
