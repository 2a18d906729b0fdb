package search_test

import (
	"context"
	"testing"

	"github.com/dchess/dchess/search"
	"github.com/dchess/dchess/search/board"
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
