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

// Attention adds bidirectional multi-head scaled dot-product attention to
// qkv's graph. qkv is (batch·seq) × 3·dim: each position's query, key and
// value, dim values each, head h in columns h·dim/heads onwards of each.
// The result is (batch·seq) × dim, head h's output softmax(q·kᵀ/√dk)·v in
// columns h·dk: what per-head BatchedMatMul, SoftMax, BatchedMatMul and a
// Concat compute, differentiable with respect to qkv.
//
// Built from those nodes, a transformer step spends most of its time in
// Gorgonia's generic softmax (math.Exp in float64 over every score), a
// fresh score tensor per head and node, and the batched products' copies.
// Here each (sequence, head) pair is one task: register-tiled products
// through per-worker scratch, a float32 softmax, and the attention weights
// kept for the backward pass. Tasks write disjoint parts of the results,
// so they are the same bits on any number of cores. Like DenseStack the
// ops share state, so a graph using it runs one pass at a time.
func Attention(qkv *G.Node, batch, seq, heads int) (*G.Node, error) {
	s := qkv.Shape()
	if len(s) != 2 || batch < 1 || seq < 1 || heads < 1 || s[0] != batch*seq || s[1]%(3*heads) != 0 || s[1] == 0 {
		return nil, fmt.Errorf("attention: qkv %v does not hold %d sequences of %d positions with 3 × %d heads", s, batch, seq, heads)
	}
	dim := s[1] / 3
	a := &attention{id: attentionIDs.Add(1), batch: batch, seq: seq, heads: heads, dim: dim, dk: dim / heads}
	a.seqPad, a.dkPad = roundUp(seq, tile), roundUp(a.dk, tile)
	a.scale = float32(1 / math.Sqrt(float64(a.dk)))
	return G.ApplyOp(&attentionOp{a}, qkv)
}

var attentionIDs atomic.Uint64

// attention is the geometry and the buffers its ops share. Score rows are
// seqPad wide and head rows dkPad wide, mulAdd's tile; the padding stays
// zero. When dk is a multiple of the tile, the products read v and k and
// write the output and dq in place, without the copies to padded rows.
type attention struct {
	opTraits
	coreShare
	id                     uint64
	batch, seq, heads      int
	dim, dk, seqPad, dkPad int
	tasks, qkvStride       int // one task per (sequence, head); qkv's row stride
	scale                  float32
	probs                  []float32 // per task: seq × seqPad attention weights
	work                   []attentionScratch
	zeros                  []float32
	out, dqkv              *tensor.Dense
	outShape, qkvShape     tensor.Shape
}

// attentionScratch is one worker's space for one (sequence, head) task.
type attentionScratch struct {
	byRow  []float32 // seq × dkPad: v (forward), k (backward)
	result []float32 // seq × dkPad: the output rows, dq
	byCol  []float32 // dk × seqPad: kᵀ (forward), vᵀ (backward)
	resT   []float32 // dk × seqPad: dvᵀ and dkᵀ
	dS     []float32 // seq × seqPad: dP, then the scores' gradient
}

func (a *attention) allocate() {
	if a.out != nil {
		return
	}
	a.tasks, a.qkvStride = a.batch*a.heads, 3*a.dim
	a.probs = make([]float32, a.tasks*a.seq*a.seqPad)
	a.zeros = make([]float32, max(a.seqPad, a.dkPad))
	a.outShape = tensor.Shape{a.batch * a.seq, a.dim}
	a.qkvShape = tensor.Shape{a.batch * a.seq, 3 * a.dim}
	a.out = dense(make([]float32, a.batch*a.seq*a.dim), a.outShape)
	a.dqkv = dense(make([]float32, a.batch*a.seq*3*a.dim), a.qkvShape)
}

func (a *attention) scratch() {
	for len(a.work) < a.taskWorkers(a.tasks) {
		a.work = append(a.work, attentionScratch{
			byRow:  make([]float32, a.seq*a.dkPad),
			result: make([]float32, a.seq*a.dkPad),
			byCol:  make([]float32, a.dk*a.seqPad),
			resT:   make([]float32, a.dk*a.seqPad),
			dS:     make([]float32, a.seq*a.seqPad),
		})
	}
}

// head returns task t's sequence and where its head's q, k and v columns
// start in its first qkv row.
func (a *attention) head(t int) (b, q, k, v int) {
	b, h := t/a.heads, t%a.heads
	row := b * a.seq * a.qkvStride
	return b, row + h*a.dk, row + a.dim + h*a.dk, row + 2*a.dim + h*a.dk
}

// copyRows copies rows × cols values from src (row stride lds) to dst
// (row stride ldd).
func copyRows(rows, cols int, src []float32, lds int, dst []float32, ldd int) {
	for r := 0; r < rows; r++ {
		copy(dst[r*ldd:][:cols], src[r*lds:][:cols])
	}
}

// forward computes task t's attention weights and output.
func (a *attention) forward(s *attentionScratch, qkv, out []float32, t int) {
	b, q, k, v := a.head(t)
	L, ld := a.seq, a.qkvStride
	p := a.probs[t*L*a.seqPad:][:L*a.seqPad]
	transpose(L, a.dk, qkv[k:], ld, s.byCol, a.seqPad)
	mulAdd(L, a.seqPad, a.dk, qkv[q:], ld, s.byCol, a.seqPad, p, a.seqPad, a.zeros)
	for r := 0; r < L; r++ {
		softmaxRow(p[r*a.seqPad:][:L], a.scale)
	}
	o := out[b*L*a.dim+(t%a.heads)*a.dk:]
	if a.dk == a.dkPad { // v read and the output written in place
		mulAdd(L, a.dk, L, p, a.seqPad, qkv[v:], ld, o, a.dim, a.zeros)
		return
	}
	copyRows(L, a.dk, qkv[v:], ld, s.byRow, a.dkPad)
	mulAdd(L, a.dkPad, L, p, a.seqPad, s.byRow, a.dkPad, s.result, a.dkPad, a.zeros)
	copyRows(L, a.dk, s.result, a.dkPad, o, a.dim)
}

// backward computes task t's share of qkv's gradient from the output's:
// with P the weights and S the scaled scores, dv = Pᵀ·dO, dP = dO·vᵀ,
// dS = P ⊙ (dP - rowsum(dP ⊙ P)), dq = scale·dS·k and dk = scale·dSᵀ·q.
// The products with a transposed L × L factor are taken transposed
// (dvᵀ = dOᵀ·P, dkᵀ = qᵀ·dS), reading the narrow factors in place.
func (a *attention) backward(s *attentionScratch, qkv, dout, dqkv []float32, t int) {
	b, q, k, v := a.head(t)
	h := t % a.heads
	L, ld, sp := a.seq, a.qkvStride, a.seqPad
	p := a.probs[t*L*sp:][:L*sp]
	dO := dout[b*L*a.dim+h*a.dk:]
	// dvᵀ = dOᵀ·P
	mulAddT(a.dk, sp, L, dO, a.dim, p, sp, s.resT, sp, a.zeros)
	transpose(a.dk, L, s.resT, sp, dqkv[v:], ld)
	// dP = dO·vᵀ, then dS in place, the scale folded in.
	transpose(L, a.dk, qkv[v:], ld, s.byCol, sp)
	mulAdd(L, sp, a.dk, dO, a.dim, s.byCol, sp, s.dS, sp, a.zeros)
	// Whole padded rows: the padding of P and dP is zero and stays so.
	for r := 0; r < L; r++ {
		softmaxGrad(p[r*sp:][:sp], s.dS[r*sp:][:sp], a.scale)
	}
	// dq = dS·k
	if a.dk == a.dkPad {
		mulAdd(L, a.dk, L, s.dS, sp, qkv[k:], ld, dqkv[q:], ld, a.zeros)
	} else {
		copyRows(L, a.dk, qkv[k:], ld, s.byRow, a.dkPad)
		mulAdd(L, a.dkPad, L, s.dS, sp, s.byRow, a.dkPad, s.result, a.dkPad, a.zeros)
		copyRows(L, a.dk, s.result, a.dkPad, dqkv[q:], ld)
	}
	// dkᵀ = qᵀ·dS
	mulAddT(a.dk, sp, L, qkv[q:], ld, s.dS, sp, s.resT, sp, a.zeros)
	transpose(a.dk, L, s.resT, sp, dqkv[k:], ld)
}

// attentionOp is the forward pass: qkv → output.
type attentionOp struct{ *attention }

func (op *attentionOp) Arity() int { return 1 }
func (op *attentionOp) Type() hm.Type {
	return hm.NewFnType(tensorType(2), tensorType(2))
}
func (op *attentionOp) InferShape(...G.DimSizer) (tensor.Shape, error) {
	return tensor.Shape{op.batch * op.seq, op.dim}, nil
}
func (op *attentionOp) WriteHash(h hash.Hash) { fmt.Fprintf(h, "%v", op) }
func (op *attentionOp) Hashcode() uint32      { return hashOf(op) }
func (op *attentionOp) String() string {
	return fmt.Sprintf("Attention#%d{%d×%d, %d heads of %d}", op.id, op.batch, op.seq, op.heads, op.dk)
}

func (op *attentionOp) Do(inputs ...G.Value) (G.Value, error) {
	if len(inputs) != 1 {
		return nil, fmt.Errorf("attention: %d inputs, want qkv", len(inputs))
	}
	op.allocate()
	op.scratch()
	qkv, err := float32s(inputs[0], op.batch*op.seq*3*op.dim, "qkv")
	if err != nil {
		return nil, err
	}
	out := op.out.Data().([]float32)
	op.forTasks(op.tasks, func(w, t int) { op.forward(&op.work[w], qkv, out, t) })
	return reuse(op.out, op.outShape)
}

func (op *attentionOp) DiffWRT(int) []bool { return []bool{true} }

func (op *attentionOp) SymDiff(inputs G.Nodes, output, grad *G.Node) (G.Nodes, error) {
	d, err := G.ApplyOp(&attentionGradOp{op.attention}, inputs[0], output, grad)
	return G.Nodes{d}, err
}

// attentionGradOp is the backward pass: qkv, the output (which orders it
// after the forward op) and the output's gradient → qkv's gradient.
type attentionGradOp struct{ *attention }

func (op *attentionGradOp) Arity() int { return 3 }
func (op *attentionGradOp) Type() hm.Type {
	return hm.NewFnType(tensorType(2), tensorType(2), tensorType(2), tensorType(2))
}
func (op *attentionGradOp) InferShape(...G.DimSizer) (tensor.Shape, error) {
	return tensor.Shape{op.batch * op.seq, 3 * op.dim}, nil
}
func (op *attentionGradOp) WriteHash(h hash.Hash) { fmt.Fprintf(h, "%v", op) }
func (op *attentionGradOp) Hashcode() uint32      { return hashOf(op) }
func (op *attentionGradOp) String() string        { return fmt.Sprintf("Attention#%d.dqkv", op.id) }

func (op *attentionGradOp) Do(inputs ...G.Value) (G.Value, error) {
	if len(inputs) != 3 {
		return nil, fmt.Errorf("%v: %d inputs, want 3", op, len(inputs))
	}
	if op.out == nil {
		return nil, fmt.Errorf("%v ran before the forward pass", op)
	}
	qkv, err := float32s(inputs[0], op.batch*op.seq*3*op.dim, "qkv")
	if err != nil {
		return nil, err
	}
	dout, err := float32s(inputs[2], op.batch*op.seq*op.dim, "the output's gradient")
	if err != nil {
		return nil, err
	}
	dqkv := op.dqkv.Data().([]float32)
	op.forTasks(op.tasks, func(w, t int) { op.backward(&op.work[w], qkv, dout, dqkv, t) })
	return reuse(op.dqkv, op.qkvShape)
}
