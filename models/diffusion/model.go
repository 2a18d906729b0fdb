package diffusion

import (
	"encoding/json"
	"fmt"

	G "gorgonia.org/gorgonia"

	"github.com/dchess/dchess/models/dcw"
	"github.com/dchess/dchess/models/transformer"
)

// Model is the training side of the family: the shared transformer and
// its weighted cross-entropy (transformer.Arch.Build).
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

// InitParams draws fresh weights from seed (transformer.Arch.InitParams).
func (m *Model) InitParams(seed int64) []dcw.Tensor { return m.cfg.Transformer().InitParams(seed) }

// InputShapes are the graph's inputs for a batch: the transformer's six
// (transformer.Arch.InputShapes) and, with legal_mask, a seventh, a_i's
// legal-move mask (transformer.Arch.LegalMaskShape).
func (m *Model) InputShapes(batch int) [][]int {
	t := m.cfg.Transformer()
	shapes := t.InputShapes(batch)
	if t.LegalMask {
		shapes = append(shapes, t.LegalMaskShape(batch))
	}
	return shapes
}

// Build adds the transformer and its loss on the inputs of InputShapes.
func (m *Model) Build(g *G.ExprGraph, inputs []*G.Node, params []dcw.Tensor) (transformer.Outputs, error) {
	out, err := m.cfg.Transformer().Build(g, inputs, params)
	if err != nil {
		return transformer.Outputs{}, fmt.Errorf("%s graph: %w", m.cfg.Family, err)
	}
	return out, nil
}

// Encode writes the graph inputs of one example, the corrupted tokens in,
// the clean sequence seq and the slots' loss weights (Config.CorruptAt),
// into one row of each of the inputs of InputShapes.
func (m *Model) Encode(in, seq []int16, weight []float32, rows [][]float32) {
	m.cfg.Transformer().Encode(in, seq, weight, rows)
}

// EncodeLegal writes one example's legal-move mask, legal the action
// indices of the legal moves of its s_i (transformer.LegalActions), into
// its row of the last input; without LegalMask there is no such input and
// it does nothing.
func (m *Model) EncodeLegal(legal []int, rows [][]float32) {
	m.cfg.Transformer().EncodeLegal(legal, rows)
}
