package cnn

import (
	"encoding/json"
	"fmt"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/dchess/dchess/dataset"
	"github.com/dchess/dchess/models/dcw"
	"github.com/dchess/dchess/models/nn"
)

// Model is the training side of the family: it satisfies pipeline.Model.
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
// learnables in the order of params.
func (m *Model) Build(g *G.ExprGraph, x *G.Node, params []dcw.Tensor) (*G.Node, []*G.Node, error) {
	batch := x.Shape()[0]
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
		b, err := nn.Param(g, bt, 1, l.Filters, 1, 1)
		if err != nil {
			return nil, nil, err
		}
		learnables = append(learnables, w, b)
		if h, err = G.Conv2d(h, w, tensor.Shape{l.Kernel, l.Kernel}, []int{l.Pad, l.Pad}, []int{1, 1}, []int{1, 1}); err != nil {
			return nil, nil, fmt.Errorf("cnn conv %d: %w", i, err)
		}
		if h, err = G.BroadcastAdd(h, b, nil, []byte{0, 2, 3}); err != nil {
			return nil, nil, fmt.Errorf("cnn conv %d bias: %w", i, err)
		}
		if h, err = G.Rectify(h); err != nil {
			return nil, nil, err
		}
		if l.Pool > 1 {
			if h, err = G.MaxPool2D(h, tensor.Shape{l.Pool, l.Pool}, []int{0, 0}, []int{l.PoolStride, l.PoolStride}); err != nil {
				return nil, nil, fmt.Errorf("cnn pool %d: %w", i, err)
			}
		}
		in = l.Filters
	}
	var err error
	if h, err = G.Reshape(h, tensor.Shape{batch, m.cfg.features()}); err != nil {
		return nil, nil, err
	}
	h, dense, err := nn.DenseStackGraph(g, h, params, m.cfg.denseWidths(), m.cfg.denseName, m.cfg.Activation)
	if err != nil {
		return nil, nil, fmt.Errorf("cnn: %w", err)
	}
	return h, append(learnables, dense...), nil
}
