package flow

import (
	"encoding/json"
	"fmt"

	G "gorgonia.org/gorgonia"

	"github.com/dchess/dchess/dataset/encode"
	"github.com/dchess/dchess/models/dcw"
	"github.com/dchess/dchess/models/transformer"
)

// Model is the training side of the family: the diffusion model's
// transformer and weighted cross-entropy, plus the stay term of the ELBO
// on the board source.
type Model struct{ cfg Config }

// NewModel checks cfg and returns the trainable model.
func NewModel(cfg Config) (*Model, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Model{cfg: cfg}, nil
}

// Config returns the model's configuration.
func (m *Model) Config() Config { return m.cfg }

// Arch returns the architecture as stored in model.dcw.
func (m *Model) Arch() ([]byte, error) { return json.Marshal(m.cfg) }

// InitParams draws fresh weights from seed, as the diffusion model does.
func (m *Model) InitParams(seed int64) []dcw.Tensor { return m.cfg.Transformer().InitParams(seed) }

// InputShapes are the graph's inputs for a batch, the diffusion model's
// six (state words, action words, state targets, action targets, slot
// weights, a_i's target, which the graph does not read) and, for the
// ELBO on the board source, two more: each state slot's current word
// (-1 where it has no stay weight) and its stay weight; with legal_mask,
// a_i's legal-move mask last (transformer.Arch.LegalMaskShape).
func (m *Model) InputShapes(batch int) [][]int {
	t := m.cfg.Transformer()
	shapes := t.InputShapes(batch)
	if m.cfg.needsStay() {
		shapes = append(shapes, t.StayInputShapes(batch)...)
	}
	if t.LegalMask {
		shapes = append(shapes, t.LegalMaskShape(batch))
	}
	return shapes
}

// Outputs are the nodes the training objective reads: each row's loss
// (batch × 1), the action slots' logits (batch·h × ActionVocab, row
// b·h + k for a_{i+k} of row b) and the learnables.
type Outputs = transformer.Outputs

// Build adds the transformer and its loss on the inputs of InputShapes.
func (m *Model) Build(g *G.ExprGraph, inputs []*G.Node, params []dcw.Tensor) (Outputs, error) {
	out, err := m.cfg.Transformer().Build(g, inputs, params)
	if err != nil {
		return Outputs{}, fmt.Errorf("%s graph: %w", m.cfg.Family, err)
	}
	return out, nil
}

// Encode writes one example, x_t in, x_1 seq and the weights of
// CorruptAt, into one row of each input of InputShapes.
func (m *Model) Encode(in, seq []int16, weight, stay []float32, rows [][]float32) {
	m.cfg.Transformer().Encode(in, seq, weight, rows)
	if !m.cfg.needsStay() {
		return
	}
	for i := 0; i < m.cfg.StateSlots(); i++ {
		rows[6][i], rows[7][i] = -1, stay[i]
		if stay[i] != 0 {
			rows[6][i] = float32(in[i])
		}
	}
}

// EncodeLegal writes one example's legal-move mask (legal: the action
// indices of the legal moves of its s_i) into its row of the last input;
// without legal_mask it does nothing.
func (m *Model) EncodeLegal(legal []int, rows [][]float32) {
	m.cfg.Transformer().EncodeLegal(legal, rows)
}

// Net is the transformer in plain Go with its flow config. Like
// transformer.Net it reuses buffers: Clone one per goroutine.
type Net struct {
	cfg Config
	net *transformer.Net
}

// NewNet builds a Net from a weights file of the flow family.
func NewNet(f *dcw.File) (*Net, error) {
	var cfg Config
	if err := f.DecodeArch(&cfg, Family); err != nil {
		return nil, err
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	net, err := transformer.NewNet(cfg.Transformer(), f)
	if err != nil {
		return nil, err
	}
	return &Net{cfg: cfg, net: net}, nil
}

// Load reads a .dcw file of the flow family.
func Load(path string) (*Net, error) {
	return dcw.ReadAs(path, NewNet)
}

// Config returns the configuration the weights were trained with.
func (n *Net) Config() Config { return n.cfg }

// Clone returns a Net sharing the weights with its own buffers.
func (n *Net) Clone() *Net { return &Net{cfg: n.cfg, net: n.net.Clone()} }

// Forward writes the log-probabilities p_{1|t} of each listed slot into
// out[i] (StateVocab values for a state slot, ActionVocab for an action).
func (n *Net) Forward(in []int16, slots []int, out [][]float32) { n.net.Forward(in, slots, out) }

// slotSize is the vocabulary a slot predicts over.
func slotSize(c Config, slot int) int {
	if slot < c.StateSlots() {
		return encode.StateVocab
	}
	return encode.ActionVocab
}

// BiasOnlyWeights returns flow weights whose predictions are the output
// biases alone (transformer.Arch.BiasOnlyTensors): every action slot
// predicts by actionBias (UCI move → logit), every state slot stateWord.
// Tests of decoding and evaluation use it to know every prediction in
// advance.
func BiasOnlyWeights(c Config, actionBias map[string]float32, stateWord int) (*dcw.File, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return c.Transformer().BiasOnlyFile(Family, c, actionBias, stateWord)
}
