package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/dchess/dchess/internal/safefile"
	"github.com/dchess/dchess/pipeline/plot"

	"github.com/spf13/cobra"
)

type plotOptions struct {
	RunDirs []string
	Metric  string
	Output  string
	Force   bool
	JSON    bool
}

func newPlotCmd(s *IOStreams) *cobra.Command {
	opts := &plotOptions{}
	cmd := &cobra.Command{
		Use:   "plot RUNDIR...",
		Short: "Draw one metric of several training runs in one picture",
		Long: `plot reads each run's metrics.jsonl and draws one of its figures against the optimizer
step, one line a run named by its folder, into a PNG: runs trained side by side compared in one
picture (each run's own loss.png shows its losses alone). It prints each run's last point.

Metrics: ` + strings.Join(plot.CurveMetricNames(), ", ") + `. The validation figures are
measured once an epoch; loss and grad_norm are the step lines' (docs/training.md).`,
		Example: `  dchess plot runs/policy runs/diffusion runs/flow --metric val_action_accuracy -o curves.png
  dchess plot runs/cnn runs/cnn-wide --metric val_loss -o cnn.png --force   # replace cnn.png`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.RunDirs = args
			return runPlot(cmd.Context(), opts, s)
		},
	}
	cmd.Flags().StringVar(&opts.Metric, "metric", "val_loss", "the figure to draw")
	cmd.Flags().StringVarP(&opts.Output, "output", "o", "curves.png", "the PNG to write")
	cmd.Flags().BoolVar(&opts.Force, "force", false, "replace the -o file if it exists")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "also print every run's points as JSON")
	inputArgs(cmd, inputRun)
	return cmd
}

func runPlot(_ context.Context, opts *plotOptions, s *IOStreams) error {
	if len(opts.RunDirs) == 0 {
		return usagef("at least one run folder is required")
	}
	if err := safefile.CheckOutputFile(opts.Output, opts.Force); err != nil {
		return err
	}
	curves, err := plot.RunCurves(opts.RunDirs, opts.Metric)
	if unknown := (*plot.UnknownMetricError)(nil); errors.As(err, &unknown) {
		return usagef("%v", err)
	}
	if err != nil {
		return err
	}
	if err := plot.Curves(curves, opts.Metric, opts.Output); err != nil {
		return err
	}
	if opts.JSON {
		return json.NewEncoder(s.Out).Encode(map[string]any{"metric": opts.Metric, "plot": opts.Output, "runs": curves})
	}
	fmt.Fprint(s.Out, plot.CurvesText(curves, opts.Metric, opts.Output))
	return nil
}
