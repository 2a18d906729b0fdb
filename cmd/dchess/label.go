package main

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"time"

	"github.com/spf13/cobra"

	"github.com/dchess/dchess/dataset/label"
	"github.com/dchess/dchess/internal/jobarray"
	"github.com/dchess/dchess/internal/progress"
)

type labelOptions struct {
	// Options bind the flags label.Run takes as they are.
	label.Options
	MoveTimeMs int64
	// ShardFlag is --shard as given: i/n or auto/n.
	ShardFlag string
	JSON      bool
}

func newLabelCmd(s *IOStreams) *cobra.Command {
	opts := &labelOptions{}
	cmd := &cobra.Command{
		Use:   "label --stockfish PATH -i DATASET -o DATASET [--depth D | --nodes N | --movetime MS]",
		Short: "Score every position of a dataset with Stockfish",
		Long: `label runs several single-threaded Stockfish processes over a dataset and writes a copy
whose records carry the score (centipawns or mate, side to move), win probability, best move,
principal variation, depth and node count. Give at most one limit; the default is --depth 8.
With --nodes the labels are the same on every run.

Progress is journalled in OUTPUT.partial: after Ctrl-C, a kill or a crash, the same command
continues where it stopped. The output dataset appears only when every position is labelled.
An engine that crashes or hangs is restarted; a position that fails 3 times is stored with a
failed label. An illegal best or PV move, or a shallower depth than asked, is a failure too.
When more than --max-failures positions fail, no output is written and the command exits 1
(the journal keeps the labels: rerun with a higher limit to write them).

With --shard i/n the command is task i of a job array of n: it labels the positions whose
key hashes to it (copies of a position meet in one task) and writes NAME-000i-of-000n
for -o NAME, with the settings, input hash, engine and bench signature in its manifest.
--shard auto/n takes i from JOB_COMPLETION_INDEX (Kubernetes), SLURM_ARRAY_TASK_ID,
AWS_BATCH_JOB_ARRAY_INDEX or BATCH_TASK_INDEX. A finished task is skipped when run again;
"dchess dataset merge NAME -o OUT" joins the tasks in the input's order.`,
		Example: `  dchess label --stockfish /usr/games/stockfish -i data/games -o data/labelled --depth 8
  dchess label --stockfish /usr/games/stockfish -i data/games -o data/labelled --nodes 20000 --workers 2 --pv 12
  dchess label --stockfish /usr/games/stockfish -i data/games -o data/multipv --depth 10 --multipv 3 --json
  dchess label --stockfish /usr/games/stockfish -i data/games -o data/labelled --max-failures 20
  dchess label --stockfish /usr/games/stockfish -i data/games -o data/labelled --nodes 20000 --workers 1 --shard auto/64`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.Command = os.Args
			return runLabel(cmd.Context(), opts, s)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Stockfish, "stockfish", "", "path of the Stockfish binary (Debian: /usr/games/stockfish)")
	f.StringVarP(&opts.Input, "input", "i", "", "dataset to label")
	f.StringVarP(&opts.Output, "output", "o", "", "dataset to write")
	f.BoolVar(&opts.Force, "force", false, "replace the output dataset if it exists")
	f.IntVar(&opts.Depth, "depth", 0, fmt.Sprintf("search depth (default %d when no limit is given)", label.DefaultDepth))
	f.Int64Var(&opts.Nodes, "nodes", 0, "nodes per position (reproducible labels)")
	f.Int64Var(&opts.MoveTimeMs, "movetime", 0, "milliseconds per position")
	f.IntVar(&opts.Workers, "workers", runtime.NumCPU(), "Stockfish processes, each with one thread")
	// --help (and the reference made from it) says "one per CPU", not this machine's count.
	f.Lookup("workers").DefValue = "one per CPU"
	f.IntVar(&opts.Hash, "hash", 16, "hash table of each process in MB, cleared for every position (1 labels faster at depth 8: docs/results/2026-11-28-label-hash-size.md)")
	f.IntVar(&opts.PV, "pv", 8, "keep the principal variation up to this many moves (0: none)")
	f.IntVar(&opts.MultiPV, "multipv", 1, "also store the engine's lines 2..K")
	f.DurationVar(&opts.Timeout, "timeout", 0, "restart an engine that takes longer than this on one position (default: derived from the limit)")
	f.StringVar(&opts.ShardFlag, "shard", "", "label task i of n of a job array (i/n, or auto/n from the batch system's task index) into -o NAME-000i-of-000n")
	f.StringVar(&opts.MaxFailures, "max-failures", label.DefaultMaxFailures, "fail without output when more positions fail than this count, or percentage (5%)")
	f.BoolVar(&opts.JSON, "json", false, "print the summary as one JSON object")
	inputFlags(cmd, inputDataset, "input")
	return cmd
}

func runLabel(ctx context.Context, opts *labelOptions, s *IOStreams) error {
	lopts := opts.Options
	lopts.MoveTime = time.Duration(opts.MoveTimeMs) * time.Millisecond
	if err := lopts.Check(); err != nil {
		return usagef("%v", err)
	}
	if opts.ShardFlag != "" {
		var err error
		if lopts.Shard, err = jobarray.Parse(opts.ShardFlag, nil); err != nil {
			return usagef("--shard: %v", err)
		}
		lopts.Output = jobarray.Name(opts.Output, lopts.Shard)
	}

	var bar progress.Reporter
	onProgress := func(p label.Progress) {
		if bar == nil {
			bar = s.Progress("label", p.Total-p.Resumed, "pos")
			if p.Resumed > 0 {
				s.Infof("resuming: %d of %d positions were labelled before\n", p.Resumed, p.Total)
			}
		}
		bar.Describe(fmt.Sprintf("labelling (%d failed)", p.Failed))
		bar.Set(p.Done - p.Resumed)
	}
	sum, err := label.Run(ctx, lopts, onProgress)
	if bar != nil {
		progress.End(bar, err)
	}
	if err != nil {
		return err
	}
	return s.printReport(opts.JSON, sum, sum.Text)
}
