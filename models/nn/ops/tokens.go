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

// The ops here read token indices from float32 nodes (the training loop's
// batch buffers are float32), one index per value: a one-hot row as a
// single number.

// Embedding adds the rows of table (vocab × dim) picked by tokens (any
// shape, n values, each an index into table) to tokens' graph: an n × dim
// matrix, differentiable with respect to table. It is the product of
// one-hot rows and the table without the product: the gradient adds each
// output row's gradient into its token's row, in order.
func Embedding(table, tokens *G.Node) (*G.Node, error) {
	ts := table.Shape()
	if len(ts) != 2 || ts[0] < 1 || ts[1] < 1 {
		return nil, fmt.Errorf("embedding: table %v must be a matrix", ts)
	}
	e := &embedding{id: tokenOpIDs.Add(1), vocab: ts[0], dim: ts[1], n: tokens.Shape().TotalSize()}
	return G.ApplyOp(&embeddingOp{e}, table, tokens)
}

var tokenOpIDs atomic.Uint64

type embedding struct {
	opTraits
	id              uint64
	vocab, dim, n   int
	out, dtable     *tensor.Dense
	outShape, shape tensor.Shape
}

func (e *embedding) allocate() {
	if e.out != nil {
		return
	}
	e.outShape, e.shape = tensor.Shape{e.n, e.dim}, tensor.Shape{e.vocab, e.dim}
	e.out = dense(make([]float32, e.n*e.dim), e.outShape)
	e.dtable = dense(make([]float32, e.vocab*e.dim), e.shape)
}

// indices reads tokens as indices below limit; -1 is allowed when
// allowNone (no token).
func indices(v G.Value, n, limit int, allowNone bool, what string) ([]float32, error) {
	data, err := float32s(v, n, what)
	if err != nil {
		return nil, err
	}
	for i, x := range data {
		if !(x >= 0 && x < float32(limit) && x == float32(int(x))) && !(allowNone && x == -1) {
			return nil, fmt.Errorf("%s[%d] = %g is not an index below %d", what, i, x, limit)
		}
	}
	return data, nil
}

type embeddingOp struct{ *embedding }

func (op *embeddingOp) Arity() int { return 2 }
func (op *embeddingOp) Type() hm.Type {
	return hm.NewFnType(tensorType(2), hm.TypeVariable('b'), tensorType(2))
}
func (op *embeddingOp) InferShape(...G.DimSizer) (tensor.Shape, error) {
	return tensor.Shape{op.n, op.dim}, nil
}
func (op *embeddingOp) WriteHash(h hash.Hash) { fmt.Fprintf(h, "%v", op) }
func (op *embeddingOp) Hashcode() uint32      { return hashOf(op) }
func (op *embeddingOp) String() string {
	return fmt.Sprintf("Embedding#%d{%d of %d×%d}", op.id, op.n, op.vocab, op.dim)
}

func (op *embeddingOp) Do(inputs ...G.Value) (G.Value, error) {
	if len(inputs) != 2 {
		return nil, fmt.Errorf("embedding: %d inputs, want table and tokens", len(inputs))
	}
	op.allocate()
	table, err := float32s(inputs[0], op.vocab*op.dim, "table")
	if err != nil {
		return nil, err
	}
	tokens, err := indices(inputs[1], op.n, op.vocab, false, "embedding tokens")
	if err != nil {
		return nil, err
	}
	out := op.out.Data().([]float32)
	for i, t := range tokens {
		copy(out[i*op.dim:][:op.dim], table[int(t)*op.dim:][:op.dim])
	}
	return reuse(op.out, op.outShape)
}

func (op *embeddingOp) DiffWRT(int) []bool { return []bool{true, false} }

func (op *embeddingOp) SymDiff(inputs G.Nodes, output, grad *G.Node) (G.Nodes, error) {
	d, err := G.ApplyOp(&embeddingGradOp{op.embedding}, inputs[1], grad)
	return G.Nodes{d, nil}, err
}

// embeddingGradOp: tokens and the output's gradient → the table's.
type embeddingGradOp struct{ *embedding }

func (op *embeddingGradOp) Arity() int { return 2 }
func (op *embeddingGradOp) Type() hm.Type {
	return hm.NewFnType(hm.TypeVariable('b'), tensorType(2), tensorType(2))
}
func (op *embeddingGradOp) InferShape(...G.DimSizer) (tensor.Shape, error) {
	return tensor.Shape{op.vocab, op.dim}, nil
}
func (op *embeddingGradOp) WriteHash(h hash.Hash) { fmt.Fprintf(h, "%v", op) }
func (op *embeddingGradOp) Hashcode() uint32      { return hashOf(op) }
func (op *embeddingGradOp) String() string        { return fmt.Sprintf("Embedding#%d.dtable", op.id) }

func (op *embeddingGradOp) Do(inputs ...G.Value) (G.Value, error) {
	if len(inputs) != 2 {
		return nil, fmt.Errorf("%v: %d inputs, want 2", op, len(inputs))
	}
	op.allocate()
	tokens, err := indices(inputs[0], op.n, op.vocab, false, "embedding tokens")
	if err != nil {
		return nil, err
	}
	dout, err := float32s(inputs[1], op.n*op.dim, "the output's gradient")
	if err != nil {
		return nil, err
	}
	dtable := op.dtable.Data().([]float32)
	clear(dtable)
	for i, t := range tokens {
		row := dtable[int(t)*op.dim:][:op.dim]
		for j, g := range dout[i*op.dim:][:op.dim] {
			row[j] += g
		}
	}
	return reuse(op.dtable, op.shape)
}

// SoftmaxCrossEntropy adds each row's cross-entropy -log softmax(logits)[t]
// to logits' graph, for logits rows × classes and targets one class index t
// per row (any shape, rows values; -1 for a row without a target, whose
// loss is 0): a rows × 1 matrix, differentiable with respect to logits.
// It replaces LogSoftMax, a product with the one-hot targets and a sum
// over the classes, which over the 1,968 moves cost Gorgonia a float64
// exponential per class and two rows × classes temporaries; the gradient
// is softmax - one-hot, from the probabilities kept by the forward pass.
func SoftmaxCrossEntropy(logits, targets *G.Node) (*G.Node, error) {
	ls := logits.Shape()
	if len(ls) != 2 || ls[0] < 1 || ls[1] < 1 || targets.Shape().TotalSize() != ls[0] {
		return nil, fmt.Errorf("softmax cross-entropy: logits %v and targets %v do not match", ls, targets.Shape())
	}
	x := &crossEntropy{id: tokenOpIDs.Add(1), rows: ls[0], classes: ls[1]}
	return G.ApplyOp(&crossEntropyOp{x}, logits, targets)
}

type crossEntropy struct {
	opTraits
	id            uint64
	rows, classes int
	probs         []float32 // rows × classes, the softmax of the last forward pass
	out, dlogits  *tensor.Dense
}

func (x *crossEntropy) allocate() {
	if x.out != nil {
		return
	}
	x.probs = make([]float32, x.rows*x.classes)
	x.out = dense(make([]float32, x.rows), tensor.Shape{x.rows, 1})
	x.dlogits = dense(make([]float32, x.rows*x.classes), tensor.Shape{x.rows, x.classes})
}

type crossEntropyOp struct{ *crossEntropy }

func (op *crossEntropyOp) Arity() int { return 2 }
func (op *crossEntropyOp) Type() hm.Type {
	return hm.NewFnType(tensorType(2), hm.TypeVariable('b'), tensorType(2))
}
func (op *crossEntropyOp) InferShape(...G.DimSizer) (tensor.Shape, error) {
	return tensor.Shape{op.rows, 1}, nil
}
func (op *crossEntropyOp) WriteHash(h hash.Hash) { fmt.Fprintf(h, "%v", op) }
func (op *crossEntropyOp) Hashcode() uint32      { return hashOf(op) }
func (op *crossEntropyOp) String() string {
	return fmt.Sprintf("SoftmaxCrossEntropy#%d{%d×%d}", op.id, op.rows, op.classes)
}

func (op *crossEntropyOp) Do(inputs ...G.Value) (G.Value, error) {
	if len(inputs) != 2 {
		return nil, fmt.Errorf("softmax cross-entropy: %d inputs, want logits and targets", len(inputs))
	}
	op.allocate()
	logits, err := float32s(inputs[0], op.rows*op.classes, "logits")
	if err != nil {
		return nil, err
	}
	targets, err := indices(inputs[1], op.rows, op.classes, true, "targets")
	if err != nil {
		return nil, err
	}
	out := op.out.Data().([]float32)
	for r, t := range targets {
		row, p := logits[r*op.classes:][:op.classes], op.probs[r*op.classes:][:op.classes]
		copy(p, row)
		m := rowMax(p)
		sum := expShift(p, 1, m)
		scaleRow(p, 1/sum)
		out[r] = 0
		if t >= 0 {
			// -log p[t] from the logits, which keeps a tiny p[t]'s precision.
			out[r] = float32(math.Log(float64(sum))) + m - row[int(t)]
		}
	}
	return reuse(op.out, tensor.Shape{op.rows, 1})
}

func (op *crossEntropyOp) DiffWRT(int) []bool { return []bool{true, false} }

func (op *crossEntropyOp) SymDiff(inputs G.Nodes, output, grad *G.Node) (G.Nodes, error) {
	d, err := G.ApplyOp(&crossEntropyGradOp{op.crossEntropy}, inputs[1], output, grad)
	return G.Nodes{d, nil}, err
}

// crossEntropyGradOp: targets, the output (which orders it after the
// forward op) and its gradient → the logits' gradient.
type crossEntropyGradOp struct{ *crossEntropy }

func (op *crossEntropyGradOp) Arity() int { return 3 }
func (op *crossEntropyGradOp) Type() hm.Type {
	return hm.NewFnType(hm.TypeVariable('b'), tensorType(2), tensorType(2), tensorType(2))
}
func (op *crossEntropyGradOp) InferShape(...G.DimSizer) (tensor.Shape, error) {
	return tensor.Shape{op.rows, op.classes}, nil
}
func (op *crossEntropyGradOp) WriteHash(h hash.Hash) { fmt.Fprintf(h, "%v", op) }
func (op *crossEntropyGradOp) Hashcode() uint32      { return hashOf(op) }
func (op *crossEntropyGradOp) String() string {
	return fmt.Sprintf("SoftmaxCrossEntropy#%d.dlogits", op.id)
}

func (op *crossEntropyGradOp) Do(inputs ...G.Value) (G.Value, error) {
	if len(inputs) != 3 {
		return nil, fmt.Errorf("%v: %d inputs, want 3", op, len(inputs))
	}
	if op.out == nil {
		return nil, fmt.Errorf("%v ran before the forward pass", op)
	}
	targets, err := indices(inputs[0], op.rows, op.classes, true, "targets")
	if err != nil {
		return nil, err
	}
	dout, err := float32s(inputs[2], op.rows, "the output's gradient")
	if err != nil {
		return nil, err
	}
	d := op.dlogits.Data().([]float32)
	for r, t := range targets {
		row := d[r*op.classes:][:op.classes]
		if t < 0 {
			clear(row)
			continue
		}
		g := dout[r]
		for j, p := range op.probs[r*op.classes:][:op.classes] {
			row[j] = g * p
		}
		row[int(t)] -= g
	}
	return reuse(op.dlogits, tensor.Shape{op.rows, op.classes})
}
