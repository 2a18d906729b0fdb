package main

import (
	"context"

	"github.com/dchess/dchess/internal/safefile"
	"github.com/dchess/dchess/pipeline/train"

	"github.com/spf13/cobra"
)

type exportOptions struct {
	RunDir string
	Output string
	Last   bool
	Force  bool
	JSON   bool
}

func newExportCmd(s *IOStreams) *cobra.Command {
	opts := &exportOptions{}
	cmd := &cobra.Command{
		Use:   "export RUNDIR",
		Short: "Write model.dcw from a training run's newest checkpoint",
		Long: `export writes the weights of a run's newest checkpoint as a model.dcw file that players
load (cnn:PATH, ann:PATH). It takes the best validated weights (an epoch's, or those where
max_steps stopped the run), or with --last the latest weights. Useful after an interrupted run, or to copy weights elsewhere.`,
		Example: `  dchess export runs/cnn-20250101-120000
  dchess export runs/ann-wide -o weights/ann-wide.dcw --last
  dchess export runs/ann-wide -o weights/ann-wide.dcw --force   # replace it`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.RunDir = args[0]
			return runExport(cmd.Context(), opts, s)
		},
	}
	cmd.Flags().StringVarP(&opts.Output, "output", "o", "", "output file (default RUNDIR/model.dcw)")
	cmd.Flags().BoolVar(&opts.Last, "last", false, "export the latest weights instead of the best validated ones")
	cmd.Flags().BoolVar(&opts.Force, "force", false, "replace the -o file if it exists (RUNDIR/model.dcw, the run's own, is always replaced)")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the written path as JSON")
	inputArgs(cmd, inputRun)
	return cmd
}

func runExport(_ context.Context, opts *exportOptions, s *IOStreams) error {
	if opts.RunDir == "" {
		return usagef("a run folder is required")
	}
	if opts.Output != "" {
		if err := safefile.CheckOutputFile(opts.Output, opts.Force); err != nil {
			return err
		}
	}
	path, err := train.Export(opts.RunDir, opts.Output, opts.Last)
	if err != nil {
		return err
	}
	return s.printReport(opts.JSON, map[string]string{"model": path}, func() string { return "wrote " + path + "\n" })
}
