package main

import (
	"context"
	"errors"
	"strings"

	"github.com/dchess/dchess/internal/safefile"
	"github.com/dchess/dchess/pipeline/plot"

	"github.com/spf13/cobra"
)

type plotOptions struct {
	RunDirs []string
	Metric  string
	X       string
	LogX    bool
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
step, the examples trained on or the estimated training FLOPs (--x), one line a run named by
its folder, into a PNG: runs trained side by side compared in one picture (each run's own
loss.png shows its losses alone), at equal steps, data or compute. It prints each run's last
point and where two curves cross (ringed in the picture; not for loss and grad_norm, whose
batch-to-batch noise crosses all the time).

Metrics: ` + strings.Join(plot.CurveMetricNames(), ", ") + `. The validation figures are
measured once an epoch; loss and grad_norm are the step lines' (docs/training.md). Any other
metric is a field of the run's ` + plot.ScoresFile + `, where a study writes the scores of the
run's weights at several steps (one JSON object a line with its "step"), named by its path:
test.action_accuracy is the field action_accuracy of the line's object test. Its steps are
placed on --x samples or flops by the metrics line at the same step.`,
		Example: `  dchess plot runs/policy runs/diffusion runs/flow --metric val_action_accuracy -o curves.png
  dchess plot runs/policy runs/diffusion --metric val_action_accuracy --x flops -o compute.png
  dchess plot runs/policy runs/diffusion --metric test.action_accuracy --x samples --log-x -o test.png
  dchess plot runs/cnn runs/cnn-wide --metric val_loss -o cnn.png --force   # replace cnn.png`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.RunDirs = args
			return runPlot(cmd.Context(), opts, s)
		},
	}
	cmd.Flags().StringVar(&opts.Metric, "metric", "val_loss", "the figure to draw")
	cmd.Flags().StringVar(&opts.X, "x", string(plot.AxisStep), "what to draw it against: "+strings.Join(plot.AxisNames(), ", "))
	cmd.Flags().BoolVar(&opts.LogX, "log-x", false, "draw the x axis on a logarithmic scale (steps that double evenly spaced)")
	cmd.Flags().StringVarP(&opts.Output, "output", "o", "curves.png", "the PNG to write")
	cmd.Flags().BoolVar(&opts.Force, "force", false, "replace the -o file if it exists")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "also print every run's points and the crossings as JSON")
	inputArgs(cmd, inputRun)
	return cmd
}

func runPlot(_ context.Context, opts *plotOptions, s *IOStreams) error {
	if len(opts.RunDirs) == 0 {
		return usagef("at least one run folder is required")
	}
	axis, err := plot.ParseAxis(opts.X)
	if err != nil {
		return usagef("--x: %v", err)
	}
	if err := safefile.CheckOutputFile(opts.Output, opts.Force); err != nil {
		return err
	}
	cmp, err := plot.Compare(opts.RunDirs, plot.Figure{Metric: opts.Metric, Axis: axis, LogX: opts.LogX, Path: opts.Output})
	if errors.Is(err, plot.ErrUnknownMetric) {
		return usagef("%v", err)
	}
	if err != nil {
		return err
	}
	return s.printReport(opts.JSON, cmp, cmp.Text)
}
