// Package plot draws a training run's curves with gonum/plot: the loss
// curve the loop's epoch hook redraws (DrawLoss) and the curves `dchess
// plot` compares across runs. It sits beside the loop, not in it, so a
// binary that trains need not link gonum/plot.
package plot

import (
	"fmt"
	"image/color"
	"path/filepath"
	"sort"
	"strings"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/dchess/dchess/internal/safefile"
	"github.com/dchess/dchess/pipeline/train"
)

// LossFile is a run's loss curve.
const LossFile = "loss.png"

// DrawLoss draws loss.png (LossFile) into runDir from a run's metrics; it
// is the train.EpochHook that cmd/dchess train and pipeline run give the
// loop.
func DrawLoss(runDir string, metrics []train.Metric, lossName string) error {
	return Loss(metrics, lossName, filepath.Join(runDir, LossFile))
}

// Loss draws the step losses (light), the epoch training loss and the
// epoch validation loss against the step into a PNG at path.
func Loss(metrics []train.Metric, lossName, path string) error {
	var steps, trainEpoch, valEpoch plotter.XYs
	for _, m := range metrics {
		switch m.Kind {
		case "step":
			steps = append(steps, plotter.XY{X: float64(m.Step), Y: m.Loss})
		case "epoch":
			trainEpoch = append(trainEpoch, plotter.XY{X: float64(m.Step), Y: m.TrainLoss})
			if m.ValLoss != nil {
				valEpoch = append(valEpoch, plotter.XY{X: float64(m.Step), Y: *m.ValLoss})
			}
		}
	}
	p := gplot.New()
	p.Title.Text = "Training loss"
	p.X.Label.Text = "step"
	p.Y.Label.Text = lossName
	p.Add(plotter.NewGrid())
	add := func(xys plotter.XYs, name string, c color.Color, width vg.Length, points bool) error {
		if len(xys) == 0 {
			return nil
		}
		line, err := plotter.NewLine(xys)
		if err != nil {
			return err
		}
		line.Color, line.Width = c, width
		p.Add(line)
		p.Legend.Add(name, line)
		if points {
			sc, err := plotter.NewScatter(xys)
			if err != nil {
				return err
			}
			sc.Color = c
			p.Add(sc)
		}
		return nil
	}
	if err := add(steps, "train (step)", color.RGBA{R: 150, G: 180, B: 230, A: 255}, vg.Points(0.7), false); err != nil {
		return err
	}
	if err := add(trainEpoch, "train (epoch)", color.RGBA{B: 200, A: 255}, vg.Points(2), true); err != nil {
		return err
	}
	if err := add(valEpoch, "validation", color.RGBA{R: 220, G: 80, A: 255}, vg.Points(2), true); err != nil {
		return err
	}
	return save(p, path)
}

// curveMetric reads one figure from a metrics line; ok is false when the
// line does not carry it.
type curveMetric struct {
	perStep bool // read from "step" lines; otherwise from "epoch" and "partial" lines
	get     func(train.Metric) (float64, bool)
}

func optional(v *float64) (float64, bool) {
	if v == nil {
		return 0, false
	}
	return *v, true
}

func nonZero(v float64) (float64, bool) { return v, v != 0 }

// curveMetrics are the figures Curves draws, by their metrics.jsonl
// names. The validation figures are measured once an epoch (and when
// max_steps ends one early), the step loss every log_every steps.
var curveMetrics = map[string]curveMetric{
	"loss":                  {perStep: true, get: func(m train.Metric) (float64, bool) { return m.Loss, true }},
	"grad_norm":             {perStep: true, get: func(m train.Metric) (float64, bool) { return nonZero(m.GradNorm) }},
	"train_loss":            {get: func(m train.Metric) (float64, bool) { return m.TrainLoss, true }},
	"val_loss":              {get: func(m train.Metric) (float64, bool) { return optional(m.ValLoss) }},
	"train_sign_agreement":  {get: func(m train.Metric) (float64, bool) { return nonZero(m.TrainSign) }},
	"val_sign_agreement":    {get: func(m train.Metric) (float64, bool) { return optional(m.ValSign) }},
	"train_within_0_1":      {get: func(m train.Metric) (float64, bool) { return nonZero(m.TrainWithin) }},
	"val_within_0_1":        {get: func(m train.Metric) (float64, bool) { return optional(m.ValWithin) }},
	"train_pair_accuracy":   {get: func(m train.Metric) (float64, bool) { return nonZero(m.TrainPairAccuracy) }},
	"val_pair_accuracy":     {get: func(m train.Metric) (float64, bool) { return optional(m.ValPairAccuracy) }},
	"train_action_accuracy": {get: func(m train.Metric) (float64, bool) { return nonZero(m.TrainActionAccuracy) }},
	"val_action_accuracy":   {get: func(m train.Metric) (float64, bool) { return optional(m.ValActionAccuracy) }},
}

// CurveMetricNames lists the figures Curves can draw, sorted.
func CurveMetricNames() []string {
	names := make([]string, 0, len(curveMetrics))
	for name := range curveMetrics {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// UnknownMetricError is a metric Curves cannot draw.
type UnknownMetricError struct{ Metric string }

func (e *UnknownMetricError) Error() string {
	return fmt.Sprintf("unknown metric %q (one of %s)", e.Metric, strings.Join(CurveMetricNames(), ", "))
}

// Curve is one run's figure against the optimizer step.
type Curve struct {
	Name   string    `json:"name"`
	Steps  []int64   `json:"steps"`
	Values []float64 `json:"values"`
}

// CurveOf takes metric from a run's metrics lines, one point a line that
// carries it, in the file's order (a resumed run's file holds each step once).
func CurveOf(name string, metrics []train.Metric, metric string) (Curve, error) {
	cm, ok := curveMetrics[metric]
	if !ok {
		return Curve{}, &UnknownMetricError{Metric: metric}
	}
	c := Curve{Name: name}
	for _, m := range metrics {
		carries := m.Kind == "epoch" || m.Kind == "partial"
		if cm.perStep {
			carries = m.Kind == "step"
		}
		if !carries {
			continue
		}
		if v, ok := cm.get(m); ok {
			c.Steps = append(c.Steps, m.Step)
			c.Values = append(c.Values, v)
		}
	}
	return c, nil
}

// curveColors are told apart on screen and in print (Okabe and Ito's palette).
var curveColors = []color.RGBA{
	{R: 0, G: 114, B: 178, A: 255}, {R: 213, G: 94, B: 0, A: 255}, {R: 0, G: 158, B: 115, A: 255},
	{R: 204, G: 121, B: 167, A: 255}, {R: 230, G: 159, B: 0, A: 255}, {R: 86, G: 180, B: 233, A: 255},
	{R: 0, G: 0, B: 0, A: 255}, {R: 240, G: 228, B: 66, A: 255},
}

// Curves draws several runs' curves of one metric against the step into
// a PNG at path (written to a temporary file and renamed), so runs trained
// side by side can be compared in one picture.
func Curves(curves []Curve, metric, path string) error {
	p := gplot.New()
	p.Title.Text = metric
	p.X.Label.Text = "step"
	p.Y.Label.Text = metric
	p.Add(plotter.NewGrid())
	for i, c := range curves {
		if len(c.Steps) == 0 {
			continue
		}
		xys := make(plotter.XYs, len(c.Steps))
		for j := range c.Steps {
			xys[j] = plotter.XY{X: float64(c.Steps[j]), Y: c.Values[j]}
		}
		line, err := plotter.NewLine(xys)
		if err != nil {
			return fmt.Errorf("plot %s: %w", c.Name, err)
		}
		line.Color, line.Width = curveColors[i%len(curveColors)], vg.Points(1.5)
		p.Add(line)
		p.Legend.Add(c.Name, line)
		if !curveMetrics[metric].perStep {
			sc, err := plotter.NewScatter(xys)
			if err != nil {
				return fmt.Errorf("plot %s: %w", c.Name, err)
			}
			sc.Color = line.Color
			p.Add(sc)
		}
	}
	return save(p, path)
}

// save writes p to a temporary file renamed to path, so a viewer never
// sees half an image. The legend stands to the right of the axes, where no
// curve can run under it.
func save(p *gplot.Plot, path string) error {
	const width, height = 7 * vg.Inch, 4 * vg.Inch
	legend := p.Legend
	p.Legend = gplot.NewLegend() // p.Draw draws the axes and curves alone
	legend.Top, legend.Left = true, true
	gap := vg.Points(8)
	legendWidth := legend.Rectangle(draw.Canvas{}).Size().X + 2*gap
	format := strings.TrimPrefix(strings.ToLower(filepath.Ext(path)), ".")
	c, err := draw.NewFormattedCanvas(width+legendWidth, height, format)
	if err != nil {
		return fmt.Errorf("plot: %w", err)
	}
	dc := draw.New(c)
	p.Draw(draw.Crop(dc, 0, -legendWidth, 0, 0))
	legend.Draw(draw.Crop(dc, width+gap, -gap, gap, -p.Title.TextStyle.Rectangle(p.Title.Text).Size().Y-gap))
	f, err := safefile.Create(path)
	if err != nil {
		return fmt.Errorf("plot: %w", err)
	}
	defer f.Discard()
	if _, err := c.WriteTo(f); err != nil {
		return fmt.Errorf("plot: %w", err)
	}
	if err := f.Commit(); err != nil {
		return fmt.Errorf("plot: %w", err)
	}
	return nil
}
