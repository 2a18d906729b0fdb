// Package plot draws a training run's curves with gonum/plot: the loss
// curve the loop's epoch hook redraws (DrawLoss) and the curves `dchess
// plot` compares across runs (Compare): a training figure or a score of
// the run's weights at several steps (ScoresFile), against the step or
// the training compute (Axis), with where two curves cross. It sits
// beside the loop, not in it, so a binary that trains need not link
// gonum/plot.
package plot

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
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

// CurveMetricNames lists the training figures Curves can draw, sorted.
func CurveMetricNames() []string {
	names := make([]string, 0, len(curveMetrics))
	for name := range curveMetrics {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// ScoresFile is where a study writes the scores of a run's weights taken
// at several steps, in the run folder: one JSON object a line with the
// "step" the weights are from and any figures, nested or not. A metric
// that is not a training figure is a dotted path into them, e.g.
// "test.action_accuracy" of a line {"step":5000,"test":{...}}, where
// "test" holds `dchess eval --json`'s output.
const ScoresFile = "scores.jsonl"

// ErrUnknownMetric is a metric that is neither a training figure nor, for
// want of a scores file, one of its fields: a mistake of the caller's.
var ErrUnknownMetric = errors.New("unknown metric")

// Axis is what curves are drawn against: the optimizer step, or the
// training compute that metrics.jsonl counts (train.Metric's Samples and
// FLOPs), so runs whose steps cost different amounts are compared at
// equal data or equal compute.
type Axis string

// The axes, by their --x names.
const (
	AxisStep    Axis = "step"
	AxisSamples Axis = "samples"
	AxisFLOPs   Axis = "flops"
)

// AxisNames lists the axes' names.
func AxisNames() []string { return []string{string(AxisStep), string(AxisSamples), string(AxisFLOPs)} }

// ParseAxis reads an axis by its name.
func ParseAxis(name string) (Axis, error) {
	for _, a := range AxisNames() {
		if name == a {
			return Axis(name), nil
		}
	}
	return "", fmt.Errorf("unknown axis %q (one of %s)", name, strings.Join(AxisNames(), ", "))
}

// Label is the axis's caption in a figure.
func (a Axis) Label() string {
	switch a {
	case AxisSamples:
		return "examples trained on"
	case AxisFLOPs:
		return "training FLOPs (estimated, forward and backward)"
	}
	return "optimizer step"
}

// of is a's value on a metrics line; ok is false when the line lacks it
// (a line written before the loop counted samples, or FLOPs of a family
// that gives no estimate).
func (a Axis) of(m train.Metric) (float64, bool) {
	switch a {
	case AxisSamples:
		return float64(m.Samples), m.Samples > 0
	case AxisFLOPs:
		return m.FLOPs, m.FLOPs > 0
	}
	return float64(m.Step), true
}

// missing says why a run's metrics lack a's values.
func (a Axis) missing(dir string, step int64) error {
	why := "written before the loop counted them"
	if a == AxisFLOPs {
		why = "its family gives no FLOPs estimate, or the line was written before the loop counted them"
	}
	return fmt.Errorf("%s: its metrics.jsonl has no %s at step %d (%s): draw it against the step", dir, a, step, why)
}

// Curve is one run's figure against an axis: X holds the axis's values,
// Steps the optimizer step of each point.
type Curve struct {
	Name   string    `json:"name"`
	Steps  []int64   `json:"steps"`
	X      []float64 `json:"x"`
	Values []float64 `json:"values"`
}

func (c *Curve) add(step int64, x, value float64) {
	c.Steps, c.X, c.Values = append(c.Steps, step), append(c.X, x), append(c.Values, value)
}

// CurveOf takes a training metric from a run's metrics lines, one point a
// line that carries it, in the file's order (a resumed run's file holds
// each step once), against axis. dir names the run in an error.
func CurveOf(dir string, metrics []train.Metric, metric string, axis Axis) (Curve, error) {
	cm, ok := curveMetrics[metric]
	if !ok {
		return Curve{}, fmt.Errorf("%w %q (one of %s, or a field of a run's %s)", ErrUnknownMetric, metric, strings.Join(CurveMetricNames(), ", "), ScoresFile)
	}
	c := Curve{Name: runName(dir)}
	for _, m := range metrics {
		carries := m.Kind == "epoch" || m.Kind == "partial"
		if cm.perStep {
			carries = m.Kind == "step"
		}
		if !carries {
			continue
		}
		if v, ok := cm.get(m); ok {
			x, ok := axis.of(m)
			if !ok {
				return Curve{}, axis.missing(dir, m.Step)
			}
			c.add(m.Step, x, v)
		}
	}
	return c, nil
}

// runName is how a curve names its run: the folder's name.
func runName(dir string) string { return filepath.Base(filepath.Clean(dir)) }

// ReadCurve reads one run's curve of metric against axis: a training
// figure from its metrics.jsonl, any other metric from its scores.jsonl
// (ScoresFile), whose steps are placed on the samples or FLOPs axis by
// the metrics line at the same step.
func ReadCurve(dir, metric string, axis Axis) (Curve, error) {
	var metrics []train.Metric
	readMetrics := func() error {
		var err error
		if metrics, err = train.ReadMetrics(filepath.Join(dir, train.MetricsFile)); err != nil {
			return fmt.Errorf("%s: no training metrics: %w", dir, err)
		}
		return nil
	}
	if _, ok := curveMetrics[metric]; ok {
		if err := readMetrics(); err != nil {
			return Curve{}, err
		}
		c, err := CurveOf(dir, metrics, metric, axis)
		if err == nil && len(c.Steps) == 0 {
			err = fmt.Errorf("%s: its metrics.jsonl has no %s (a run of another family, or no epoch ended yet)", dir, metric)
		}
		return c, err
	}
	path := filepath.Join(dir, ScoresFile)
	scores, err := readScores(path, metric)
	if errors.Is(err, os.ErrNotExist) {
		return Curve{}, fmt.Errorf("%w %q: not a training figure (one of %s), and %s has no %s", ErrUnknownMetric, metric, strings.Join(CurveMetricNames(), ", "), dir, ScoresFile)
	}
	if err != nil {
		return Curve{}, err
	}
	if len(scores) == 0 {
		return Curve{}, fmt.Errorf("%s: no line of its %s has %s", dir, ScoresFile, metric)
	}
	atStep := map[int64]train.Metric{}
	if axis != AxisStep {
		if err := readMetrics(); err != nil {
			return Curve{}, err
		}
		for _, m := range metrics {
			atStep[m.Step] = m
		}
	}
	c := Curve{Name: runName(dir)}
	for _, sc := range scores {
		x := float64(sc.step)
		if axis != AxisStep {
			m, found := atStep[sc.step]
			if !found {
				return Curve{}, fmt.Errorf("%s: its metrics.jsonl has no line at step %d, which its %s scores", dir, sc.step, ScoresFile)
			}
			var ok bool
			if x, ok = axis.of(m); !ok {
				return Curve{}, axis.missing(dir, sc.step)
			}
		}
		c.add(sc.step, x, sc.value)
	}
	return c, nil
}

// score is one line of a scores file: the step and the metric's value.
type score struct {
	step  int64
	value float64
}

// readScores reads the lines of a scores file that hold metric, a dotted
// path, sorted by step (a study extended later appends its new steps).
func readScores(path, metric string) ([]score, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []score
	for i, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var fields map[string]any
		if err := json.Unmarshal(line, &fields); err != nil {
			return nil, fmt.Errorf("%s line %d: not a JSON object: %v", path, i+1, err)
		}
		step, ok := fields["step"].(float64)
		if !ok || step != math.Trunc(step) {
			return nil, fmt.Errorf("%s line %d: no whole \"step\"", path, i+1)
		}
		var v any = fields
		for _, key := range strings.Split(metric, ".") {
			obj, _ := v.(map[string]any)
			v = obj[key] // nil when v is no object or lacks the key
		}
		if v == nil {
			continue
		}
		value, ok := v.(float64)
		if !ok {
			text, _ := json.Marshal(v)
			return nil, fmt.Errorf("%s line %d: %s is %s, not a number", path, i+1, metric, text)
		}
		out = append(out, score{step: int64(step), value: value})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].step < out[j].step })
	return out, nil
}

// Crossing is where two runs' curves cross: between two points the sign
// of their difference changes. The curves are straight between points as
// drawn (in the logarithm of x on a logarithmic axis), and X and Value are
// where the two segments meet.
type Crossing struct {
	A     string  `json:"a"`
	B     string  `json:"b"`
	X     float64 `json:"x"`
	Value float64 `json:"value"`
}

// Crossings finds where each pair of curves crosses over the range of
// the axis both cover, in the order of the curves and then of X, on a
// linear axis or (logX) a logarithmic one. Curves that only touch do not
// cross.
func Crossings(curves []Curve, logX bool) []Crossing {
	if logX {
		logged := make([]Curve, len(curves))
		for i, c := range curves {
			logged[i] = c
			logged[i].X = make([]float64, len(c.X))
			for j, x := range c.X {
				logged[i].X[j] = math.Log(x)
			}
		}
		curves = logged
	}
	var out []Crossing
	for i := range curves {
		for j := i + 1; j < len(curves); j++ {
			out = append(out, crossings(curves[i], curves[j])...)
		}
	}
	if logX {
		for i := range out {
			out[i].X = math.Exp(out[i].X)
		}
	}
	return out
}

func crossings(a, b Curve) []Crossing {
	if len(a.X) == 0 || len(b.X) == 0 {
		return nil
	}
	lo, hi := math.Max(a.X[0], b.X[0]), math.Min(a.X[len(a.X)-1], b.X[len(b.X)-1])
	var xs []float64
	for _, x := range append(slices.Clone(a.X), b.X...) {
		if x >= lo && x <= hi {
			xs = append(xs, x)
		}
	}
	slices.Sort(xs)
	xs = slices.Compact(xs)
	var out []Crossing
	lastX, lastD := 0.0, 0.0 // the last point where the curves differ
	touch := math.NaN()      // the first point since then where they are equal
	for _, x := range xs {
		d := at(a, x) - at(b, x)
		switch {
		case d == 0:
			if math.IsNaN(touch) {
				touch = x
			}
			continue
		case lastD != 0 && (d > 0) != (lastD > 0):
			cx := touch
			if math.IsNaN(cx) {
				cx = lastX + (x-lastX)*lastD/(lastD-d)
			}
			out = append(out, Crossing{A: a.Name, B: b.Name, X: cx, Value: at(a, cx)})
		}
		lastX, lastD, touch = x, d, math.NaN()
	}
	return out
}

// at is c's value at x, on the straight line between the points either
// side; x is within c's range.
func at(c Curve, x float64) float64 {
	i := sort.SearchFloat64s(c.X, x) // the first point at or after x
	if i == len(c.X) {
		i--
	}
	if c.X[i] == x || i == 0 {
		return c.Values[i]
	}
	x0, x1 := c.X[i-1], c.X[i]
	return c.Values[i-1] + (c.Values[i]-c.Values[i-1])*(x-x0)/(x1-x0)
}

// curveColors are told apart on screen and in print (Okabe and Ito's palette).
var curveColors = []color.RGBA{
	{R: 0, G: 114, B: 178, A: 255}, {R: 213, G: 94, B: 0, A: 255}, {R: 0, G: 158, B: 115, A: 255},
	{R: 204, G: 121, B: 167, A: 255}, {R: 230, G: 159, B: 0, A: 255}, {R: 86, G: 180, B: 233, A: 255},
	{R: 0, G: 0, B: 0, A: 255}, {R: 240, G: 228, B: 66, A: 255},
}

// Figure is what Compare draws: one metric of several runs against an
// axis, linear or logarithmic (LogX), into a PNG at Path.
type Figure struct {
	Metric string
	Axis   Axis
	LogX   bool
	Path   string
}

// Comparison is several runs' curves of one metric against one axis, and
// where they cross.
type Comparison struct {
	Metric    string     `json:"metric"`
	Axis      Axis       `json:"axis"`
	Plot      string     `json:"plot"`
	Runs      []Curve    `json:"runs"`
	Crossings []Crossing `json:"crossings"`
}

// Compare reads fig's metric of each run folder in dirs against its axis,
// draws the curves (Curves) and finds where they cross: not for the step
// lines' figures (loss, grad_norm), a batch's each, whose noise crosses
// at every other line.
func Compare(dirs []string, fig Figure) (*Comparison, error) {
	cmp := &Comparison{Metric: fig.Metric, Axis: fig.Axis, Plot: fig.Path, Crossings: []Crossing{}}
	for _, dir := range dirs {
		c, err := ReadCurve(dir, fig.Metric, fig.Axis)
		if err != nil {
			return nil, err
		}
		cmp.Runs = append(cmp.Runs, c)
	}
	if !curveMetrics[fig.Metric].perStep {
		cmp.Crossings = append(cmp.Crossings, Crossings(cmp.Runs, fig.LogX)...)
	}
	if err := Curves(cmp.Runs, cmp.Crossings, fig); err != nil {
		return nil, err
	}
	return cmp, nil
}

// Curves draws several runs' curves of fig's metric against its axis into
// a PNG at fig.Path (written to a temporary file and renamed), so runs
// trained side by side can be compared in one picture, with a ring where
// two cross. On a logarithmic axis, steps that double are evenly spaced.
func Curves(curves []Curve, crossed []Crossing, fig Figure) error {
	metric := fig.Metric
	p := gplot.New()
	p.Title.Text = metric
	p.X.Label.Text = fig.Axis.Label()
	p.Y.Label.Text = metric
	if fig.LogX {
		p.X.Scale, p.X.Tick.Marker = gplot.LogScale{}, logTicks{}
		p.X.Label.Text += " (log scale)"
	}
	p.Add(plotter.NewGrid())
	for i, c := range curves {
		if len(c.X) == 0 {
			continue
		}
		if fig.LogX && slices.Min(c.X) <= 0 {
			return fmt.Errorf("plot %s: a point at %s %g has no logarithm", c.Name, fig.Axis, slices.Min(c.X))
		}
		xys := make(plotter.XYs, len(c.X))
		for j := range c.X {
			xys[j] = plotter.XY{X: c.X[j], Y: c.Values[j]}
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
	if len(crossed) > 0 {
		xys := make(plotter.XYs, len(crossed))
		for i, c := range crossed {
			xys[i] = plotter.XY{X: c.X, Y: c.Value}
		}
		rings, err := plotter.NewScatter(xys)
		if err != nil {
			return fmt.Errorf("plot the crossings: %w", err)
		}
		rings.Shape, rings.Radius = draw.RingGlyph{}, vg.Points(6)
		p.Add(rings)
		p.Legend.Add("crossing", rings)
	}
	return save(p, fig.Path)
}

// logTicks labels 1, 2 and 5 times each power of ten on a logarithmic
// axis and marks the other whole multiples: gonum's LogTicks labels the
// powers alone, one or two over the range of a study's curves.
type logTicks struct{}

func (logTicks) Ticks(min, max float64) []gplot.Tick {
	var ticks []gplot.Tick
	for power := math.Pow(10, math.Floor(math.Log10(min))); power <= max; power *= 10 {
		for m := 1.0; m <= 9; m++ {
			v := m * power
			if v < min || v > max {
				continue
			}
			t := gplot.Tick{Value: v}
			if m == 1 || m == 2 || m == 5 {
				t.Label = strconv.FormatFloat(v, 'g', -1, 64)
			}
			ticks = append(ticks, t)
		}
	}
	return ticks
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
