package ops

import (
	"fmt"
	"hash"
	"math"
	"sync/atomic"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// LayerNorm adds x's rows normalised to mean 0 and variance 1 to x's
// graph: y = (x - mean)/√(variance + eps) for each row of x (rows × d),
// differentiable with respect to x. It has no gain or bias: a transformer
// folds those into the weights of the product that reads y.
//
// Built from Gorgonia's primitives, a layer norm is a dozen nodes, each a
// fresh rows × d tensor (the element-wise ops clone their inputs) and as
// many again in the backward pass. Here each pass goes over the rows once
// (a row stays in cache for its sums) into buffers kept from step to step.
// Each row's sums are taken in float64 in a fixed order and rows are
// independent, so the results are the same bits on any number of cores.
// Like the other ops here it keeps state between its passes, so a graph
// using it runs one pass at a time.
func LayerNorm(x *G.Node, eps float64) (*G.Node, error) {
	s := x.Shape()
	if len(s) != 2 || s[0] < 1 || s[1] < 1 {
		return nil, fmt.Errorf("layer norm: x %v must be a matrix", s)
	}
	if !(eps >= 0) {
		return nil, fmt.Errorf("layer norm: eps %g must not be negative", eps)
	}
	ln := &layerNorm{id: layerNormIDs.Add(1), rows: s[0], d: s[1], eps: eps, shape: tensor.Shape{s[0], s[1]}}
	return G.ApplyOp(&layerNormOp{ln}, x)
}

var layerNormIDs atomic.Uint64

// layerNormRows is how many rows one task of either pass takes: enough to
// outweigh the task's scheduling, few enough to share the work of a
// transformer's thousands of rows among the cores.
const layerNormRows = 256

type layerNorm struct {
	opTraits
	coreShare
	id      uint64
	rows, d int
	eps     float64
	inv     []float32 // per row: 1/√(variance + eps) of the last forward pass
	out, dx *tensor.Dense
	shape   tensor.Shape
}

func (ln *layerNorm) allocate() {
	if ln.out != nil {
		return
	}
	ln.inv = make([]float32, ln.rows)
	ln.out = dense(make([]float32, ln.rows*ln.d), ln.shape)
	ln.dx = dense(make([]float32, ln.rows*ln.d), ln.shape)
}

// forRows runs f over the rows in tasks of layerNormRows.
func (ln *layerNorm) forRows(f func(r0, r1 int)) {
	tasks := (ln.rows + layerNormRows - 1) / layerNormRows
	ln.forTasks(tasks, func(_, t int) {
		r0 := t * layerNormRows
		f(r0, min(r0+layerNormRows, ln.rows))
	})
}

// forward normalises rows r0 to r1 of x into y as models/diffusion's
// pure-Go forward pass does: float64 sums (here in four running sums), the
// centred values rounded once.
func (ln *layerNorm) forward(x, y []float32, r0, r1 int) {
	d := ln.d
	for r := r0; r < r1; r++ {
		row, out := x[r*d:][:d], y[r*d:][:d]
		mean := sum4(row) / float64(d)
		inv := 1 / math.Sqrt(squares4(row, mean)/float64(d)+ln.eps)
		ln.inv[r] = float32(inv)
		for i, v := range row {
			out[i] = float32((float64(v) - mean) * inv)
		}
	}
}

// backward writes x's gradient for rows r0 to r1 from y and y's gradient
// dy: dx = inv·(dy - mean(dy) - y·mean(dy ⊙ y)), inv the forward pass's
// 1/√(variance + eps).
func (ln *layerNorm) backward(y, dy, dx []float32, r0, r1 int) {
	d := ln.d
	for r := r0; r < r1; r++ {
		yr, g, out := y[r*d:][:d], dy[r*d:][:d], dx[r*d:][:d]
		sg, sgy := sums2(g, yr)
		mg, mgy := float32(sg/float64(d)), float32(sgy/float64(d))
		inv := ln.inv[r]
		for i, v := range g {
			out[i] = inv * (v - mg - yr[i]*mgy)
		}
	}
}

// sum4 is Σ a[i] in float64 in four running sums: a single sum waits on
// each add (BenchmarkLayerNorm's forward pass, measured in
// docs/results/2026-11-26-train-layer-norm-op.md).
func sum4(a []float32) float64 {
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += float64(a[i])
		s1 += float64(a[i+1])
		s2 += float64(a[i+2])
		s3 += float64(a[i+3])
	}
	for ; i < len(a); i++ {
		s0 += float64(a[i])
	}
	return (s0 + s1) + (s2 + s3)
}

// squares4 is Σ (a[i] - mean)² in float64, as sum4.
func squares4(a []float32, mean float64) float64 {
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(a); i += 4 {
		c0, c1, c2, c3 := float64(a[i])-mean, float64(a[i+1])-mean, float64(a[i+2])-mean, float64(a[i+3])-mean
		s0 += c0 * c0
		s1 += c1 * c1
		s2 += c2 * c2
		s3 += c3 * c3
	}
	for ; i < len(a); i++ {
		c := float64(a[i]) - mean
		s0 += c * c
	}
	return (s0 + s1) + (s2 + s3)
}

// sums2 is Σ g[i] and Σ g[i]·y[i] in float64 in one pass, two running
// sums each (the backward pass: the same entry as sum4's).
func sums2(g, y []float32) (float64, float64) {
	var s0, s1, p0, p1 float64
	y = y[:len(g)]
	i := 0
	for ; i+2 <= len(g); i += 2 {
		g0, g1 := float64(g[i]), float64(g[i+1])
		s0 += g0
		s1 += g1
		p0 += g0 * float64(y[i])
		p1 += g1 * float64(y[i+1])
	}
	if i < len(g) {
		s0 += float64(g[i])
		p0 += float64(g[i]) * float64(y[i])
	}
	return s0 + s1, p0 + p1
}

// layerNormOp is the forward pass: x → y.
type layerNormOp struct{ *layerNorm }

func (op *layerNormOp) Arity() int                                     { return 1 }
func (op *layerNormOp) Type() hm.Type                                  { return hm.NewFnType(tensorType(2), tensorType(2)) }
func (op *layerNormOp) InferShape(...G.DimSizer) (tensor.Shape, error) { return op.shape.Clone(), nil }
func (op *layerNormOp) WriteHash(h hash.Hash)                          { fmt.Fprintf(h, "%v", op) }
func (op *layerNormOp) Hashcode() uint32                               { return hashOf(op) }
func (op *layerNormOp) String() string {
	return fmt.Sprintf("LayerNorm#%d{%d×%d, eps %g}", op.id, op.rows, op.d, op.eps)
}

func (op *layerNormOp) Do(inputs ...G.Value) (G.Value, error) {
	if len(inputs) != 1 {
		return nil, fmt.Errorf("layer norm: %d inputs, want x", len(inputs))
	}
	op.allocate()
	x, err := float32s(inputs[0], op.rows*op.d, "x")
	if err != nil {
		return nil, err
	}
	y := op.out.Data().([]float32)
	op.forRows(func(r0, r1 int) { op.forward(x, y, r0, r1) })
	return reuse(op.out, op.shape)
}

func (op *layerNormOp) DiffWRT(int) []bool { return []bool{true} }

func (op *layerNormOp) SymDiff(inputs G.Nodes, output, grad *G.Node) (G.Nodes, error) {
	d, err := G.ApplyOp(&layerNormGradOp{op.layerNorm}, output, grad)
	return G.Nodes{d}, err
}

// layerNormGradOp is the backward pass: y (which also orders it after the
// forward op) and y's gradient → x's gradient.
type layerNormGradOp struct{ *layerNorm }

func (op *layerNormGradOp) Arity() int { return 2 }
func (op *layerNormGradOp) Type() hm.Type {
	return hm.NewFnType(tensorType(2), tensorType(2), tensorType(2))
}
func (op *layerNormGradOp) InferShape(...G.DimSizer) (tensor.Shape, error) {
	return op.shape.Clone(), nil
}
func (op *layerNormGradOp) WriteHash(h hash.Hash) { fmt.Fprintf(h, "%v", op) }
func (op *layerNormGradOp) Hashcode() uint32      { return hashOf(op) }
func (op *layerNormGradOp) String() string        { return fmt.Sprintf("LayerNorm#%d.dx", op.id) }

func (op *layerNormGradOp) Do(inputs ...G.Value) (G.Value, error) {
	if len(inputs) != 2 {
		return nil, fmt.Errorf("%v: %d inputs, want 2", op, len(inputs))
	}
	if op.out == nil {
		return nil, fmt.Errorf("%v ran before the forward pass", op)
	}
	y, err := float32s(inputs[0], op.rows*op.d, "y")
	if err != nil {
		return nil, err
	}
	dy, err := float32s(inputs[1], op.rows*op.d, "y's gradient")
	if err != nil {
		return nil, err
	}
	dx := op.dx.Data().([]float32)
	op.forRows(func(r0, r1 int) { op.backward(y, dy, dx, r0, r1) })
	return reuse(op.dx, op.shape)
}
