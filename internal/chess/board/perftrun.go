package board

import (
	"context"
	"fmt"
	"os"
	"sort"
	"time"
)

// PerftReport is one position's perft count (`dchess perft`, its --json).
type PerftReport struct {
	FEN     string  `json:"fen"`
	Depth   int     `json:"depth"`
	Nodes   int64   `json:"nodes"`
	Seconds float64 `json:"seconds"`
	NPS     int64   `json:"nodes_per_second"`
	// Divide gives each root move's count, when asked; DivideOrder lists
	// the moves in UCI order.
	Divide      map[string]int64 `json:"divide,omitempty"`
	DivideOrder []DivideEntry    `json:"-"`
}

// PerftFEN counts the leaf nodes depth plies below fen (the start position
// when ""), split by root move when divide.
func PerftFEN(fen string, depth int, divide bool) (PerftReport, error) {
	if fen == "" {
		fen = StartFEN
	}
	b, err := FromFEN(fen)
	if err != nil {
		return PerftReport{}, err
	}
	r := PerftReport{FEN: b.FEN(), Depth: depth}
	start := time.Now()
	if divide {
		r.DivideOrder = b.Divide(depth)
		sort.Slice(r.DivideOrder, func(i, j int) bool { return r.DivideOrder[i].Move.String() < r.DivideOrder[j].Move.String() })
		r.Divide = map[string]int64{}
		for _, d := range r.DivideOrder {
			r.Nodes += d.Nodes
			r.Divide[d.Move.String()] = d.Nodes
		}
	} else {
		r.Nodes = b.Perft(depth)
	}
	elapsed := time.Since(start)
	r.Seconds, r.NPS = elapsed.Seconds(), perSecond(r.Nodes, elapsed)
	return r, nil
}

// PerftFailure is a suite position whose count differs from the file's,
// or whose FEN does not parse (Error).
type PerftFailure struct {
	Line  int    `json:"line"`
	FEN   string `json:"fen"`
	Depth int    `json:"depth"`
	Got   int64  `json:"got"`
	Want  int64  `json:"want"`
	Error string `json:"error,omitempty"`
}

// PerftSuiteReport is what CheckPerftSuite found (`dchess perft --suite`).
type PerftSuiteReport struct {
	Suite     string         `json:"suite"`
	Positions int            `json:"positions"`
	Checked   int            `json:"checked"`
	Passed    int            `json:"passed"`
	Skipped   int            `json:"skipped"`
	Failures  []PerftFailure `json:"failures"`
	Nodes     int64          `json:"nodes"`
	Seconds   float64        `json:"seconds"`
	NPS       int64          `json:"nodes_per_second"`
}

// Err is nil when every checked position counted right.
func (r PerftSuiteReport) Err() error {
	if len(r.Failures) > 0 {
		return fmt.Errorf("perft: %d of %d checked positions in %s differ", len(r.Failures), r.Checked, r.Suite)
	}
	return nil
}

// CheckPerftSuite counts every position of the EPD perft suite at path at
// its deepest listed depth within maxDepth plies and maxNodes nodes (0: no
// limit), skipping positions with no such depth. progress, if not nil,
// hears each position as it starts (its number from 1, of the total). Its error is for a file it cannot
// read or an interruption; wrong counts are in the report.
func CheckPerftSuite(ctx context.Context, path string, maxDepth int, maxNodes int64, progress func(done, total int)) (PerftSuiteReport, error) {
	f, err := os.Open(path)
	if err != nil {
		return PerftSuiteReport{}, err
	}
	cases, err := ParsePerftSuite(f)
	f.Close()
	if err != nil {
		return PerftSuiteReport{}, fmt.Errorf("%s: %w", path, err)
	}
	res := PerftSuiteReport{Suite: path, Positions: len(cases), Failures: []PerftFailure{}}
	start := time.Now()
	for i, c := range cases {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		if progress != nil {
			progress(i+1, len(cases))
		}
		d := suiteDepth(c, maxDepth, maxNodes)
		if d == 0 {
			res.Skipped++
			continue
		}
		res.Checked++
		b, err := FromFEN(c.FEN)
		if err != nil {
			res.Failures = append(res.Failures, PerftFailure{Line: c.Line, FEN: c.FEN, Depth: d, Want: c.Counts[d], Error: err.Error()})
			continue
		}
		got := b.Perft(d)
		res.Nodes += got
		if got != c.Counts[d] {
			res.Failures = append(res.Failures, PerftFailure{Line: c.Line, FEN: c.FEN, Depth: d, Got: got, Want: c.Counts[d]})
			continue
		}
		res.Passed++
	}
	elapsed := time.Since(start)
	res.Seconds, res.NPS = elapsed.Seconds(), perSecond(res.Nodes, elapsed)
	return res, nil
}

// suiteDepth picks the deepest listed depth within the limits, 0 if none is.
func suiteDepth(c PerftCase, maxDepth int, maxNodes int64) int {
	best := 0
	for _, d := range c.Depths() {
		if (maxDepth == 0 || d <= maxDepth) && (maxNodes == 0 || c.Counts[d] <= maxNodes) {
			best = d
		}
	}
	return best
}

func perSecond(n int64, d time.Duration) int64 {
	if d <= 0 {
		return 0
	}
	return int64(float64(n) / d.Seconds())
}
