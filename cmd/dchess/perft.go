package main

import (
	"context"
	"fmt"
	"os"
	"sort"
	"time"

	"github.com/dchess/dchess/search/board"
	"github.com/spf13/cobra"
)

func init() { register(newPerftCmd) }

type perftOptions struct {
	FEN      string
	Depth    int
	Divide   bool
	Suite    string
	MaxDepth int
	MaxNodes int64
	JSON     bool
}

func newPerftCmd(s *IOStreams) *cobra.Command {
	opts := &perftOptions{}
	cmd := &cobra.Command{
		Use:   "perft",
		Short: "Count move-generation leaf nodes, for one position or a whole EPD suite",
		Long: `perft counts the leaf nodes of the legal-move tree to a depth, the standard check of a
move generator. With --fen it counts one position (--divide splits the count by root
move). With --suite it checks every line of an EPD perft suite ("FEN ;D1 20 ;D2 400 ...")
at the deepest listed depth allowed by --max-depth and --max-nodes, and fails if any
count differs. Positions whose every listed count exceeds the limits are skipped.`,
		Example: `  dchess perft --depth 5
  dchess perft --fen "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1" --depth 3 --divide
  dchess perft --suite ../shared/data/perft/perftsuite.epd --max-nodes 1000000 --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runPerft(cmd.Context(), opts, s)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.FEN, "fen", "", "position to count (default: the start position)")
	f.IntVar(&opts.Depth, "depth", 0, "depth to count to (required without --suite)")
	f.BoolVar(&opts.Divide, "divide", false, "print the count below each root move")
	f.StringVar(&opts.Suite, "suite", "", "EPD perft suite to check")
	f.IntVar(&opts.MaxDepth, "max-depth", 0, "with --suite: deepest depth to check (0: no limit)")
	f.Int64Var(&opts.MaxNodes, "max-nodes", 1_000_000, "with --suite: largest expected count to check (0: no limit)")
	f.BoolVar(&opts.JSON, "json", false, "print one JSON object")
	return cmd
}

func runPerft(ctx context.Context, opts *perftOptions, s *IOStreams) error {
	if opts.Suite != "" {
		if opts.FEN != "" || opts.Depth != 0 || opts.Divide {
			return usagef("--suite checks the depths listed in the file: drop --fen, --depth and --divide")
		}
		if opts.MaxDepth < 0 || opts.MaxNodes < 0 {
			return usagef("--max-depth and --max-nodes must not be negative")
		}
		return runPerftSuite(ctx, opts, s)
	}
	if opts.Depth < 1 || opts.Depth > 12 {
		return usagef("--depth must be between 1 and 12, got %d", opts.Depth)
	}
	fen := opts.FEN
	if fen == "" {
		fen = board.StartFEN
	}
	b, err := board.FromFEN(fen)
	if err != nil {
		return usagef("%v", err)
	}
	start := time.Now()
	var nodes int64
	var divide []board.DivideEntry
	if opts.Divide {
		divide = b.Divide(opts.Depth)
		sort.Slice(divide, func(i, j int) bool { return divide[i].Move.String() < divide[j].Move.String() })
		for _, d := range divide {
			nodes += d.Nodes
		}
	} else {
		nodes = b.Perft(opts.Depth)
	}
	elapsed := time.Since(start)
	if opts.JSON {
		out := perftJSON{FEN: b.FEN(), Depth: opts.Depth, Nodes: nodes, Seconds: elapsed.Seconds(), NPS: perftPerSecond(nodes, elapsed)}
		if opts.Divide {
			out.Divide = map[string]int64{}
			for _, d := range divide {
				out.Divide[d.Move.String()] = d.Nodes
			}
		}
		return writeJSON(s.Out, out)
	}
	for _, d := range divide {
		fmt.Fprintf(s.Out, "%s: %d\n", board.UCI(d.Move), d.Nodes)
	}
	if opts.Divide {
		fmt.Fprintf(s.Out, "\nmoves: %d\n", len(divide))
	}
	fmt.Fprintf(s.Out, "perft(%d) = %d  (%.3fs, %d nodes/s)\n", opts.Depth, nodes, elapsed.Seconds(), perftPerSecond(nodes, elapsed))
	return nil
}

type perftJSON struct {
	FEN     string           `json:"fen"`
	Depth   int              `json:"depth"`
	Nodes   int64            `json:"nodes"`
	Seconds float64          `json:"seconds"`
	NPS     int64            `json:"nodes_per_second"`
	Divide  map[string]int64 `json:"divide,omitempty"`
}

type perftFailure struct {
	Line  int    `json:"line"`
	FEN   string `json:"fen"`
	Depth int    `json:"depth"`
	Got   int64  `json:"got"`
	Want  int64  `json:"want"`
	Error string `json:"error,omitempty"`
}

type perftSuiteJSON struct {
	Suite     string         `json:"suite"`
	Positions int            `json:"positions"`
	Checked   int            `json:"checked"`
	Passed    int            `json:"passed"`
	Skipped   int            `json:"skipped"`
	Failures  []perftFailure `json:"failures"`
	Nodes     int64          `json:"nodes"`
	Seconds   float64        `json:"seconds"`
	NPS       int64          `json:"nodes_per_second"`
}

// suiteDepth picks the deepest listed depth within the limits, 0 if none is.
func suiteDepth(c board.PerftCase, maxDepth int, maxNodes int64) int {
	best := 0
	for _, d := range c.Depths() {
		if (maxDepth == 0 || d <= maxDepth) && (maxNodes == 0 || c.Counts[d] <= maxNodes) {
			best = d
		}
	}
	return best
}

func runPerftSuite(ctx context.Context, opts *perftOptions, s *IOStreams) error {
	f, err := os.Open(opts.Suite)
	if err != nil {
		return err
	}
	cases, err := board.ParsePerftSuite(f)
	f.Close()
	if err != nil {
		return fmt.Errorf("%s: %w", opts.Suite, err)
	}
	res := perftSuiteJSON{Suite: opts.Suite, Positions: len(cases), Failures: []perftFailure{}}
	bar := s.Progress("perft", int64(len(cases)), "positions")
	defer bar.Finish()
	start := time.Now()
	for _, c := range cases {
		if err := ctx.Err(); err != nil {
			return err
		}
		bar.Add(1)
		d := suiteDepth(c, opts.MaxDepth, opts.MaxNodes)
		if d == 0 {
			res.Skipped++
			continue
		}
		res.Checked++
		b, err := board.FromFEN(c.FEN)
		if err != nil {
			res.Failures = append(res.Failures, perftFailure{Line: c.Line, FEN: c.FEN, Depth: d, Want: c.Counts[d], Error: err.Error()})
			continue
		}
		got := b.Perft(d)
		res.Nodes += got
		if got != c.Counts[d] {
			res.Failures = append(res.Failures, perftFailure{Line: c.Line, FEN: c.FEN, Depth: d, Got: got, Want: c.Counts[d]})
			continue
		}
		res.Passed++
	}
	elapsed := time.Since(start)
	res.Seconds, res.NPS = elapsed.Seconds(), perftPerSecond(res.Nodes, elapsed)
	if opts.JSON {
		if err := writeJSON(s.Out, res); err != nil {
			return err
		}
	} else {
		for _, fl := range res.Failures {
			if fl.Error != "" {
				fmt.Fprintf(s.Out, "FAIL line %d: %s\n", fl.Line, fl.Error)
				continue
			}
			fmt.Fprintf(s.Out, "FAIL line %d: %s perft(%d) = %d, want %d\n", fl.Line, fl.FEN, fl.Depth, fl.Got, fl.Want)
		}
		fmt.Fprintf(s.Out, "%s: %d positions, %d checked, %d passed, %d failed, %d skipped; %d nodes in %.2fs (%d nodes/s)\n",
			opts.Suite, res.Positions, res.Checked, res.Passed, len(res.Failures), res.Skipped, res.Nodes, res.Seconds, res.NPS)
	}
	if len(res.Failures) > 0 {
		return fmt.Errorf("perft: %d of %d checked positions in %s differ", len(res.Failures), res.Checked, opts.Suite)
	}
	return nil
}

func perftPerSecond(n int64, d time.Duration) int64 {
	if d <= 0 {
		return 0
	}
	return int64(float64(n) / d.Seconds())
}
