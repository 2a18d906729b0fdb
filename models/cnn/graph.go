package cnn

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

// InputShape is the graph's input shape for a batch: batch × channels × 8 × 8.
func (m *Model) InputShape(batch int) []int {
	return []int{batch, m.cfg.Input.Channels(), 8, 8}
}

// EncodeRecord writes a record's input into dst and returns its target.
func (m *Model) EncodeRecord(r *dataset.Record, dst []float32) (float32, error) {
	return m.cfg.Input.EncodeRecord(r, dst)
}

// InitParams draws fresh weights from seed: He-uniform for the ReLU
// convolutions (and ReLU dense layers), Glorot-uniform otherwise, zero biases.
func (m *Model) InitParams(seed int64) []dcw.Tensor {
	rng := nn.NewRand(seed)
	var params []dcw.Tensor
	in := m.cfg.Input.Channels()
	for i, l := range m.cfg.Conv {
		fanIn := in * l.Kernel * l.Kernel
		params = append(params,
			nn.Uniform(rng, convName(i)+".w", nn.HeLimit(fanIn), l.Filters, in, l.Kernel, l.Kernel),
			nn.Zeros(convName(i)+".b", l.Filters))
		in = l.Filters
	}
	widths := m.cfg.denseWidths()
	for i := 0; i+1 < len(widths); i++ {
		a, b := widths[i], widths[i+1]
		limit := nn.GlorotLimit(a, b)
		if i < len(m.cfg.Hidden) {
			limit = nn.InitLimit(m.cfg.Activation, a, b)
		}
		name := m.cfg.denseName(i)
		params = append(params, nn.Uniform(rng, name+".w", limit, a, b), nn.Zeros(name+".b", b))
	}
	return params
}

// Build adds the network for input x (batch × channels × 8 × 8) to g, with
// weights from params, and returns the logit node (batch × 1) and the
// learnables in the order of params. Each conv block is one custom op
// (models/nn/ops): between blocks the feature maps are position-major, and
// the last block writes them flattened in the (channel, row, column) order
// the dense layers and the pure-Go forward pass use.
func (m *Model) Build(g *G.ExprGraph, x *G.Node, params []dcw.Tensor) (*G.Node, []*G.Node, error) {
	var learnables []*G.Node
	h := x
	in := m.cfg.Input.Channels()
	for i, l := range m.cfg.Conv {
		wt, err := nn.Find(params, convName(i)+".w")
		if err != nil {
			return nil, nil, err
		}
		bt, err := nn.Find(params, convName(i)+".b")
		if err != nil {
			return nil, nil, err
		}
		w, err := nn.Param(g, wt, l.Filters, in, l.Kernel, l.Kernel)
		if err != nil {
			return nil, nil, err
		}
		b, err := nn.Param(g, bt, l.Filters)
		if err != nil {
			return nil, nil, err
		}
		learnables = append(learnables, w, b)
		spec := ops.ConvBlockSpec{Kernel: l.Kernel, Pad: l.Pad, Pool: l.Pool, PoolStride: l.PoolStride,
			In: ops.PositionMajor, Out: ops.PositionMajor, InputGrad: true}
		if i == 0 {
			// The graph's input needs no gradient.
			spec.In, spec.InputGrad = ops.BatchMajor, false
		}
		if i == len(m.cfg.Conv)-1 {
			spec.Out, spec.Flatten = ops.BatchMajor, true
		}
		if h, err = ops.ConvBlock(h, w, b, spec); err != nil {
			return nil, nil, fmt.Errorf("cnn conv %d: %w", i, err)
		}
		in = l.Filters
	}
	h, dense, err := nn.DenseStackGraph(g, h, params, m.cfg.denseWidths(), m.cfg.denseName, m.cfg.Activation)
	if err != nil {
		return nil, nil, fmt.Errorf("cnn: %w", err)
	}
	return h, append(learnables, dense...), nil
}
