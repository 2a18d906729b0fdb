package nnue

import (
	"fmt"
	"math"

	"github.com/dchess/dchess/models/dcw"
)

// Net is a trained network ready for play: the feature transformer
// quantized to int16 (weights and accumulators, qa steps per unit, so the
// clip [0, 1] is [0, qa]), the first dense layer in integers as
// Stockfish's (the clipped accumulators as bytes times int8 weights,
// summed in int32), the layers after it in float32: they read 32 values by
// default and cost little. The weights file stays float; all of this is
// done at load. A Net is read-only and shared by its Evaluators.
type Net struct {
	cfg Config
	// qa is as many int16 steps per unit as the weights allow: the bias
	// plus Slots rows of the largest weight must fit in int16. Stockfish
	// gives its accumulators 127 steps per unit, so that their clip is the
	// first layer's byte as it is; here the feature weights keep finer
	// steps (at scale 271.6 a step of 1/127 moved scores by up to 20 cp
	// against the graph, a step of 1/1000 by a few), and the clipped sums
	// are rounded to 127 steps only after the rows are added (firstLayer).
	qa float32
	// ftw is Features × N, ftb N, both in steps of 1/qa.
	ftw, ftb []int16
	// first is the layer the clipped accumulators feed.
	first firstLayer
	// stacks are the layers after first, one stack an output bucket: the
	// hidden layers shared, then the last layer's column of that bucket
	// (each stack empty when first is the last layer).
	stacks [][]denseLayer
}

// u8Top is the clipped accumulators' largest byte, Stockfish's 127: with
// inputs up to 127 and int8 weights, VPMADDUBSW's sums of two products
// (at most 2 · 127 · 128 = 32,512) never saturate int16, so the AVX2
// product, the AVX-512 VNNI one and the plain-Go one are the same exact
// integers.
const u8Top = 127

// firstLayer is the first dense layer in integers. A clipped accumulator
// c in [0, qa] becomes the byte u = round(c·mul / 2¹⁵) in [0, 127] (the
// rounding VPMULHRSW does), inScale = qa·mul / 2¹⁵ ≈ 127 steps per unit
// (with Pairwise the input is the product of the two clipped halves,
// rounded once to about 127 steps, pairBytes and pairScale);
// each output's weights are int8 in steps of 1/wScale[o], wScale[o] =
// 127 / its largest weight, so none saturates (saturating the largest
// few, for finer steps, cost more than it gave: docs/nnue.md); output o is
// b[o] + k[o] · Σ u·w in float32, k[o] = 1 / (inScale · wScale[o]).
type firstLayer struct {
	in, out int
	// width is out rounded up to the kernels' 16 outputs; the columns
	// past out are 0. The kernels take 32 outputs a pass and a last 16
	// alone, so that a layer of 16 reads half the weight bytes of 32.
	width int
	mul   int32
	// shift is pairBytes's, with Pairwise (mul is then its too).
	shift uint
	// w holds the weights by chunks of four inputs, as VPMADDUBSW and
	// VPDPBUSD take them: w[4c·width + 4o + j] is input 4c+j's weight to
	// output o. byInput holds them input by input, byInput[i·width + o],
	// for the plain-Go loop, which skips zero inputs one by one (faster
	// than reading w with a stride:
	// docs/results/2026-11-25-nnue-node-speed-integer.md).
	w, byInput []int8
	b, k       []float32
}

// newFirstLayer returns a layer of in × out zero weights.
func newFirstLayer(in, out int) firstLayer {
	l := firstLayer{in: in, out: out, width: (out + 15) / 16 * 16}
	l.w, l.byInput = make([]int8, in*l.width), make([]int8, in*l.width)
	l.b, l.k = make([]float32, out), make([]float32, out)
	return l
}

// set makes q input i's weight to output o.
func (l *firstLayer) set(i, o int, q int8) {
	l.w[i/4*4*l.width+4*o+i%4] = q
	l.byInput[i*l.width+o] = q
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
	cfg, w, err := readWeights(f)
	if err != nil {
		return nil, err
	}
	n, err := quantize(cfg, w)
	if err != nil {
		return nil, err
	}
	// Units clipped to 0 together go to the same chunk of four bytes,
	// which the sparse product skips; the order changes no score.
	permuteUnits(cfg, w, n.zeroGroups())
	return quantize(cfg, w)
}

// readWeights checks a weights file of the nnue family and returns its
// architecture and float tensors by name.
func readWeights(f *dcw.File) (Config, map[string][]float32, error) {
	var cfg Config
	if err := f.DecodeArch(&cfg, Family); err != nil {
		return cfg, nil, err
	}
	if err := cfg.Validate(); err != nil {
		return cfg, nil, err
	}
	w := map[string][]float32{}
	for _, p := range cfg.paramShapes() {
		data, err := f.Tensor(p.name, p.shape...)
		if err != nil {
			return cfg, nil, fmt.Errorf("nnue: %w", err)
		}
		for _, v := range data {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				return cfg, nil, fmt.Errorf("nnue: tensor %q holds %v", p.name, v)
			}
		}
		w[p.name] = data
	}
	return cfg, w, nil
}

// quantize makes a Net of the float weights w (by tensor name).
func quantize(cfg Config, w map[string][]float32) (*Net, error) {
	n := &Net{cfg: cfg}
	if err := n.quantizeFeatures(w["ft.w"], w["ft.b"]); err != nil {
		return nil, err
	}
	widths := cfg.widths()
	n.quantizeFirst(w[denseName(0)+".w"], w[denseName(0)+".b"], widths[0], widths[1])
	var hidden []denseLayer
	for i := 1; i+2 < len(widths); i++ {
		hidden = append(hidden, denseLayer{in: widths[i], out: widths[i+1], w: w[denseName(i)+".w"], b: w[denseName(i)+".b"]})
	}
	n.stacks = make([][]denseLayer, cfg.buckets())
	if last := len(widths) - 2; last > 0 {
		lw, lb, in, out := w[denseName(last)+".w"], w[denseName(last)+".b"], widths[last], widths[last+1]
		for k := range n.stacks {
			col := make([]float32, in)
			for i := range col {
				col[i] = lw[i*out+k]
			}
			n.stacks[k] = append(hidden[:len(hidden):len(hidden)], denseLayer{in: in, out: 1, w: col, b: []float32{lb[k]}})
		}
	}
	return n, nil
}

// quantizeFirst makes the first dense layer (w in × out) integer, after
// quantizeFeatures has set qa.
func (n *Net) quantizeFirst(w, b []float32, in, out int) {
	l := newFirstLayer(in, out)
	copy(l.b, b)
	// mul·qa ≤ 127·2¹⁵, so round(qa·mul / 2¹⁵) ≤ 127; a qa below 128 (huge
	// feature weights) keeps its coarser steps.
	l.mul = int32(min(math.Floor(u8Top*(1<<15)/float64(n.qa)), math.MaxInt16))
	inScale := float64(n.qa) * float64(l.mul) / (1 << 15)
	if n.cfg.Pairwise {
		l.shift, l.mul, inScale = pairScale(int32(n.qa))
	}
	for o := range out {
		var top float64
		for i := range in {
			top = math.Max(top, math.Abs(float64(w[i*out+o])))
		}
		scale := 1.0
		if top > 0 {
			scale = 127 / top
		}
		for i := range in {
			q := math.Round(float64(w[i*out+o]) * scale)
			l.set(i, o, int8(min(max(q, -128), 127)))
		}
		l.k[o] = float32(1 / (inScale * scale))
	}
	n.first = l
}

// pairScale is pairBytes's steps for accumulators of qa steps a unit: the
// factors shifted left as far as int16 allows (qa·2^shift ≤ 32767, at
// least 16384), their product's VPMULHRSW z = round(x·y / 2¹⁵) keeps
// zTop ≥ 8192 steps a unit, and mul takes it to at most 127:
// round(zTop·mul / 2¹⁵) ≤ 127, one rounding to bytes as clipBytes has.
func pairScale(qa int32) (shift uint, mul int32, inScale float64) {
	for qa<<(shift+1) <= math.MaxInt16 {
		shift++
	}
	x := int64(qa) << shift
	zTop := (x*x + 1<<14) >> 15
	mul = int32(u8Top * (1 << 15) / zTop)
	return shift, mul, float64(x) * float64(x) / (1 << 15) * float64(mul) / (1 << 15)
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
