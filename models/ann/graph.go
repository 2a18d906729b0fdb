package ann

import (
	"encoding/json"
	"fmt"

	G "gorgonia.org/gorgonia"

	"github.com/dchess/dchess/dataset"
	"github.com/dchess/dchess/models/dcw"
	"github.com/dchess/dchess/models/nn"
	"github.com/dchess/dchess/models/nn/ops"
)

// Model is the training side of the family: it satisfies family.Model.
type Model struct{ cfg Config }

// NewModel checks cfg and returns the trainable model.
func NewModel(cfg Config) (*Model, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Model{cfg: cfg}, nil
}

// Family names the model family.
func (m *Model) Family() string { return Family }

// Arch returns the architecture as stored in model.dcw.
func (m *Model) Arch() ([]byte, error) { return json.Marshal(m.cfg) }

// InputShape is the graph's input shape for a batch.
func (m *Model) InputShape(batch int) []int { return []int{batch, m.cfg.Input.Size()} }

// EncodeRecord writes a record's input into dst and returns its target.
func (m *Model) EncodeRecord(r *dataset.Record, dst []float32) (float32, error) {
	return m.cfg.Input.EncodeRecord(r, dst)
}

// InitParams draws fresh weights from seed: He-uniform for ReLU layers,
// Glorot-uniform otherwise and for the output, zero biases.
func (m *Model) InitParams(seed int64) []dcw.Tensor {
	rng := nn.NewRand(seed)
	widths := m.cfg.widths()
	var params []dcw.Tensor
	for i := 0; i+1 < len(widths); i++ {
		in, out := widths[i], widths[i+1]
		limit := nn.GlorotLimit(in, out)
		if i < len(m.cfg.Hidden) {
			limit = nn.InitLimit(m.cfg.Activation, in, out)
		}
		name := m.cfg.layerName(i)
		params = append(params, nn.Uniform(rng, name+".w", limit, in, out), nn.Zeros(name+".b", out))
	}
	return params
}

// Build adds the network for input x (batch × inputs) to g, with weights
// from params, and returns the logit node (batch × 1) and the learnables in
// the order of params. The whole stack is one custom op (ops.DenseStack):
// built node by node, Gorgonia's per-node overhead is most of a step of
// layers this small.
func (m *Model) Build(g *G.ExprGraph, x *G.Node, params []dcw.Tensor) (*G.Node, []*G.Node, error) {
	widths := m.cfg.widths()
	var ws, bs, learnables []*G.Node
	for i := 0; i+1 < len(widths); i++ {
		name := m.cfg.layerName(i)
		wt, err := nn.Find(params, name+".w")
		if err != nil {
			return nil, nil, fmt.Errorf("ann: %w", err)
		}
		bt, err := nn.Find(params, name+".b")
		if err != nil {
			return nil, nil, fmt.Errorf("ann: %w", err)
		}
		w, err := nn.Param(g, wt, widths[i], widths[i+1])
		if err != nil {
			return nil, nil, fmt.Errorf("ann: %w", err)
		}
		b, err := nn.Param(g, bt, 1, widths[i+1])
		if err != nil {
			return nil, nil, fmt.Errorf("ann: %w", err)
		}
		ws, bs, learnables = append(ws, w), append(bs, b), append(learnables, w, b)
	}
	h, err := ops.DenseStack(x, ws, bs, m.cfg.Activation)
	if err != nil {
		return nil, nil, fmt.Errorf("ann: %w", err)
	}
	return h, learnables, nil
}
