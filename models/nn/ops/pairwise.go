package ops

import (
	"fmt"
	"hash"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// PairwiseProduct multiplies the two halves of each group of x's columns,
// element by element: x is batch × groups·width (width even), the result
// batch × groups·width/2 with y[g·width/2 + j] = x[g·width + j] ·
// x[g·width + width/2 + j]. Stockfish's NNUE feeds its dense layers this
// product of each perspective's clipped accumulator halves: half as many
// inputs, and each is 0 when either factor is. Like the other ops here it
// keeps its buffers from step to step, so a graph using it runs one pass at
// a time.
func PairwiseProduct(x *G.Node, groups int) (*G.Node, error) {
	xs := x.Shape()
	if len(xs) != 2 || groups < 1 || xs[1]%(2*groups) != 0 {
		return nil, fmt.Errorf("pairwise product: %v is not batch × %d groups of an even width", xs, groups)
	}
	p := &pairwise{id: tokenOpIDs.Add(1), batch: xs[0], groups: groups, half: xs[1] / groups / 2}
	return G.ApplyOp(&pairwiseOp{p}, x)
}

type pairwise struct {
	opTraits
	id                  uint64
	batch, groups, half int
	out, dx             *tensor.Dense
	outShape, inShape   tensor.Shape
}

func (p *pairwise) allocate() {
	if p.out != nil {
		return
	}
	p.outShape, p.inShape = tensor.Shape{p.batch, p.groups * p.half}, tensor.Shape{p.batch, 2 * p.groups * p.half}
	p.out = dense(make([]float32, p.outShape.TotalSize()), p.outShape)
	p.dx = dense(make([]float32, p.inShape.TotalSize()), p.inShape)
}

// forward writes out = the halves' product, group by group.
func (p *pairwise) forward(x, out []float32) {
	h := p.half
	for rg := 0; rg < p.batch*p.groups; rg++ {
		mulVec(out[rg*h:][:h], x[2*rg*h:][:h], x[(2*rg+1)*h:][:h], useVecAsm)
	}
}

// backward writes dx: each factor's gradient is dy times the other factor.
func (p *pairwise) backward(x, dy, dx []float32) {
	h := p.half
	for rg := 0; rg < p.batch*p.groups; rg++ {
		a, b, g := x[2*rg*h:][:h], x[(2*rg+1)*h:][:h], dy[rg*h:][:h]
		mulVec(dx[2*rg*h:][:h], g, b, useVecAsm)
		mulVec(dx[(2*rg+1)*h:][:h], g, a, useVecAsm)
	}
}

type pairwiseOp struct{ *pairwise }

func (op *pairwiseOp) Arity() int { return 1 }
func (op *pairwiseOp) Type() hm.Type {
	return hm.NewFnType(tensorType(2), tensorType(2))
}
func (op *pairwiseOp) InferShape(...G.DimSizer) (tensor.Shape, error) {
	return tensor.Shape{op.batch, op.groups * op.half}, nil
}
func (op *pairwiseOp) WriteHash(h hash.Hash) { fmt.Fprintf(h, "%v", op) }
func (op *pairwiseOp) Hashcode() uint32      { return hashOf(op) }
func (op *pairwiseOp) String() string {
	return fmt.Sprintf("PairwiseProduct#%d{%d × %d groups of 2×%d}", op.id, op.batch, op.groups, op.half)
}

func (op *pairwiseOp) Do(inputs ...G.Value) (G.Value, error) {
	if len(inputs) != 1 {
		return nil, fmt.Errorf("pairwise product: %d inputs, want 1", len(inputs))
	}
	op.allocate()
	x, err := float32s(inputs[0], op.inShape.TotalSize(), "pairwise product input")
	if err != nil {
		return nil, err
	}
	op.forward(x, op.out.Data().([]float32))
	return reuse(op.out, op.outShape)
}

func (op *pairwiseOp) DiffWRT(int) []bool { return []bool{true} }

func (op *pairwiseOp) SymDiff(inputs G.Nodes, _, grad *G.Node) (G.Nodes, error) {
	dx, err := G.ApplyOp(&pairwiseGradOp{op.pairwise}, inputs[0], grad)
	return G.Nodes{dx}, err
}

// pairwiseGradOp computes the input's gradient from the input and the
// output's gradient.
type pairwiseGradOp struct{ *pairwise }

func (op *pairwiseGradOp) Arity() int { return 2 }
func (op *pairwiseGradOp) Type() hm.Type {
	return hm.NewFnType(tensorType(2), tensorType(2), tensorType(2))
}
func (op *pairwiseGradOp) InferShape(...G.DimSizer) (tensor.Shape, error) {
	return tensor.Shape{op.batch, 2 * op.groups * op.half}, nil
}
func (op *pairwiseGradOp) WriteHash(h hash.Hash) { fmt.Fprintf(h, "%v", op) }
func (op *pairwiseGradOp) Hashcode() uint32      { return hashOf(op) }
func (op *pairwiseGradOp) String() string        { return fmt.Sprintf("PairwiseProduct#%d.dx", op.id) }

func (op *pairwiseGradOp) Do(inputs ...G.Value) (G.Value, error) {
	if len(inputs) != 2 {
		return nil, fmt.Errorf("%v: %d inputs, want 2", op, len(inputs))
	}
	if op.out == nil {
		return nil, fmt.Errorf("%v ran before the forward pass", op)
	}
	x, err := float32s(inputs[0], op.inShape.TotalSize(), "pairwise product input")
	if err != nil {
		return nil, err
	}
	dy, err := float32s(inputs[1], op.outShape.TotalSize(), "pairwise product gradient")
	if err != nil {
		return nil, err
	}
	op.backward(x, dy, op.dx.Data().([]float32))
	return reuse(op.dx, op.inShape)
}
