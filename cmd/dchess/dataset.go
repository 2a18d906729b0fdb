package main

import (
	"context"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/dchess/dchess/dataset"
)

func newDatasetCmd(s *IOStreams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "dataset",
		Short: "Inspect, split, export and verify datasets",
		Long: `A dataset is a folder with a manifest.json and binary shards of records, written by
dchess ingest and dchess label. These commands read it, split it by game, export it
to JSON lines or CSV, and check it for damage. The format is in docs/dataset-format.md.`,
		Example: `  dchess dataset info data/games
  dchess dataset split data/labelled --val 0.05 --test 0.05 --seed 1
  dchess dataset export data/labelled --format csv --split test -o test.csv
  dchess dataset verify data/labelled
  dchess dataset merge data/labelled -o data/labelled-all`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return usagef("dataset needs a subcommand: info, split, export, verify or merge (see dchess dataset --help)")
		},
	}
	cmd.AddCommand(newDatasetInfoCmd(s), newDatasetSplitCmd(s), newDatasetExportCmd(s), newDatasetVerifyCmd(s), newDatasetMergeCmd(s))
	return cmd
}

// datasetArg checks that a dataset command got exactly one folder.
func datasetArg(cmd *cobra.Command, args []string) error {
	if len(args) != 1 {
		return usagef("%s needs exactly one DATASET folder, got %d arguments", cmd.CommandPath(), len(args))
	}
	return nil
}

// ---- info ----

type datasetInfoOptions struct {
	Dir        string
	JSON       bool
	CountQuiet bool
}

func newDatasetInfoCmd(s *IOStreams) *cobra.Command {
	opts := &datasetInfoOptions{}
	cmd := &cobra.Command{
		Use:   "info DATASET",
		Short: "Show a dataset's counts, splits, label coverage, score histogram and sources",
		Example: `  dchess dataset info data/labelled
  dchess dataset info data/labelled --json | jq .splits
  dchess dataset info data/labelled --count-quiet`,
		Args: datasetArg,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Dir = args[0]
			return runDatasetInfo(cmd.Context(), opts, s)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print one JSON object (its fields: docs/reference/json.md)")
	cmd.Flags().BoolVar(&opts.CountQuiet, "count-quiet", false, "read every record and count the quiet labelled positions (not in check, the best move not a capture), by split")
	inputArgs(cmd, inputDataset)
	return cmd
}

func runDatasetInfo(ctx context.Context, opts *datasetInfoOptions, s *IOStreams) error {
	d, err := dataset.Open(opts.Dir)
	if err != nil {
		return err
	}
	// Counts that cannot be true are refused, not printed as if they were.
	if err := d.CheckCounts(); err != nil {
		return err
	}
	info := dataset.Describe(d)
	if opts.CountQuiet {
		if info.Quiet, err = dataset.CountQuiet(ctx, d); err != nil {
			return err
		}
	}
	return s.printReport(opts.JSON, info, info.Text)
}

// ---- split ----

type datasetSplitOptions struct {
	Dir  string
	Val  float64
	Test float64
	Seed uint64
	JSON bool
}

func newDatasetSplitCmd(s *IOStreams) *cobra.Command {
	opts := &datasetSplitOptions{}
	cmd := &cobra.Command{
		Use:   "split DATASET",
		Short: "Split a dataset by game into train, val and test",
		Long: `split assigns every game (never single positions) to train, val or test by hashing
its game ID with the seed, and records the split and its counts in the manifest.
Records are not moved, so splitting again with other fractions or another seed is cheap.`,
		Example: `  dchess dataset split data/labelled --val 0.05 --test 0.05 --seed 1
  dchess dataset split data/labelled --val 0 --test 0   # undo: everything train`,
		Args: datasetArg,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Dir = args[0]
			return runDatasetSplit(cmd.Context(), opts, s)
		},
	}
	cmd.Flags().Float64Var(&opts.Val, "val", 0.05, "fraction of games for validation")
	cmd.Flags().Float64Var(&opts.Test, "test", 0.05, "fraction of games for test")
	cmd.Flags().Uint64Var(&opts.Seed, "seed", 1, "seed of the game hash that assigns splits")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the split counts as JSON")
	inputArgs(cmd, inputDataset)
	return cmd
}

func runDatasetSplit(ctx context.Context, opts *datasetSplitOptions, s *IOStreams) error {
	if err := dataset.CheckSplitFractions(opts.Val, opts.Test); err != nil {
		return usagef("%v", err)
	}
	m, err := dataset.WriteSplitContext(ctx, opts.Dir, opts.Val, opts.Test, opts.Seed)
	if err != nil {
		return err
	}
	rep := m.Split.Report(opts.Dir)
	return s.printReport(opts.JSON, rep, rep.Text)
}

// ---- export ----

type datasetExportOptions struct {
	// ExportOptions bind the flags dataset.Export takes as they are.
	dataset.ExportOptions
	Dir string
	// SplitName is --split as given: train, val, test or all.
	SplitName string
}

func newDatasetExportCmd(s *IOStreams) *cobra.Command {
	opts := &datasetExportOptions{}
	cmd := &cobra.Command{
		Use:   "export DATASET",
		Short: "Write a dataset's records as JSON lines, CSV or NNUE training data",
		Long: `export writes records in stored order. jsonl gives one object per record with every
field, the label included (null when unlabelled); csv gives the columns
fen,move,result,ply,cp,mate,win_prob,best_move,pv,quiet (pv moves separated by spaces,
label columns empty when unlabelled). quiet is 1 when the side to move is not in check
and the best move is not a capture.

plain and binpack are Stockfish's training-data formats (text and compressed, read by
nnue-pytorch and Stockfish's tools), bullet is bullet's text "FEN | score | wdl". They
hold labelled positions only: scores in centipawns, mates as +-32000, from the side to
move (plain, binpack) or White (bullet); the game result as 1/0/-1 for the side to move
(plain, binpack) or 1.0/0.5/0.0 for White (bullet), a record with no result written as a
draw unless --skip-unknown-result. plain and binpack store the label's best move.
--quiet-only keeps the quiet positions, in any format. With -o the file appears only
when complete.`,
		Example: `  dchess dataset export data/labelled > all.jsonl
  dchess dataset export data/labelled --format csv --split test -o test.csv
  dchess dataset export data/labelled --format csv -o all.csv --force
  dchess dataset export data/labelled --format binpack --quiet-only --split train -o train.binpack`,
		Args: datasetArg,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Dir = args[0]
			return runDatasetExport(cmd.Context(), opts, s)
		},
	}
	cmd.Flags().StringVar(&opts.Format, "format", "jsonl", "output format: jsonl, csv, plain, binpack or bullet")
	cmd.Flags().BoolVar(&opts.QuietOnly, "quiet-only", false, "write only quiet labelled positions (not in check, best move not a capture)")
	cmd.Flags().BoolVar(&opts.SkipUnknownResult, "skip-unknown-result", false, "plain, binpack, bullet: leave out records with no game result instead of writing them as draws")
	cmd.Flags().StringVarP(&opts.Output, "output", "o", "-", "output file (- for standard output)")
	cmd.Flags().StringVar(&opts.SplitName, "split", "all", "records of one split only: train, val, test or all")
	cmd.Flags().BoolVar(&opts.Force, "force", false, "replace the -o file if it exists")
	inputArgs(cmd, inputDataset)
	return cmd
}

func runDatasetExport(ctx context.Context, opts *datasetExportOptions, s *IOStreams) error {
	if !slices.Contains(dataset.ExportFormats, opts.Format) {
		return usagef("--format %q: want %s", opts.Format, strings.Join(dataset.ExportFormats, ", "))
	}
	eopts := opts.ExportOptions
	var err error
	if eopts.Split, err = dataset.ParseSplit(opts.SplitName); err != nil {
		return usagef("--split: %v", err)
	}
	d, err := dataset.Open(opts.Dir)
	if err != nil {
		return err
	}
	bar := s.lazyProgress("export", "records")
	var st dataset.ExportStats
	eopts.Stdout, eopts.Stats, eopts.Progress = s.Out, &st, bar.Set
	count, err := dataset.Export(ctx, d, eopts)
	bar.Finish()
	if err != nil {
		return err
	}
	for _, note := range st.Notes(eopts, count) {
		s.Infof("%s\n", note)
	}
	return nil
}

// ---- verify ----

type datasetVerifyOptions struct {
	Dir  string
	JSON bool
}

func newDatasetVerifyCmd(s *IOStreams) *cobra.Command {
	opts := &datasetVerifyOptions{}
	cmd := &cobra.Command{
		Use:   "verify DATASET",
		Short: "Check every shard's size, SHA-256 and record checksums",
		Long: `verify reads every shard in full and checks it against the manifest. It exits
non-zero naming each damaged shard file.`,
		Example: `  dchess dataset verify data/labelled
  dchess dataset verify data/labelled --json`,
		Args: datasetArg,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Dir = args[0]
			return runDatasetVerify(cmd.Context(), opts, s)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the result as JSON (the exit status still says damaged)")
	inputArgs(cmd, inputDataset)
	return cmd
}

func runDatasetVerify(ctx context.Context, opts *datasetVerifyOptions, s *IOStreams) error {
	d, err := dataset.Open(opts.Dir)
	if err != nil {
		return err
	}
	bar := s.Progress("verify", int64(len(d.Manifest().Shards)), "shards")
	r, err := dataset.Verify(ctx, d, func(done, _ int64) { bar.Set(done) })
	bar.Finish()
	if err != nil {
		return err
	}
	if err := s.printReport(opts.JSON, r, r.Text); err != nil {
		return err
	}
	return r.Err()
}

// ---- merge ----

type datasetMergeOptions struct {
	// MergeOptions bind the flags dataset.MergeShards takes as they are.
	dataset.MergeOptions
	JSON bool
}

func newDatasetMergeCmd(s *IOStreams) *cobra.Command {
	opts := &datasetMergeOptions{}
	cmd := &cobra.Command{
		Use:   "merge NAME -o DATASET",
		Short: "Join the task shards of a sharded label or datagen run (NAME-0000-of-0064 ...) into one dataset",
		Long: `merge joins the datasets that "dchess label --shard i/n -o NAME" wrote, NAME-IIII-of-NNNN,
into one. Every task must be there and come from the same job: same settings hash, input,
engine and bench signature; otherwise merge writes nothing and names the missing or
mismatched shard. It reads the input dataset again to put the records back in its order,
so the result is what one unsharded run writes; --input gives it if it has moved.

The tasks of "dchess datagen --shard i/n -o NAME" have no input: their records are joined in
task order and deduplicated (the first one kept), the positions one unsharded run writes.`,
		Example: `  dchess dataset merge data/labelled -o data/labelled-all
  dchess dataset merge /shared/labels -o /shared/labels-all --input /shared/games --json
  dchess dataset merge data/labelled -o data/labelled-all --force
  dchess dataset merge /shared/gen -o data/gen`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usagef("dataset merge needs exactly one NAME (the -o the tasks were given), got %d arguments", len(args))
			}
			opts.Base = args[0]
			opts.Command = os.Args
			return runDatasetMerge(cmd.Context(), opts, s)
		},
	}
	cmd.Flags().StringVarP(&opts.Output, "output", "o", "", "merged dataset to write")
	cmd.Flags().StringVar(&opts.Input, "input", "", "the dataset the shards were labelled from (default: the path they recorded)")
	cmd.Flags().BoolVar(&opts.Force, "force", false, "replace the output dataset if it exists")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the summary as one JSON object")
	inputArgs(cmd, inputShards)
	inputFlags(cmd, inputDataset, "input")
	return cmd
}

func runDatasetMerge(ctx context.Context, opts *datasetMergeOptions, s *IOStreams) error {
	if opts.Output == "" {
		return usagef("dataset merge needs an output dataset (-o)")
	}
	bar := s.lazyProgress("merge", "records")
	mopts := opts.MergeOptions
	mopts.Progress = bar.Set
	sum, err := dataset.MergeShards(ctx, mopts)
	bar.Finish()
	if err != nil {
		return err
	}
	return s.printReport(opts.JSON, sum, func() string { return sum.Text(opts.Base) })
}
