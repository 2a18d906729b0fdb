package main

import (
	"context"
	"os"

	"github.com/spf13/cobra"

	"github.com/dchess/dchess/pipeline"
)

func newPipelineCmd(s *IOStreams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "pipeline",
		Short: "Run the whole path from self-play to a tournament report",
		Example: `  dchess pipeline run configs/quickstart.yaml
  make quickstart`,
		Args: cobra.NoArgs,
	}
	cmd.AddCommand(newPipelineRunCmd(s))
	return cmd
}

type pipelineRunOptions struct {
	Config string
	Out    string
	JSON   bool
}

func newPipelineRunCmd(s *IOStreams) *cobra.Command {
	opts := &pipelineRunOptions{}
	cmd := &cobra.Command{
		Use:   "run CONFIG.yaml",
		Short: "Self-play, ingest, label, split, train, export, learn, tournament and report",
		Long: `run makes everything from nothing but the config: self-play games → positions
(ingest) → Stockfish labels → a split by game → a trained model → its exported
weights → Deep Red's experience tree from the games, then more games it learns from →
a round-robin tournament with Elo ratings → OUT/report/report.md (ratings with error
bars, training curves, links to every PGN).

Each stage is skipped when its output is complete, so after Ctrl-C or a crash the
same command resumes; labelling and training also resume inside their stage. Delete a
stage's output to run it again. Stockfish is found through label.stockfish in the
config, then $DCHESS_STOCKFISH, PATH and /usr/games/stockfish.`,
		Example: `  dchess pipeline run configs/quickstart.yaml
  dchess pipeline run configs/quickstart.yaml --out /tmp/qs --json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Config = args[0]
			return runPipelineRun(cmd.Context(), opts, s)
		},
	}
	cmd.Flags().StringVar(&opts.Out, "out", "", "folder for everything the run makes (default: the config's out)")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the stages and the report's path as one JSON object")
	inputArgs(cmd, inputFile)
	return cmd
}

func runPipelineRun(ctx context.Context, opts *pipelineRunOptions, s *IOStreams) error {
	if opts.Config == "" {
		return usagef("pipeline run needs a config file, e.g. configs/quickstart.yaml")
	}
	cfg, err := pipeline.LoadRunConfig(opts.Config)
	if err != nil {
		return usagef("%v", err)
	}
	if opts.Out != "" {
		cfg.Out = opts.Out
	}
	ropts := pipeline.RunOptions{Command: os.Args}
	if !s.Quiet {
		ropts.Log, ropts.Progress = s.ErrOut, s.Progress
	}
	stages, err := pipeline.Run(ctx, cfg, ropts)
	if err != nil {
		return err
	}
	sum := pipeline.Summarize(cfg, stages)
	return s.printReport(opts.JSON, sum, sum.Text)
}
