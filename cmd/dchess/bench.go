package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/dchess/dchess/internal/progress"
	"github.com/dchess/dchess/models/family"
	"github.com/dchess/dchess/search"
	"github.com/dchess/dchess/search/heuristic"
	"github.com/dchess/dchess/search/player"
)

type benchOptions struct {
	Depth         int
	HashMB        int
	CompareSearch bool
	JSON          bool
	Eval          string
	Threads       int
}

// defaultCompareDepth keeps --compare-search short: plain minimax grows
// about 35-fold per ply.
const defaultCompareDepth = 3

func newBenchCmd(s *IOStreams) *cobra.Command {
	opts := &benchOptions{}
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Search a fixed set of positions and report nodes, time and nodes/s",
		Long: fmt.Sprintf(`bench searches %d fixed positions to a fixed depth with the alpha-beta engine and the
heuristic evaluator, clearing the engine's tables before each. The total node count is a
signature of the search and evaluation code: at the default depth it must equal %d
(search.BenchNodes) unless the code changed. Nodes/s measures speed on this machine.

--compare-search searches the same positions with plain minimax and with alpha-beta at
every depth from 1 to --depth (default %d) and prints nodes and time of each. Alpha-beta's
nodes include its quiescence search; minimax stops at the depth.

--eval FAMILY:PATH searches the same positions with a trained evaluator instead of the
heuristic (ann, cnn, nnue), to compare its nodes/s with the heuristic's; the node count
is then no signature.

--threads N searches every position on N threads (Lazy SMP): nodes/s then counts the nodes
of all threads, and the node count, which depends on how the threads met in the table,
is no signature.`, len(search.BenchPositions), search.BenchNodes, defaultCompareDepth),
		Example: `  dchess bench
  dchess bench --depth 10 --json
  dchess bench --compare-search --depth 4
  dchess bench --threads 2
  dchess bench --eval nnue:runs/nnue/model.dcw --depth 8`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runBench(cmd.Context(), opts, s)
		},
	}
	f := cmd.Flags()
	f.IntVar(&opts.Depth, "depth", 0, fmt.Sprintf("search depth (default %d; %d with --compare-search)", search.BenchDepth, defaultCompareDepth))
	f.IntVar(&opts.HashMB, "hash", search.DefaultHashMB, "transposition table size in MB")
	f.BoolVar(&opts.CompareSearch, "compare-search", false, "compare plain minimax with alpha-beta at depths 1..--depth")
	f.BoolVar(&opts.JSON, "json", false, "print one JSON object")
	f.StringVar(&opts.Eval, "eval", "", "search with this trained evaluator (FAMILY:PATH) instead of the heuristic")
	f.IntVar(&opts.Threads, "threads", 1, "search threads (Lazy SMP); the node count is a signature only on 1")
	return cmd
}

func runBench(ctx context.Context, opts *benchOptions, s *IOStreams) error {
	if opts.Depth < 0 || opts.Depth > 30 {
		return usagef("--depth must be between 1 and 30, got %d", opts.Depth)
	}
	if opts.HashMB < 1 || opts.HashMB > 65536 {
		return usagef("--hash must be between 1 and 65536 MB, got %d", opts.HashMB)
	}
	if opts.Threads < 1 || opts.Threads > search.MaxThreads {
		return usagef("--threads must be between 1 and %d, got %d", search.MaxThreads, opts.Threads)
	}
	threads := opts.Threads
	eval := search.Evaluator(heuristic.New())
	if opts.Eval != "" {
		spec, err := player.ParseSpec(opts.Eval)
		if err != nil {
			return usagef("--eval: %v", err)
		}
		if eval, err = family.LoadEvaluator(spec); err != nil {
			return usagef("--eval: %v", err)
		}
		if opts.CompareSearch {
			return usagef("--compare-search runs the heuristic: drop --eval")
		}
	}
	if opts.CompareSearch && threads > 1 {
		return usagef("--compare-search runs one thread: drop --threads")
	}
	if opts.CompareSearch {
		return runBenchCompare(ctx, opts, s)
	}
	depth := opts.Depth
	if depth == 0 {
		depth = search.BenchDepth
	}
	r, err := benchRun(ctx, s, eval, search.Options{HashMB: opts.HashMB, Algorithm: search.AlphaBeta, Threads: threads}, depth)
	if err != nil {
		return err
	}
	out := r.Report(opts.Eval)
	if out.Threads < threads {
		fmt.Fprintf(s.ErrOut, "note: %d threads asked, %d searched: the evaluator cannot be cloned for more\n", threads, out.Threads)
	}
	if err := s.printReport(opts.JSON, out, out.Text); err != nil || opts.JSON {
		return err
	}
	if out.Signature != "" && out.Signature != "ok" {
		fmt.Fprintf(s.ErrOut, "note: node count %s: the search or evaluation changed\n", out.Signature)
	}
	return nil
}

func runBenchCompare(ctx context.Context, opts *benchOptions, s *IOStreams) error {
	maxDepth := opts.Depth
	if maxDepth == 0 {
		maxDepth = defaultCompareDepth
	}
	if !opts.JSON {
		fmt.Fprint(s.Out, search.BenchCompareHeader)
	}
	var bar progress.Reporter
	rows, err := search.CompareBench(ctx, func() search.Evaluator { return heuristic.New() }, opts.HashMB, maxDepth,
		func(run string, done, total int) {
			if bar == nil {
				bar = s.Progress(run, int64(total), "positions")
			}
			bar.Set(int64(done))
			if done == total {
				bar.Finish()
				bar = nil
			}
		},
		func(row search.BenchCompareRow) {
			if !opts.JSON {
				fmt.Fprint(s.Out, row.Text())
			}
		})
	if bar != nil {
		bar.Finish()
	}
	if err != nil || !opts.JSON {
		return err
	}
	return writeJSON(s.Out, search.BenchComparison{Positions: len(search.BenchPositions), Compare: rows})
}

// benchRun runs search.Bench with eval and a progress bar.
func benchRun(ctx context.Context, s *IOStreams, eval search.Evaluator, opts search.Options, depth int) (search.BenchResult, error) {
	bar := s.Progress("bench", int64(len(search.BenchPositions)), "positions")
	defer bar.Finish()
	return search.Bench(ctx, eval, opts, depth,
		func(int, search.Result) { bar.Add(1) })
}
