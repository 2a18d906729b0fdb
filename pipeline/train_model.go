// Package pipeline runs dchess's long jobs: the training loop shared by the
// model families, its checkpoints, metrics and plots, and the runs folder.
package pipeline

import (
	"math"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/dchess/dchess/dataset"
	"github.com/dchess/dchess/models/dcw"
)

// Model is what a model family gives the training loop: models/ann.Model
// and models/cnn.Model implement it.
type Model interface {
	// Family names the family ("ann", "cnn"); it is stored in model.dcw.
	Family() string
	// Arch is the architecture as JSON, stored in model.dcw for the loader.
	Arch() ([]byte, error)
	// InputShape is the input node's shape for a batch (batch first).
	InputShape(batch int) []int
	// EncodeRecord writes a labelled record's input into dst (the product
	// of InputShape(1)) and returns its target win probability.
	EncodeRecord(r *dataset.Record, dst []float32) (float32, error)
	// InitParams draws initial weights from seed.
	InitParams(seed int64) []dcw.Tensor
	// Build adds the network on x to g with weights params and returns the
	// logit node (batch × 1) and its learnables, in the order of params.
	Build(g *G.ExprGraph, x *G.Node, params []dcw.Tensor) (logit *G.Node, learnables []*G.Node, err error)
}

// trainGraph is a model's graph for one batch size with its loss: the
// training machine computes gradients, the evaluation machine only the
// forward pass over the same nodes.
type trainGraph struct {
	batch      int
	inputSize  int
	x, y, w    *G.Node
	xs, ys, ws []float32 // the batch buffers the input nodes read
	logit      *G.Node
	loss       *G.Node
	learnables []*G.Node
	train      G.VM
	eval       G.VM
}

// newTrainGraph builds the network from params and the loss: per-sample
// losses weighted by w, where w is 1/n for the n real rows of a batch and 0
// for padding, so a short last batch trains exactly on its records.
func newTrainGraph(m Model, params []dcw.Tensor, batch int, loss string) (*trainGraph, error) {
	g := G.NewGraph()
	shape := m.InputShape(batch)
	t := &trainGraph{batch: batch, inputSize: 1}
	for _, d := range shape[1:] {
		t.inputSize *= d
	}
	t.xs = make([]float32, batch*t.inputSize)
	t.ys = make([]float32, batch)
	t.ws = make([]float32, batch)
	t.x = G.NewTensor(g, tensor.Float32, len(shape), G.WithShape(shape...), G.WithName("x"),
		G.WithValue(tensor.New(tensor.WithShape(shape...), tensor.WithBacking(t.xs))))
	t.y = G.NewMatrix(g, tensor.Float32, G.WithShape(batch, 1), G.WithName("y"),
		G.WithValue(tensor.New(tensor.WithShape(batch, 1), tensor.WithBacking(t.ys))))
	t.w = G.NewMatrix(g, tensor.Float32, G.WithShape(batch, 1), G.WithName("w"),
		G.WithValue(tensor.New(tensor.WithShape(batch, 1), tensor.WithBacking(t.ws))))
	var err error
	if t.logit, t.learnables, err = m.Build(g, t.x, params); err != nil {
		return nil, err
	}
	var per *G.Node
	switch loss {
	case LossCrossEntropy:
		// -(y log σ(z) + (1-y) log(1-σ(z))) = softplus(z) - y·z, stable for any z.
		sp, err := G.Softplus(t.logit)
		if err != nil {
			return nil, err
		}
		yz, err := G.HadamardProd(t.y, t.logit)
		if err != nil {
			return nil, err
		}
		if per, err = G.Sub(sp, yz); err != nil {
			return nil, err
		}
	default:
		p, err := G.Sigmoid(t.logit)
		if err != nil {
			return nil, err
		}
		d, err := G.Sub(p, t.y)
		if err != nil {
			return nil, err
		}
		if per, err = G.Square(d); err != nil {
			return nil, err
		}
	}
	weighted, err := G.HadamardProd(per, t.w)
	if err != nil {
		return nil, err
	}
	if t.loss, err = G.Sum(weighted); err != nil {
		return nil, err
	}
	if _, err := G.Grad(t.loss, t.learnables...); err != nil {
		return nil, err
	}
	t.train = G.NewTapeMachine(g, G.BindDualValues(t.learnables...))
	t.eval = G.NewTapeMachine(g.SubgraphRoots(t.logit))
	return t, nil
}

func (t *trainGraph) close() {
	t.train.Close()
	t.eval.Close()
}

// setRows marks the first n rows as real and the rest as padding.
func (t *trainGraph) setRows(n int) {
	for i := range t.ws {
		t.ws[i] = 0
		if i < n {
			t.ws[i] = 1 / float32(n)
		}
	}
	for i := n * t.inputSize; i < len(t.xs); i++ {
		t.xs[i] = 0
	}
}

// forwardBackward runs the training machine and returns the batch loss.
func (t *trainGraph) forwardBackward() (float64, error) {
	defer t.train.Reset()
	if err := t.train.RunAll(); err != nil {
		return 0, err
	}
	return float64(t.loss.Value().Data().(float32)), nil
}

// forward runs the evaluation machine (no gradients).
func (t *trainGraph) forward() error {
	defer t.eval.Reset()
	return t.eval.RunAll()
}

// logits returns the last run's logits.
func (t *trainGraph) logits() []float32 { return t.logit.Value().Data().([]float32) }

// weights and grads give the learnables' value and gradient buffers, which
// the optimizer updates in place.
func (t *trainGraph) weights(i int) []float32 { return t.learnables[i].Value().Data().([]float32) }

func (t *trainGraph) grads(i int) ([]float32, error) {
	g, err := t.learnables[i].Grad()
	if err != nil {
		return nil, err
	}
	return g.Data().([]float32), nil
}

// sampleLoss is one record's loss as the graph computes it, in float64.
func sampleLoss(loss string, logit, target float32) float64 {
	z, y := float64(logit), float64(target)
	if loss == LossCrossEntropy {
		return softplus(z) - y*z
	}
	d := 1/(1+math.Exp(-z)) - y
	return d * d
}

func softplus(z float64) float64 {
	if z > 30 {
		return z
	}
	return math.Log1p(math.Exp(z))
}
