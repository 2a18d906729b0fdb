package nn

import (
	"fmt"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/dchess/dchess/models/dcw"
)

// Param adds a learnable node holding a copy of t's data, shaped as shape
// (which must have t's size: a bias of shape [n] becomes a 1×n matrix so it
// broadcasts over the batch).
func Param(g *G.ExprGraph, t dcw.Tensor, shape ...int) (*G.Node, error) {
	n := 1
	for _, d := range shape {
		n *= d
	}
	if n != len(t.Data) {
		return nil, fmt.Errorf("parameter %s: %d values cannot take shape %v", t.Name, len(t.Data), shape)
	}
	value := tensor.New(tensor.WithShape(shape...), tensor.WithBacking(append([]float32(nil), t.Data...)))
	return G.NewTensor(g, tensor.Float32, len(shape), G.WithShape(shape...), G.WithValue(value), G.WithName(t.Name)), nil
}

// DenseGraph is x·w + b for x (batch × in), w (in × out) and b (1 × out).
func DenseGraph(x, w, b *G.Node) (*G.Node, error) {
	xw, err := G.Mul(x, w)
	if err != nil {
		return nil, err
	}
	return G.BroadcastAdd(xw, b, nil, []byte{0})
}

// ActivateGraph applies the named activation to x.
func ActivateGraph(name string, x *G.Node) (*G.Node, error) {
	switch name {
	case ActReLU:
		return G.Rectify(x)
	case ActTanh:
		return G.Tanh(x)
	case ActSigmoid:
		return G.Sigmoid(x)
	}
	return nil, ValidActivation(name)
}

// Find returns the tensor called name in params.
func Find(params []dcw.Tensor, name string) (dcw.Tensor, error) {
	for _, p := range params {
		if p.Name == name {
			return p, nil
		}
	}
	return dcw.Tensor{}, fmt.Errorf("parameter %s is missing", name)
}

// DenseStackGraph adds fully connected layers widths[0] → ... → widths[n]
// on h, named by name(i) with ".w" and ".b" tensors from params, the
// activation after every layer but the last. It returns the output and
// the layers' learnables (w, b per layer).
func DenseStackGraph(g *G.ExprGraph, h *G.Node, params []dcw.Tensor, widths []int, name func(int) string, activation string) (*G.Node, []*G.Node, error) {
	var learnables []*G.Node
	for i := 0; i+1 < len(widths); i++ {
		wt, err := Find(params, name(i)+".w")
		if err != nil {
			return nil, nil, err
		}
		bt, err := Find(params, name(i)+".b")
		if err != nil {
			return nil, nil, err
		}
		w, err := Param(g, wt, widths[i], widths[i+1])
		if err != nil {
			return nil, nil, err
		}
		b, err := Param(g, bt, 1, widths[i+1])
		if err != nil {
			return nil, nil, err
		}
		learnables = append(learnables, w, b)
		if h, err = DenseGraph(h, w, b); err != nil {
			return nil, nil, fmt.Errorf("layer %s: %w", name(i), err)
		}
		if i+2 < len(widths) {
			if h, err = ActivateGraph(activation, h); err != nil {
				return nil, nil, err
			}
		}
	}
	return h, learnables, nil
}
