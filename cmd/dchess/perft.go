package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/dchess/dchess/internal/chess/board"
)

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
	inputFlags(cmd, inputFile, "suite")
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
	r, err := board.PerftFEN(opts.FEN, opts.Depth, opts.Divide)
	if err != nil {
		return usagef("%v", err)
	}
	return s.printReport(opts.JSON, r, r.Text)
}

func runPerftSuite(ctx context.Context, opts *perftOptions, s *IOStreams) error {
	bar := s.lazyProgress("perft", "positions")
	res, err := board.CheckPerftSuite(ctx, opts.Suite, opts.MaxDepth, opts.MaxNodes, func(done, total int) {
		bar.Set(int64(done), int64(total))
	})
	bar.Finish()
	if err != nil {
		return err
	}
	if err := s.printReport(opts.JSON, res, res.Text); err != nil {
		return err
	}
	return res.Err()
}
