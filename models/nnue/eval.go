package nnue

import (
	"fmt"
	"math"

	"github.com/dchess/dchess/models/dcw"
)

// Net is a trained network ready for play: the feature transformer
// quantized to int16 (weights and accumulators, qa steps per unit, so the
// clip [0, 1] is [0, qa]), the dense layers in float32. The dense layers
// stay float: in pure Go integer arithmetic is no faster (the compiler
// vectorizes neither), and int16 inputs read as float lose nothing, so
// only the feature weights' rounding separates the player from the
// trained network. A Net is read-only and shared by its Evaluators.
type Net struct {
	cfg Config
	// qa is as many int16 steps per unit as the weights allow: the bias
	// plus Slots rows of the largest weight must fit in int16. Stockfish's
	// 127 is for int8 dense inputs, which float dense layers do not need;
	// at scale 271.6 a step of 1/127 moved scores by up to 20 cp
	// (TestQuantizedMatchesGraph), a step of 1/1000 by a few.
	qa float32
	// ftw is Features × N, ftb N, both in steps of 1/qa.
	ftw, ftb []int16
	// dense are the layers after the accumulators; the first one's weights
	// are divided by qa, so it reads the clipped int16 values as they are.
	dense []denseLayer
}

type denseLayer struct {
	in, out int
	w       []float32 // in × out, row i the weights of input i
	b       []float32
}

// maxQA bounds the accumulators' resolution for tiny weights (a fresh or
// degenerate network), where int16 would allow absurd steps.
const maxQA = 1 << 12

// NewNet checks a weights file of the nnue family and quantizes it.
func NewNet(f *dcw.File) (*Net, error) {
	var cfg Config
	if err := f.DecodeArch(&cfg, Family); err != nil {
		return nil, err
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	w := map[string][]float32{}
	for _, p := range cfg.paramShapes() {
		data, err := f.Tensor(p.name, p.shape...)
		if err != nil {
			return nil, fmt.Errorf("nnue: %w", err)
		}
		for _, v := range data {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				return nil, fmt.Errorf("nnue: tensor %q holds %v", p.name, v)
			}
		}
		w[p.name] = data
	}
	n := &Net{cfg: cfg}
	if err := n.quantizeFeatures(w["ft.w"], w["ft.b"]); err != nil {
		return nil, err
	}
	widths := cfg.widths()
	for i := 0; i+1 < len(widths); i++ {
		weights := w[denseName(i)+".w"]
		if i == 0 {
			weights = append([]float32(nil), weights...)
			for j := range weights {
				weights[j] /= n.qa
			}
		}
		n.dense = append(n.dense, denseLayer{in: widths[i], out: widths[i+1], w: weights, b: w[denseName(i)+".b"]})
	}
	return n, nil
}

// quantizeFeatures rounds the feature transformer to int16 steps of 1/qa,
// qa the largest that no accumulator can overflow with: the bias plus
// Slots rows of the largest weight stays within int16.
func (n *Net) quantizeFeatures(w, b []float32) error {
	var maxW, maxB float64
	for _, v := range w {
		maxW = math.Max(maxW, math.Abs(float64(v)))
	}
	for _, v := range b {
		maxB = math.Max(maxB, math.Abs(float64(v)))
	}
	n.qa = maxQA
	if worst := maxB + Slots*maxW; worst*maxQA > math.MaxInt16 {
		if worst > math.MaxInt16/16 {
			return fmt.Errorf("nnue: feature weights up to %g are too large for int16 accumulators", maxW)
		}
		n.qa = float32(math.Floor(math.MaxInt16 / worst))
	}
	round := func(src []float32) []int16 {
		out := make([]int16, len(src))
		for i, v := range src {
			out[i] = int16(math.Round(float64(v * n.qa)))
		}
		return out
	}
	n.ftw, n.ftb = round(w), round(b)
	return nil
}

// Load reads and quantizes a .dcw file of the nnue family; every error is
// one line naming the file.
func Load(path string) (*Evaluator, error) {
	n, err := dcw.ReadAs(path, NewNet)
	if err != nil {
		return nil, err
	}
	return NewEvaluator(n), nil
}

// Config returns the architecture the weights were trained with.
func (n *Net) Config() Config { return n.cfg }
