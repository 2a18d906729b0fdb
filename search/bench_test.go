package search_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/dchess/dchess/internal/chess/board"
	"github.com/dchess/dchess/search"
	"github.com/dchess/dchess/search/heuristic"
)

func TestBenchPositionsAreValid(t *testing.T) {
	seen := map[string]bool{}
	for _, fen := range search.BenchPositions {
		b, err := board.FromFEN(fen)
		if err != nil {
			t.Error(err)
			continue
		}
		if b.Status() != board.NotOver || seen[fen] {
			t.Errorf("%s: %v, duplicate %v", fen, b.Status(), seen[fen])
		}
		seen[fen] = true
	}
}

// TestBenchNodes pins the bench signature: a change to search or
// evaluation that alters the tree must update search.BenchNodes.
func TestBenchNodes(t *testing.T) {
	if testing.Short() {
		t.Skip("bench takes a few seconds")
	}
	r, err := search.Bench(context.Background(), heuristic.New(), search.Options{}, search.BenchDepth, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.Nodes != search.BenchNodes {
		t.Errorf("bench nodes %d, search.BenchNodes %d: update the constant if the change was intended", r.Nodes, search.BenchNodes)
	}
}

func BenchmarkSearch(b *testing.B) {
	e := search.New(heuristic.New(), search.Options{})
	var nodes int64
	for b.Loop() {
		for _, fen := range search.BenchPositions[:8] {
			pos, _ := board.FromFEN(fen)
			e.NewGame()
			nodes += e.Search(context.Background(), pos, search.Limits{Depth: 5}, nil).Nodes
		}
	}
	b.ReportMetric(float64(nodes)/b.Elapsed().Seconds(), "nodes/s")
}

// BenchmarkSearchThreads is BenchmarkSearch on 1 and 2 threads, deeper so
// that starting the helpers costs little against a search: Lazy SMP
// should nearly double the nodes/s on two free cores.
//
//	go test -run '^$' -bench SearchThreads -benchtime 5x ./search/
func BenchmarkSearchThreads(b *testing.B) {
	for _, threads := range []int{1, 2} {
		b.Run(fmt.Sprintf("threads=%d", threads), func(b *testing.B) {
			e := search.New(heuristic.New(), search.Options{Threads: threads})
			var nodes int64
			for b.Loop() {
				for _, fen := range search.BenchPositions[:8] {
					pos, _ := board.FromFEN(fen)
					e.NewGame()
					nodes += e.Search(context.Background(), pos, search.Limits{Depth: 9}, nil).Nodes
				}
			}
			b.ReportMetric(float64(nodes)/b.Elapsed().Seconds(), "nodes/s")
		})
	}
}

func TestCompareBench(t *testing.T) {
	var runs []string
	var rows []search.BenchCompareRow
	got, err := search.CompareBench(context.Background(), func() search.Evaluator { return heuristic.New() }, 1, 2,
		func(run string, done, total int) {
			if total != len(search.BenchPositions) || done < 1 || done > total {
				t.Fatalf("progress %s %d/%d", run, done, total)
			}
			if done == total {
				runs = append(runs, run)
			}
		},
		func(r search.BenchCompareRow) { rows = append(rows, r) })
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"minimax d1", "alphabeta d1", "minimax d2", "alphabeta d2"}; !slices.Equal(runs, want) {
		t.Errorf("finished runs %v, want %v", runs, want)
	}
	if len(got) != 2 || !slices.Equal(got, rows) || got[0].Depth != 1 || got[1].Depth != 2 {
		t.Fatalf("rows %+v, told %+v", got, rows)
	}
	// Minimax at depth 1 visits the root and each of its moves.
	var wantD1 int64
	for _, fen := range search.BenchPositions {
		b, _ := board.FromFEN(fen)
		wantD1 += 1 + int64(len(b.LegalMoves()))
	}
	if got[0].Minimax.Nodes != wantD1 || got[0].AlphaBeta.Nodes <= 0 || got[1].Minimax.Nodes <= wantD1 {
		t.Errorf("rows %+v, want minimax depth-1 nodes %d", got, wantD1)
	}
	if r := got[1]; r.Ratio() != float64(r.Minimax.Nodes)/float64(r.AlphaBeta.Nodes) {
		t.Errorf("ratio %v of %+v", r.Ratio(), r)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := search.CompareBench(ctx, func() search.Evaluator { return heuristic.New() }, 1, 1, nil, nil); err == nil {
		t.Error("a cancelled compare returned no error")
	}
}

func TestBenchSignature(t *testing.T) {
	for _, c := range []struct {
		depth int
		nodes int64
		want  string
	}{
		{search.BenchDepth, search.BenchNodes, "ok"},
		{search.BenchDepth, search.BenchNodes + 1, "differs from search.BenchNodes 2214358"},
		{search.BenchDepth - 1, search.BenchNodes, ""},
	} {
		if got := search.BenchSignature(c.depth, c.nodes); got != c.want {
			t.Errorf("BenchSignature(%d, %d) = %q, want %q", c.depth, c.nodes, got, c.want)
		}
	}
}
