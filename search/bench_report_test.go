package search_test

import (
	"testing"
	"time"

	"github.com/dchess/dchess/search"
)

// TestBenchReport: only the heuristic on one thread at the bench depth
// signs the code; a trained evaluator is named by its SPEC.
func TestBenchReport(t *testing.T) {
	r := search.BenchResult{Positions: 50, Depth: search.BenchDepth, Threads: 1, Nodes: search.BenchNodes, Elapsed: 2 * time.Second}
	rep := r.Report("")
	if rep.Evaluator != "heuristic" || rep.Signature != "ok" || rep.NPS != search.BenchNodes/2 || rep.Seconds != 2 {
		t.Errorf("heuristic, one thread: %+v", rep)
	}
	want := "positions  50\ndepth      10\nthreads    1\nnodes      2214358\ntime       2.000s\nnodes/s    1107179\n"
	if got := rep.Text(); got != want {
		t.Errorf("text %q, want %q", got, want)
	}
	r.Threads = 2
	if rep := r.Report(""); rep.Evaluator != "heuristic" || rep.Signature != "" {
		t.Errorf("heuristic, two threads: %+v", rep)
	}
	r.Threads = 1
	if rep := r.Report("nnue:w.dcw"); rep.Evaluator != "nnue:w.dcw" || rep.Signature != "" {
		t.Errorf("a trained evaluator: %+v", rep)
	}
}

func TestBenchCompareText(t *testing.T) {
	row := search.BenchCompareRow{Depth: 2, Minimax: search.BenchTotal{Nodes: 3000, Seconds: 0.5}, AlphaBeta: search.BenchTotal{Nodes: 1000, Seconds: 0.25}}
	if got, want := search.BenchCompareHeader+row.Text(),
		"depth   minimax nodes       time alphabeta nodes       time    ratio\n"+
			"    2            3000     0.500s            1000     0.250s      3.0\n"; got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
