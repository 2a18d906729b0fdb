package search

import "fmt"

// BenchReport is a bench run as dchess bench reports it (its --json
// object).
type BenchReport struct {
	Evaluator string  `json:"evaluator"`
	Positions int     `json:"positions"`
	Depth     int     `json:"depth"`
	Threads   int     `json:"threads"`
	Nodes     int64   `json:"nodes"`
	Seconds   float64 `json:"seconds"`
	NPS       int64   `json:"nodes_per_second"`
	// Signature is BenchSignature of a run of the heuristic on one thread,
	// and "" for any other, whose node count signs nothing.
	Signature string `json:"signature,omitempty"`
}

// Report is r as dchess bench reports it. evaluator names the trained
// evaluator searched with (a FAMILY:PATH), "" the heuristic.
func (r BenchResult) Report(evaluator string) BenchReport {
	rep := BenchReport{Evaluator: evaluator, Positions: r.Positions, Depth: r.Depth, Threads: r.Threads, Nodes: r.Nodes,
		Seconds: r.Elapsed.Seconds(), NPS: r.NPS()}
	if evaluator == "" {
		rep.Evaluator = "heuristic"
		if r.Threads == 1 {
			rep.Signature = BenchSignature(r.Depth, r.Nodes)
		}
	}
	return rep
}

// Text is the report as dchess bench prints it, a figure a line.
func (r BenchReport) Text() string {
	return fmt.Sprintf("positions  %d\ndepth      %d\nthreads    %d\nnodes      %d\ntime       %.3fs\nnodes/s    %d\n",
		r.Positions, r.Depth, r.Threads, r.Nodes, r.Seconds, r.NPS)
}

// BenchComparison is what dchess bench --compare-search --json prints:
// CompareBench's rows and how many positions each run searched.
type BenchComparison struct {
	Positions int               `json:"positions"`
	Compare   []BenchCompareRow `json:"compare"`
}

// BenchCompareHeader heads the table of BenchCompareRow.Text lines.
var BenchCompareHeader = fmt.Sprintf("%5s %15s %10s %15s %10s %8s\n", "depth", "minimax nodes", "time", "alphabeta nodes", "time", "ratio")

// Text is the row as a line of dchess bench --compare-search's table.
func (r BenchCompareRow) Text() string {
	return fmt.Sprintf("%5d %15d %9.3fs %15d %9.3fs %8.1f\n", r.Depth, r.Minimax.Nodes, r.Minimax.Seconds,
		r.AlphaBeta.Nodes, r.AlphaBeta.Seconds, r.Ratio())
}
