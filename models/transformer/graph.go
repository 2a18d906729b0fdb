package transformer

import (
	"fmt"
	"math"
	"strings"
	"sync"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/dchess/dchess/dataset/encode"
	"github.com/dchess/dchess/models/dcw"
	"github.com/dchess/dchess/models/nn"
	"github.com/dchess/dchess/models/nn/ops"
)

// layerNormEps keeps the normalisation finite on a constant row.
const layerNormEps = 1e-5

// InitParams draws fresh weights from seed: embeddings N-like uniform of
// scale 0.02·√3 (std 0.02, as GPT-2), projections Glorot-uniform, norms
// gain 1 and bias 0, biases 0.
func (t Arch) InitParams(seed int64) []dcw.Tensor {
	rng := nn.NewRand(seed)
	var out []dcw.Tensor
	for _, p := range t.paramShapes() {
		switch {
		case len(p.shape) == 1 && strings.HasSuffix(p.name, ".g"):
			t := nn.Zeros(p.name, p.shape...)
			for i := range t.Data {
				t.Data[i] = 1
			}
			out = append(out, t)
		case len(p.shape) == 1:
			out = append(out, nn.Zeros(p.name, p.shape...))
		case strings.HasPrefix(p.name, "embed."):
			out = append(out, nn.Uniform(rng, p.name, 0.02*math.Sqrt(3), p.shape...))
		default:
			out = append(out, nn.Uniform(rng, p.name, nn.GlorotLimit(p.shape[0], p.shape[1]), p.shape...))
		}
	}
	return out
}

// InputShapes are the graph's first six inputs for a batch, which every
// configuration reads, tokens as float32 indices: the state words
// (MaskState included), the action words (MaskAction included), the state
// targets, the action targets (-1 for a slot without one), each slot's
// loss weight and the vocabulary index of a_i. The graph does not read the
// last: it is a_i's target for scoring. The stay inputs
// (StayInputShapes) and, with LegalMask, a_i's legal-move mask
// (LegalMaskShape) come after them.
func (t Arch) InputShapes(batch int) [][]int {
	ss, h := t.StateSlots(), t.Horizon
	return [][]int{{batch, ss}, {batch, h}, {batch, ss}, {batch, h}, {batch, t.SeqLen()}, {batch, 1}}
}

// StayInputShapes are the two inputs Build reads after InputShapes' for
// the stay term: each state slot's current word (-1 for none) and its
// weight.
func (t Arch) StayInputShapes(batch int) [][]int {
	return [][]int{{batch, t.StateSlots()}, {batch, t.StateSlots()}}
}

// graphBuilder holds what the layers of one graph share.
type graphBuilder struct {
	g          *G.ExprGraph
	d          int
	params     []dcw.Tensor
	learnables []*G.Node
	normalise  normaliser
}

// normaliser normalises each row of x (n × d) to mean 0 and variance 1,
// layerNormEps keeping a constant row finite: ops.LayerNorm in Build (the
// tests also build the graph with Gorgonia's primitives to compare).
type normaliser func(x *G.Node) (*G.Node, error)

// fusedLayerNorm is the normaliser Build uses.
func fusedLayerNorm(x *G.Node) (*G.Node, error) { return ops.LayerNorm(x, layerNormEps) }

func (b *graphBuilder) param(name string, shape ...int) (*G.Node, error) {
	t, err := nn.Find(b.params, name)
	if err != nil {
		return nil, err
	}
	n, err := nn.Param(b.g, t, shape...)
	if err != nil {
		return nil, err
	}
	b.learnables = append(b.learnables, n)
	return n, nil
}

// layerNorm normalises each row of x (n × d) to mean 0 and variance 1
// with b.normalise: one op and its gradient op, where Gorgonia's
// primitives took a dozen nodes, each cloning an n × d tensor. Its gain
// and bias are applied by the product that reads it (norm.fold), where
// they scale a d × out weight matrix instead of n × d activations.
func (b *graphBuilder) layerNorm(x *G.Node, prefix string) (norm, error) {
	gain, err := b.param(prefix+".g", b.d, 1)
	if err != nil {
		return norm{}, err
	}
	bias, err := b.param(prefix+".b", 1, b.d)
	if err != nil {
		return norm{}, err
	}
	y, err := b.normalise(x)
	if err != nil {
		return norm{}, err
	}
	return norm{y: y, gain: gain, bias: bias}, nil
}

// norm is a layer norm's normalised rows y and its gain (d × 1) and bias
// (1 × d), not yet applied.
type norm struct{ y, gain, bias *G.Node }

// fold returns the weights and bias of a product (y ⊙ gain + bias)·w + c
// taken as y·w' + c': w' = diag(gain)·w and c' = bias·w + c (c nil: none).
func (n norm) fold(w, c *G.Node) (*G.Node, *G.Node, error) {
	scaled, err := G.BroadcastHadamardProd(n.gain, w, []byte{1}, nil)
	if err != nil {
		return nil, nil, err
	}
	shift, err := G.Mul(n.bias, w)
	if err != nil {
		return nil, nil, err
	}
	if c != nil {
		if shift, err = G.Add(shift, c); err != nil {
			return nil, nil, err
		}
	}
	return scaled, shift, nil
}

// qkvWeights joins block p's per-head q, k and v projections (the .dcw
// tensors, d × dk each) into one d × 3d matrix, columns q of every head,
// then k, then v, as ops.Attention reads them: one product instead of
// 3·heads narrow ones, and the file keeps its per-head tensors.
func (b *graphBuilder) qkvWeights(p string, heads, d, dk int) (*G.Node, error) {
	var parts []*G.Node
	for _, name := range []string{"q", "k", "v"} {
		for hd := 0; hd < heads; hd++ {
			w, err := b.param(fmt.Sprintf("%shead%d.%s", p, hd, name), d, dk)
			if err != nil {
				return nil, err
			}
			parts = append(parts, w)
		}
	}
	return G.Concat(1, parts...)
}

// dense is x·w + b with prefix's weights, on x's rows after the layer
// norm n when n is not nil (its gain and bias folded into w and b).
func (b *graphBuilder) dense(x *G.Node, n *norm, prefix string, in, out int) (*G.Node, error) {
	w, err := b.param(prefix+".w", in, out)
	if err != nil {
		return nil, err
	}
	bias, err := b.param(prefix+".b", 1, out)
	if err != nil {
		return nil, err
	}
	if n != nil {
		if w, bias, err = n.fold(w, bias); err != nil {
			return nil, err
		}
	}
	return ops.DenseStackInner(x, []*G.Node{w}, []*G.Node{bias}, "") // one layer: no activation
}

// mlp is a block's feed-forward layer on the layer norm n, ReLU between
// its two products.
func (b *graphBuilder) mlp(n norm, p string, d, hidden int) (*G.Node, error) {
	var ws, bs []*G.Node
	for _, l := range []struct {
		name    string
		in, out int
	}{{p + "mlp.in", d, hidden}, {p + "mlp.out", hidden, d}} {
		w, err := b.param(l.name+".w", l.in, l.out)
		if err != nil {
			return nil, err
		}
		bias, err := b.param(l.name+".b", 1, l.out)
		if err != nil {
			return nil, err
		}
		ws, bs = append(ws, w), append(bs, bias)
	}
	var err error
	if ws[0], bs[0], err = n.fold(ws[0], bs[0]); err != nil {
		return nil, err
	}
	return ops.DenseStackInner(n.y, ws, bs, ops.ActReLU)
}

// Outputs are the nodes the training objective reads.
type Outputs struct {
	// PerRow is each row's loss (batch × 1).
	PerRow *G.Node
	// ActionLogits are the logits of the action slots (batch·h ×
	// ActionVocab), row b·h + k for a_{i+k} of row b; with LegalMask a_i's
	// have the legal-move mask added.
	ActionLogits *G.Node
	Learnables   []*G.Node
}

// Build adds the transformer and its loss on the inputs of InputShapes:
// each row's loss is the weighted cross-entropy of its targets. With the
// two inputs of StayInputShapes after them, it also adds, for each state
// slot of weight w_stay and current word z, w_stay·(1 - p(z)), where p(z)
// is the probability the slot's prediction gives its own word: the rate
// of leaving z in a generalised-KL flow-matching loss (models/flow). With
// LegalMask the last input is a_i's legal-move mask (LegalMaskShape),
// added to a_i's logits before the cross-entropy and in ActionLogits.
func (c Arch) Build(g *G.ExprGraph, inputs []*G.Node, params []dcw.Tensor) (Outputs, error) {
	return c.build(g, inputs, params, fusedLayerNorm)
}

// build is Build with the layer norms' normalisation normalise.
func (c Arch) build(g *G.ExprGraph, inputs []*G.Node, params []dcw.Tensor, normalise normaliser) (Outputs, error) {
	var legalMask *G.Node
	if c.LegalMask {
		if len(inputs) < 7 {
			return Outputs{}, fmt.Errorf("legal_mask: %d inputs, want the legal-move mask after the others", len(inputs))
		}
		legalMask, inputs = inputs[len(inputs)-1], inputs[:len(inputs)-1]
	}
	batch := inputs[0].Shape()[0]
	d, dk, ss, h, L := c.Dim, c.Dim/c.Heads, c.StateSlots(), c.Horizon, c.SeqLen()
	b := &graphBuilder{g: g, d: d, params: params, normalise: normalise}
	fail := func(err error) (Outputs, error) { return Outputs{}, err }

	// Embeddings: each position's word row plus its position row, as two
	// gathers and an add. The state and action tables are joined into one
	// (action words after the state words), so the rows come out in
	// sequence order without a copy of the activations.
	embedState, err := b.param("embed.state", encode.StateVocab+1, d)
	if err != nil {
		return fail(err)
	}
	embedAction, err := b.param("embed.action", encode.ActionVocab+1, d)
	if err != nil {
		return fail(err)
	}
	if c.ActionSquares {
		// Each move's row plus its three part rows: a constant incidence
		// matrix times the part table.
		actionParts, err := b.param("embed.action.parts", encode.ActionParts, d)
		if err != nil {
			return fail(err)
		}
		incidence := G.NewMatrix(g, tensor.Float32, G.WithShape(encode.ActionVocab+1, encode.ActionParts),
			G.WithName("action.incidence"), G.WithValue(actionIncidence()))
		parts, err := G.Mul(incidence, actionParts)
		if err != nil {
			return fail(err)
		}
		if embedAction, err = G.Add(embedAction, parts); err != nil {
			return fail(err)
		}
	}
	pos, err := b.param("embed.pos", L, d)
	if err != nil {
		return fail(err)
	}
	table, err := G.Concat(0, embedState, embedAction)
	if err != nil {
		return fail(err)
	}
	actionWords, err := G.Add(inputs[1], G.NewConstant(float32(encode.StateVocab+1), G.WithName("words.action")))
	if err != nil {
		return fail(err)
	}
	words, err := G.Concat(1, inputs[0], actionWords)
	if err != nil {
		return fail(err)
	}
	x, err := ops.Embedding(table, words)
	if err != nil {
		return fail(err)
	}
	positions := make([]float32, batch*L)
	for i := range positions {
		positions[i] = float32(i % L)
	}
	pe, err := ops.Embedding(pos, G.NewMatrix(g, tensor.Float32, G.WithShape(batch, L), G.WithName("positions"),
		G.WithValue(tensor.New(tensor.WithShape(batch, L), tensor.WithBacking(positions)))))
	if err != nil {
		return fail(err)
	}
	if x, err = G.Add(x, pe); err != nil {
		return fail(err)
	}

	for l := 0; l < c.Layers; l++ {
		p := fmt.Sprintf("block%d.", l)
		n, err := b.layerNorm(x, p+"ln1")
		if err != nil {
			return fail(err)
		}
		wqkv, err := b.qkvWeights(p, c.Heads, d, dk)
		if err != nil {
			return fail(err)
		}
		// The projection has no bias of its own: the norm's shift is all.
		wqkv, shift, err := n.fold(wqkv, nil)
		if err != nil {
			return fail(err)
		}
		qkv, err := ops.DenseStackInner(n.y, []*G.Node{wqkv}, []*G.Node{shift}, "")
		if err != nil {
			return fail(err)
		}
		cat, err := ops.Attention(qkv, batch, L, c.Heads)
		if err != nil {
			return fail(err)
		}
		att, err := b.dense(cat, nil, p+"attn", d, d)
		if err != nil {
			return fail(err)
		}
		if x, err = G.Add(x, att); err != nil {
			return fail(err)
		}
		n2, err := b.layerNorm(x, p+"ln2")
		if err != nil {
			return fail(err)
		}
		mo, err := b.mlp(n2, p, d, c.MLP)
		if err != nil {
			return fail(err)
		}
		if x, err = G.Add(x, mo); err != nil {
			return fail(err)
		}
	}
	final, err := b.layerNorm(x, "ln")
	if err != nil {
		return fail(err)
	}
	x = final.y

	// Split the positions into state and action rows with constant
	// selection indices (a gather, whose gradient scatters back).
	stateRows, actionRows := make([]int, 0, batch*ss), make([]int, 0, batch*h)
	for r := 0; r < batch; r++ {
		for i := 0; i < ss; i++ {
			stateRows = append(stateRows, r*L+i)
		}
		for k := 0; k < h; k++ {
			actionRows = append(actionRows, r*L+ss+k)
		}
	}
	gather := func(rows []int, name string) (*G.Node, error) {
		idx := G.NewVector(g, tensor.Int, G.WithShape(len(rows)), G.WithName(name),
			G.WithValue(tensor.New(tensor.WithShape(len(rows)), tensor.WithBacking(rows))))
		return G.ByIndices(x, idx, 0)
	}
	xsOut, err := gather(stateRows, "rows.state")
	if err != nil {
		return fail(err)
	}
	xaOut, err := gather(actionRows, "rows.action")
	if err != nil {
		return fail(err)
	}
	stateLogits, err := b.dense(xsOut, &final, "head.state", d, encode.StateVocab)
	if err != nil {
		return fail(err)
	}
	actionLogits, err := b.dense(xaOut, &final, "head.action", d, encode.ActionVocab)
	if err != nil {
		return fail(err)
	}
	if legalMask != nil {
		if actionLogits, err = c.maskFirstAction(g, actionLogits, legalMask); err != nil {
			return fail(err)
		}
	}
	// Per-slot cross-entropy of the targets (0 for slots without one).
	ls, err := ops.SoftmaxCrossEntropy(stateLogits, inputs[2])
	if err != nil {
		return fail(err)
	}
	la, err := ops.SoftmaxCrossEntropy(actionLogits, inputs[3])
	if err != nil {
		return fail(err)
	}
	if ls, err = G.Reshape(ls, tensor.Shape{batch, ss}); err != nil {
		return fail(err)
	}
	if la, err = G.Reshape(la, tensor.Shape{batch, h}); err != nil {
		return fail(err)
	}
	all, err := G.Concat(1, ls, la)
	if err != nil {
		return fail(err)
	}
	weighted, err := G.HadamardProd(all, inputs[4])
	if err != nil {
		return fail(err)
	}
	perRow, err := G.Mul(weighted, onesColumn(g, L, "sum.slots"))
	if err != nil {
		return fail(err)
	}
	if len(inputs) > 6 {
		if perRow, err = c.addStay(g, perRow, stateLogits, inputs[6], inputs[7]); err != nil {
			return fail(err)
		}
	}
	return Outputs{PerRow: perRow, ActionLogits: actionLogits, Learnables: b.learnables}, nil
}

// maskFirstAction adds the legal-move mask (batch × ActionVocab) to the
// rows of a_i among the action logits (batch·h × ActionVocab, row b·h + k
// for a_{i+k}): for h = 1 that is every row; otherwise the mask is
// widened by zeros for the h - 1 later actions into batch × h·ActionVocab,
// which is the logits' layout reshaped.
func (c Arch) maskFirstAction(g *G.ExprGraph, logits, mask *G.Node) (*G.Node, error) {
	batch, h := mask.Shape()[0], c.Horizon
	if want := c.LegalMaskShape(batch); !mask.Shape().Eq(tensor.Shape(want)) || logits.Shape()[0] != batch*h {
		return nil, fmt.Errorf("legal_mask: mask %v for logits %v, want %v", mask.Shape(), logits.Shape(), want)
	}
	full := mask
	if h > 1 {
		width := (h - 1) * encode.ActionVocab
		zeros := G.NewMatrix(g, tensor.Float32, G.WithShape(batch, width), G.WithName("legal.later"),
			G.WithValue(tensor.New(tensor.WithShape(batch, width), tensor.WithBacking(make([]float32, batch*width)))))
		var err error
		if full, err = G.Concat(1, mask, zeros); err != nil {
			return nil, err
		}
		if full, err = G.Reshape(full, tensor.Shape{batch * h, encode.ActionVocab}); err != nil {
			return nil, err
		}
	}
	return G.Add(logits, full)
}

// addStay adds each row's Σ w·(1 - p(z)) over its state slots to perRow
// (see Build): p(z) = exp(-cross-entropy of z), 1 for a slot without a
// word, whose term is then 0 whatever its weight.
func (c Arch) addStay(g *G.ExprGraph, perRow, stateLogits, words, weights *G.Node) (*G.Node, error) {
	batch, ss := words.Shape()[0], c.StateSlots()
	ce, err := ops.SoftmaxCrossEntropy(stateLogits, words)
	if err != nil {
		return nil, err
	}
	if ce, err = G.Reshape(ce, tensor.Shape{batch, ss}); err != nil {
		return nil, err
	}
	negated, err := G.Neg(ce)
	if err != nil {
		return nil, err
	}
	p, err := G.Exp(negated)
	if err != nil {
		return nil, err
	}
	kept, err := G.HadamardProd(p, weights)
	if err != nil {
		return nil, err
	}
	leave, err := G.Sub(weights, kept)
	if err != nil {
		return nil, err
	}
	stay, err := G.Mul(leave, onesColumn(g, ss, "sum.stay"))
	if err != nil {
		return nil, err
	}
	return G.Add(perRow, stay)
}

// onesColumn is an n × 1 constant of ones: a product with it sums rows.
func onesColumn(g *G.ExprGraph, n int, name string) *G.Node {
	ones := make([]float32, n)
	for i := range ones {
		ones[i] = 1
	}
	return G.NewMatrix(g, tensor.Float32, G.WithShape(n, 1), G.WithName(name),
		G.WithValue(tensor.New(tensor.WithShape(n, 1), tensor.WithBacking(ones))))
}

// noTarget marks a slot without a target in the target inputs.
const noTarget = -1

// EncodeLegal writes one example's legal-move mask, legal the action
// indices of the legal moves of its s_i (LegalActions), into its row of
// the last input (rows holds one row of each input); without LegalMask
// there is no such input and it does nothing.
func (c Arch) EncodeLegal(legal []int, rows [][]float32) {
	if c.LegalMask {
		EncodeLegalMask(legal, rows[len(rows)-1])
	}
}

// Encode writes the graph inputs of one example: the corrupted tokens in
// (mask words included), the clean sequence seq (targets; s_i's slots and
// NoToken slots have none) and the slots' loss weights, into one row of
// each of the inputs of InputShapes.
func (c Arch) Encode(in, seq []int16, weight []float32, rows [][]float32) {
	ss, h := c.StateSlots(), c.Horizon
	for i := 0; i < ss; i++ {
		rows[0][i] = float32(in[i])
		rows[2][i] = noTarget
		if i >= encode.StateLen && seq[i] != encode.NoToken {
			rows[2][i] = float32(seq[i])
		}
	}
	for k := 0; k < h; k++ {
		rows[1][k] = float32(in[ss+k])
		rows[3][k] = noTarget
		if seq[ss+k] != encode.NoToken {
			rows[3][k] = float32(seq[ss+k])
		}
	}
	copy(rows[4], weight)
	rows[5][0] = float32(seq[ss])
}

// actionIncidence returns the (ActionVocab+1) × ActionParts matrix with a
// 1 at each move's origin, destination and promotion rows; the [MASK]
// word's row is zero. Each graph gets its own copy: Gorgonia may transpose
// an operand's tensor in place while it differentiates a product.
func actionIncidence() *tensor.Dense {
	m := append([]float32(nil), actionIncidenceRows()...)
	return tensor.New(tensor.WithShape(encode.ActionVocab+1, encode.ActionParts), tensor.WithBacking(m))
}

var actionIncidenceRows = sync.OnceValue(func() []float32 {
	m := make([]float32, (encode.ActionVocab+1)*encode.ActionParts)
	for a := 0; a < encode.ActionVocab; a++ {
		for _, r := range encode.ActionPartRows(a) {
			m[a*encode.ActionParts+r] = 1
		}
	}
	return m
})
