package pipeline

import (
	"fmt"
	"image/color"
	"os"
	"path/filepath"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// LossPlotFile is a run's loss curve.
const LossPlotFile = "loss.png"

// PlotLoss draws the step losses (light), the epoch training loss and the
// epoch validation loss against the step into a PNG at path, written to a
// temporary file and renamed so a viewer never sees half an image.
func PlotLoss(metrics []Metric, lossName, path string) error {
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
	p := plot.New()
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
	p.Legend.Top = true
	tmp := filepath.Join(filepath.Dir(path), ".tmp-"+filepath.Base(path))
	if err := p.Save(7*vg.Inch, 4*vg.Inch, tmp); err != nil {
		return fmt.Errorf("plot: %w", err)
	}
	return os.Rename(tmp, path)
}
