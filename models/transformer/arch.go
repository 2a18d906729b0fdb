package transformer

import (
	"fmt"

	"github.com/dchess/dchess/dataset/encode"
)

// Arch is the network of the sequence families (diffusion, policy and
// flow): a bidirectional transformer over the tokens of an
// action-state-action sequence of horizon Horizon (encode.SequenceLen),
// with a state head and an action head. Its weights and their order in
// model.dcw depend on Horizon, Dim, Heads, Layers, MLP and ActionSquares
// alone.
type Arch struct {
	Horizon, Dim, Heads, Layers, MLP int
	// ActionSquares adds to each move's own embedding row the rows of its
	// origin, destination and promotion in a shared table
	// (embed.action.parts, encode.ActionParts rows), so every move tells
	// the network which squares it changes, however rarely the move was
	// seen. Without it a move is one learned row of 1,968.
	ActionSquares bool
	// LegalMask adds to the logits of a_i (action slot 0, the move of the
	// given state s_i) an input of IllegalLogit for every move that is not
	// legal in s_i and 0 for the legal ones (LegalMaskShape, the last
	// input of Build), so a_i's cross-entropy is over the legal moves
	// only. The later actions' states are imagined and stay unmasked.
	LegalMask bool
}

// Input words for a masked slot: the one past each vocabulary.
const (
	MaskState  = encode.StateVocab
	MaskAction = encode.ActionVocab
)

// IllegalLogit is what the legal-move mask adds to an illegal move's
// logit. It is finite rather than -Inf so that no NaN can arise (-Inf -
// -Inf in a max-shifted softmax, 0·-Inf in a product) whatever the rest of
// the row, yet far enough down for its softmax weight to be exactly 0 in
// float32: exp underflows below about -87 (ops' expf returns 0 there), and
// logits are O(10), so any mask below about -1e3 gives the same losses and
// gradients; -1e9 leaves room for logits of any size a network reaches
// while staying far from float32's range (3.4e38). The gradient of a
// masked logit is then p·g = 0.
const IllegalLogit = -1e9

// LegalMaskShape is the shape of the legal-move mask input Build reads
// last when LegalMask is set: one row of ActionVocab values per sequence.
func (c Arch) LegalMaskShape(batch int) []int { return []int{batch, encode.ActionVocab} }

// EncodeLegalMask writes one sequence's row of the mask input: 0 for the
// action indices in legal (a_i's legal moves, as LegalActions gives them)
// and IllegalLogit for the rest.
func EncodeLegalMask(legal []int, row []float32) {
	for i := range row {
		row[i] = IllegalLogit
	}
	for _, idx := range legal {
		row[idx] = 0
	}
}

// Validate reports an architecture that cannot be built; family prefixes
// the message.
func (c Arch) Validate(family string) error {
	switch {
	case c.Horizon < 1 || c.Horizon > 16:
		return fmt.Errorf("%s: horizon %d must be in 1..16", family, c.Horizon)
	case c.Dim < 1 || c.Heads < 1 || c.Dim%c.Heads != 0 || c.Dim > 4096:
		return fmt.Errorf("%s: dim %d must be a positive multiple of heads %d (at most 4096)", family, c.Dim, c.Heads)
	case c.Layers < 1 || c.Layers > 64 || c.MLP < 1 || c.MLP > 1<<14:
		return fmt.Errorf("%s: layers (1..64) and mlp (1..16384) must be positive", family)
	case c.ActionSquares && c.Horizon == 1:
		return fmt.Errorf("%s: action_squares needs horizon 2 or more: at horizon 1 the network reads no move", family)
	}
	return nil
}

// SeqLen is the number of tokens the transformer reads.
func (c Arch) SeqLen() int { return encode.SequenceLen(c.Horizon) }

// StateSlots is the number of state tokens (the first SeqLen positions).
func (c Arch) StateSlots() int { return c.Horizon * encode.StateLen }

// ParamCount is the number of weights the transformer has.
func (c Arch) ParamCount() int {
	n := 0
	for _, p := range c.paramShapes() {
		size := 1
		for _, d := range p.shape {
			size *= d
		}
		n += size
	}
	return n
}

// TrainingFLOPs estimates the floating-point operations one training
// sequence costs, forward and backward: three times the forward pass, the
// backward pass taking two matrix products (the gradients of the input and
// of the weights) for each product of the forward one. The forward pass
// counts 2 operations (a multiply and an add) for each weight of a matrix
// product, for each token the product is applied to, and attention's two
// products (scores, then their weighted sum) at 2·L·dim each a token, over
// the L = SeqLen tokens:
//
//	each block, each token: 2·(3·dim² + dim² + 2·dim·mlp) + 4·L·dim
//	heads: 2·dim·StateVocab a state token, 2·dim·ActionVocab an action token
//
// This is the usual 6·N a token (Kaplan et al. 2020, N the weights) with
// attention's term added, the embedding tables left out of N (a lookup
// multiplies nothing) and each head counted on the tokens it reads. Layer
// norms, softmaxes, the loss and the per-batch product of the
// action_squares table are left out: they are O(dim) a token against
// O(dim²), or shared by the batch.
func (c Arch) TrainingFLOPs() float64 {
	d, mlp, L := float64(c.Dim), float64(c.MLP), float64(c.SeqLen())
	block := L * (2*(4*d*d+2*d*mlp) + 4*L*d)
	heads := 2 * d * (float64(c.StateSlots())*encode.StateVocab + float64(c.Horizon)*encode.ActionVocab)
	return 3 * (float64(c.Layers)*block + heads)
}

type paramShape struct {
	name  string
	shape []int
}

// paramShapes lists every tensor in a fixed order: the embeddings, each
// block, the final norm, the two output heads and, with ActionSquares,
// the move-part table last, so that every other tensor draws the same
// initial weights with it as without.
func (c Arch) paramShapes() []paramShape {
	d, dk := c.Dim, c.Dim/c.Heads
	out := []paramShape{
		{"embed.state", []int{encode.StateVocab + 1, d}},
		{"embed.action", []int{encode.ActionVocab + 1, d}},
		{"embed.pos", []int{c.SeqLen(), d}},
	}
	for l := 0; l < c.Layers; l++ {
		p := fmt.Sprintf("block%d.", l)
		out = append(out, paramShape{p + "ln1.g", []int{d}}, paramShape{p + "ln1.b", []int{d}})
		for h := 0; h < c.Heads; h++ {
			hp := fmt.Sprintf("%shead%d.", p, h)
			out = append(out, paramShape{hp + "q", []int{d, dk}}, paramShape{hp + "k", []int{d, dk}}, paramShape{hp + "v", []int{d, dk}})
		}
		out = append(out,
			paramShape{p + "attn.w", []int{d, d}}, paramShape{p + "attn.b", []int{d}},
			paramShape{p + "ln2.g", []int{d}}, paramShape{p + "ln2.b", []int{d}},
			paramShape{p + "mlp.in.w", []int{d, c.MLP}}, paramShape{p + "mlp.in.b", []int{c.MLP}},
			paramShape{p + "mlp.out.w", []int{c.MLP, d}}, paramShape{p + "mlp.out.b", []int{d}})
	}
	out = append(out,
		paramShape{"ln.g", []int{d}}, paramShape{"ln.b", []int{d}},
		paramShape{"head.state.w", []int{d, encode.StateVocab}}, paramShape{"head.state.b", []int{encode.StateVocab}},
		paramShape{"head.action.w", []int{d, encode.ActionVocab}}, paramShape{"head.action.b", []int{encode.ActionVocab}})
	if c.ActionSquares {
		out = append(out, paramShape{"embed.action.parts", []int{encode.ActionParts, d}})
	}
	return out
}
