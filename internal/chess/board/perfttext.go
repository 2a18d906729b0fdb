package board

import (
	"fmt"
	"strings"
)

// Text is the report as dchess perft prints it: each root move's count
// when divided, then the total with its time and speed.
func (r PerftReport) Text() string {
	var w strings.Builder
	for _, d := range r.DivideOrder {
		fmt.Fprintf(&w, "%s: %d\n", UCI(d.Move), d.Nodes)
	}
	if r.Divide != nil {
		fmt.Fprintf(&w, "\nmoves: %d\n", len(r.DivideOrder))
	}
	fmt.Fprintf(&w, "perft(%d) = %d  (%.3fs, %d nodes/s)\n", r.Depth, r.Nodes, r.Seconds, r.NPS)
	return w.String()
}

// Text is the report as dchess perft --suite prints it: a line for each
// position that failed, then the totals.
func (r PerftSuiteReport) Text() string {
	var w strings.Builder
	for _, fl := range r.Failures {
		if fl.Error != "" {
			fmt.Fprintf(&w, "FAIL line %d: %s\n", fl.Line, fl.Error)
			continue
		}
		fmt.Fprintf(&w, "FAIL line %d: %s perft(%d) = %d, want %d\n", fl.Line, fl.FEN, fl.Depth, fl.Got, fl.Want)
	}
	fmt.Fprintf(&w, "%s: %d positions, %d checked, %d passed, %d failed, %d skipped; %d nodes in %.2fs (%d nodes/s)\n",
		r.Suite, r.Positions, r.Checked, r.Passed, len(r.Failures), r.Skipped, r.Nodes, r.Seconds, r.NPS)
	return w.String()
}
