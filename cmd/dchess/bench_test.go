package main

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/dchess/dchess/internal/chess/board"
	"github.com/dchess/dchess/models/shipped"
	"github.com/dchess/dchess/search"
)

func TestBenchReportsNodes(t *testing.T) {
	s, out := perftStreams()
	if err := runBench(context.Background(), &benchOptions{Threads: 1, Depth: 2, HashMB: 1, JSON: true}, s); err != nil {
		t.Fatal(err)
	}
	var got search.BenchReport
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("%v in %s", err, out)
	}
	if got.Positions != len(search.BenchPositions) || got.Depth != 2 || got.Nodes <= int64(got.Positions) || got.Signature != "" {
		t.Errorf("bench %+v", got)
	}
	// Same depth, same nodes: the count is a signature.
	s, out = perftStreams()
	if err := runBench(context.Background(), &benchOptions{Threads: 1, Depth: 2, HashMB: 1}, s); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "nodes      "+itoa(got.Nodes)+"\n") {
		t.Errorf("text output %q does not repeat %d nodes", out, got.Nodes)
	}
}

func itoa(n int64) string {
	b, _ := json.Marshal(n)
	return string(b)
}

func TestBenchCompareSearch(t *testing.T) {
	s, out := perftStreams()
	if err := runBench(context.Background(), &benchOptions{Threads: 1, Depth: 2, HashMB: 1, CompareSearch: true, JSON: true}, s); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Compare []search.BenchCompareRow `json:"compare"`
	}
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("%v in %s", err, out)
	}
	if len(got.Compare) != 2 {
		t.Fatalf("rows %+v", got.Compare)
	}
	// Minimax at depth 1 visits the root and each of its moves.
	d1 := got.Compare[0]
	wantD1 := int64(0)
	for _, fen := range search.BenchPositions {
		b := mustBoard(t, fen)
		wantD1 += 1 + int64(len(b.LegalMoves()))
	}
	if d1.Minimax.Nodes != wantD1 || d1.AlphaBeta.Nodes <= 0 || got.Compare[1].Minimax.Nodes <= wantD1 {
		t.Errorf("compare %+v, want minimax depth-1 nodes %d", got.Compare, wantD1)
	}
}

func TestBenchBadFlags(t *testing.T) {
	var usage *usageError
	for _, opts := range []benchOptions{{Threads: 1, Depth: -1, HashMB: 1}, {Threads: 1, Depth: 31, HashMB: 1}, {Threads: 1, HashMB: 0}, {Threads: 0, Depth: 2, HashMB: 1}} {
		s, _ := perftStreams()
		if err := runBench(context.Background(), &opts, s); !errors.As(err, &usage) {
			t.Errorf("%+v: %v, want a usage error", opts, err)
		}
	}
}

func TestBenchStopsOnCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	s, _ := perftStreams()
	if err := runBench(ctx, &benchOptions{Threads: 1, HashMB: 1}, s); !errors.Is(err, context.Canceled) {
		t.Errorf("error %v, want context.Canceled", err)
	}
}

func mustBoard(t *testing.T, fen string) *board.Board {
	t.Helper()
	b, err := board.FromFEN(fen)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestBenchWithATrainedEvaluator searches the bench positions with the
// shipped NNUE instead of the heuristic, so its nodes/s can be read beside
// the heuristic's; anything but an evaluation family's weights is refused.
func TestBenchWithATrainedEvaluator(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	path, err := shipped.Path("nnue")
	if err != nil {
		t.Fatal(err)
	}
	s, out, _ := playStreams("")
	if err := runBench(context.Background(), &benchOptions{Threads: 1, Depth: 2, HashMB: 16, JSON: true, Eval: "nnue:" + path}, s); err != nil {
		t.Fatal(err)
	}
	var got search.BenchReport
	if err := json.Unmarshal(out.Bytes(), &got); err != nil || got.Evaluator != "nnue:"+path || got.Nodes == 0 || got.Signature != "" {
		t.Fatalf("bench --eval: %+v (%v)\n%s", got, err, out)
	}
	for _, bad := range []string{"heuristic", "cnn", "diffusion:" + path, "nnue:/no/such.dcw"} {
		s, _, _ := playStreams("")
		err := runBench(context.Background(), &benchOptions{Threads: 1, Depth: 2, HashMB: 16, Eval: bad}, s)
		if err == nil || !isUsageError(err) || strings.Contains(err.Error(), "\n") {
			t.Errorf("--eval %s: %v", bad, err)
		}
	}
}

// TestBenchOnThreadsNamesTheHeuristic: on several threads the heuristic is
// still the evaluator --json names; only the signature is left out.
func TestBenchOnThreadsNamesTheHeuristic(t *testing.T) {
	s, out := perftStreams()
	if err := runBench(context.Background(), &benchOptions{Threads: 2, Depth: 2, HashMB: 1, JSON: true}, s); err != nil {
		t.Fatal(err)
	}
	var got search.BenchReport
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("%v in %s", err, out)
	}
	if got.Evaluator != "heuristic" || got.Signature != "" {
		t.Errorf("bench --threads 2: evaluator %q, signature %q; want heuristic and none", got.Evaluator, got.Signature)
	}
}
