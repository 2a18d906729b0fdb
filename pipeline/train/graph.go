package train

import (
	"fmt"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/dchess/dchess/models/dcw"
	"github.com/dchess/dchess/models/family"
	"github.com/dchess/dchess/models/nn/ops"
)

// batchLayout is a batch's input and target buffers, row-major, which the
// loop loads with each batch the stream filled and Score reads.
type batchLayout struct {
	batch  int
	widths []int       // values per row of each input
	bufs   [][]float32 // the batch buffers the input nodes read
	ys     []float32   // the target buffer (nil without a target)
}

// stepGraph is what the loop trains and validates with: one graph over the
// whole batch (a *trainGraph, the loop as it always ran) or a parallelGraph
// splitting it across workers.
type stepGraph interface {
	family.Batch
	layout() *batchLayout
	// setRows marks the first n rows as real and the rest as padding.
	setRows(n int)
	// forwardBackward runs forward and backward and returns the batch loss;
	// the gradients it leaves are the whole batch's.
	forwardBackward() (float64, error)
	// forward runs the forward pass only.
	forward() error
	// learnableParams gives the params index of each learnable.
	learnableParams() []int
	// weights and grads give learnable i's value and gradient buffers,
	// which the optimizer updates in place (and zeroes the gradients).
	weights(i int) []float32
	grads(i int) ([]float32, error)
	close()
}

// trainGraph is one stage of an objective's graph for one batch size with
// its loss: the training machine computes gradients, the evaluation machine
// only the forward pass (output and per-row loss) over the same nodes.
type trainGraph struct {
	batchLayout
	inputs     []*G.Node
	target     *G.Node // nil when the objective has no target
	w          *G.Node
	ws         []float32
	output     *G.Node
	perRow     *G.Node
	loss       *G.Node
	learnables []*G.Node
	paramIndex []int // the params index of each learnable
	train      G.VM
	eval       G.VM
}

// newTrainGraph builds stage of the objective from params: per-row losses
// weighted by w, where w is 1/n for the n real rows of a batch and 0 for
// padding, so a short last batch trains exactly on its examples.
func newTrainGraph(o family.Objective, stage int, params []dcw.Tensor, batch int) (*trainGraph, error) {
	return newTrainGraphOn(o, stage, params, batch, nil, nil, 0)
}

// newTrainGraphOn is newTrainGraph with its input and target nodes reading
// the given buffers (each batch rows long) instead of its own, when bufs is
// not nil, and its ops spreading their work over at most cores goroutines
// (0: every core): a worker's share of a parallelGraph's batch and of the
// cores.
func newTrainGraphOn(o family.Objective, stage int, params []dcw.Tensor, batch int, bufs [][]float32, ys []float32, cores int) (*trainGraph, error) {
	g := G.NewGraph()
	t := &trainGraph{batchLayout: batchLayout{batch: batch}}
	for i, shape := range o.InputShapes(batch) {
		width := 1
		for _, d := range shape[1:] {
			width *= d
		}
		var buf []float32
		if bufs != nil {
			buf = bufs[i]
		} else {
			buf = make([]float32, batch*width)
		}
		name := "x"
		if i > 0 {
			name = fmt.Sprintf("x%d", i)
		}
		t.widths = append(t.widths, width)
		t.bufs = append(t.bufs, buf)
		t.inputs = append(t.inputs, G.NewTensor(g, tensor.Float32, len(shape), G.WithShape(shape...), G.WithName(name),
			G.WithValue(tensor.New(tensor.WithShape(shape...), tensor.WithBacking(buf)))))
	}
	if tw := o.TargetWidth(); tw > 0 {
		if t.ys = ys; ys == nil {
			t.ys = make([]float32, batch*tw)
		}
		t.target = G.NewMatrix(g, tensor.Float32, G.WithShape(batch, tw), G.WithName("y"),
			G.WithValue(tensor.New(tensor.WithShape(batch, tw), tensor.WithBacking(t.ys))))
	}
	t.ws = make([]float32, batch)
	t.w = G.NewMatrix(g, tensor.Float32, G.WithShape(batch, 1), G.WithName("w"),
		G.WithValue(tensor.New(tensor.WithShape(batch, 1), tensor.WithBacking(t.ws))))
	parts, err := o.Build(g, stage, t.inputs, t.target, params)
	if err != nil {
		return nil, err
	}
	t.output, t.perRow, t.learnables = parts.Output, parts.PerRow, parts.Learnables
	index := map[string]int{}
	for i, p := range params {
		index[p.Name] = i
	}
	for _, l := range t.learnables {
		i, ok := index[l.Name()]
		if !ok {
			return nil, fmt.Errorf("learnable %s is not one of the parameters", l.Name())
		}
		t.paramIndex = append(t.paramIndex, i)
	}
	weighted, err := G.HadamardProd(t.perRow, t.w)
	if err != nil {
		return nil, err
	}
	if t.loss, err = G.Sum(weighted); err != nil {
		return nil, err
	}
	if _, err := G.Grad(t.loss, t.learnables...); err != nil {
		return nil, err
	}
	if cores > 0 {
		ops.LimitCores(g, cores)
	}
	t.train = G.NewTapeMachine(g, G.BindDualValues(t.learnables...))
	t.eval = G.NewTapeMachine(g.SubgraphRoots(t.output, t.perRow))
	return t, nil
}

func (t *trainGraph) close() {
	t.train.Close()
	t.eval.Close()
}

// setRows marks the first n rows as real and the rest as padding.
func (t *trainGraph) setRows(n int) {
	t.weigh(n, n)
	for k, buf := range t.bufs {
		clear(buf[n*t.widths[k]:])
	}
}

// weigh gives the first real rows the weight 1/n and the rest 0: n is the
// real rows of the whole batch, of which a worker holds real.
func (t *trainGraph) weigh(real, n int) {
	for i := range t.ws {
		t.ws[i] = 0
		if i < real {
			t.ws[i] = 1 / float32(n)
		}
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

func (t *trainGraph) Inputs() [][]float32  { return t.bufs }
func (t *trainGraph) Targets() []float32   { return t.ys }
func (t *trainGraph) Outputs() []float32   { return t.output.Value().Data().([]float32) }
func (t *trainGraph) RowLosses() []float32 { return t.perRow.Value().Data().([]float32) }

func (t *trainGraph) layout() *batchLayout   { return &t.batchLayout }
func (t *trainGraph) learnableParams() []int { return t.paramIndex }

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
