// Package pipeline runs dchess's long jobs: the training loop shared by the
// model families, its checkpoints, metrics and plots, and the runs folder.
package pipeline

import (
	"context"
	"fmt"
	"math"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/dchess/dchess/dataset"
	"github.com/dchess/dchess/models/dcw"
	"github.com/dchess/dchess/models/nn"
	"github.com/dchess/dchess/search"
	"github.com/dchess/dchess/search/player"
)

// Model is what an evaluation family gives the training loop: models/ann.Model
// and models/cnn.Model implement it. (DeepChess's families have objectives
// of their own, see train_deepchess.go.)
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

// objective is what one run of the loop optimises: a family's network, the
// loss it is trained with and the examples it is fed. The loop around it
// (Adam, batches, checkpoints, validation, early stopping) is the same for
// every family.
type objective interface {
	family() string
	arch() ([]byte, error)
	initParams(seed int64) ([]dcw.Tensor, error)
	// stages is how many stages are trained one after the other, each for
	// the configured epochs (Pos2Vec's layers); 1 for every other family.
	stages() int
	// inputShapes gives each input node's shape for a batch (batch first);
	// targetWidth the values per row of the target node (0: none).
	inputShapes(batch int) [][]int
	targetWidth() int
	// build adds the network of stage on the input nodes to g with weights
	// params and returns its per-row loss (batch × 1), the output score
	// reads and the learnables, each named like its tensor in params.
	build(g *G.ExprGraph, stage int, inputs []*G.Node, target *G.Node, params []dcw.Tensor) (netParts, error)
	// stream writes a split's examples into sink: shuffled by the config's
	// seed and order.epoch when order.shuffled, else in a fixed order.
	stream(ctx context.Context, ds *dataset.Dataset, split dataset.Split, order streamOrder, sink rowSink) error
	// score adds the first rows of the last run to acc.
	score(tg *trainGraph, rows int, acc *accuracy)
	// epochSize estimates an epoch's examples, for the progress bar.
	epochSize(m *dataset.Manifest) int64
}

type netParts struct {
	perRow     *G.Node
	output     *G.Node
	learnables []*G.Node
}

// streamOrder says how stream orders a split.
type streamOrder struct {
	shuffled bool
	epoch    int
	// streamed, when set, counts the records handed to the objective: the
	// share of an epoch a stopped run got through, whatever rows a record
	// makes.
	streamed *int64
}

// rowSink receives examples one row at a time: row returns the buffers of
// the next row (one slice per input, then the target's), add commits it,
// and reject counts a record that could not be read.
type rowSink interface {
	row() (inputs [][]float32, target []float32)
	add() error
	reject()
}

// trainGraph is one stage of an objective's graph for one batch size with
// its loss: the training machine computes gradients, the evaluation machine
// only the forward pass (output and per-row loss) over the same nodes.
type trainGraph struct {
	batch      int
	widths     []int // values per row of each input
	inputs     []*G.Node
	bufs       [][]float32 // the batch buffers the input nodes read
	target     *G.Node     // nil when the objective has no target
	ys         []float32
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
func newTrainGraph(o objective, stage int, params []dcw.Tensor, batch int) (*trainGraph, error) {
	g := G.NewGraph()
	t := &trainGraph{batch: batch}
	for i, shape := range o.inputShapes(batch) {
		width := 1
		for _, d := range shape[1:] {
			width *= d
		}
		buf := make([]float32, batch*width)
		name := "x"
		if i > 0 {
			name = fmt.Sprintf("x%d", i)
		}
		t.widths = append(t.widths, width)
		t.bufs = append(t.bufs, buf)
		t.inputs = append(t.inputs, G.NewTensor(g, tensor.Float32, len(shape), G.WithShape(shape...), G.WithName(name),
			G.WithValue(tensor.New(tensor.WithShape(shape...), tensor.WithBacking(buf)))))
	}
	if tw := o.targetWidth(); tw > 0 {
		t.ys = make([]float32, batch*tw)
		t.target = G.NewMatrix(g, tensor.Float32, G.WithShape(batch, tw), G.WithName("y"),
			G.WithValue(tensor.New(tensor.WithShape(batch, tw), tensor.WithBacking(t.ys))))
	}
	t.ws = make([]float32, batch)
	t.w = G.NewMatrix(g, tensor.Float32, G.WithShape(batch, 1), G.WithName("w"),
		G.WithValue(tensor.New(tensor.WithShape(batch, 1), tensor.WithBacking(t.ws))))
	parts, err := o.build(g, stage, t.inputs, t.target, params)
	if err != nil {
		return nil, err
	}
	t.output, t.perRow, t.learnables = parts.output, parts.perRow, parts.learnables
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
	for i := range t.ws {
		t.ws[i] = 0
		if i < n {
			t.ws[i] = 1 / float32(n)
		}
	}
	for k, buf := range t.bufs {
		clear(buf[n*t.widths[k]:])
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

// outputs returns the last run's output values, row-major.
func (t *trainGraph) outputs() []float32 { return t.output.Value().Data().([]float32) }

// rowLosses returns the last run's per-row losses.
func (t *trainGraph) rowLosses() []float32 { return t.perRow.Value().Data().([]float32) }

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

// evaluatorFamily is the registration of an evaluation family whose
// network implements Model: trained on Stockfish's win probabilities with
// evalObjective, reported by sign agreement, played through alpha-beta with
// the weights loaded by load.
func evaluatorFamily(name, description string, settings func() any, model func(c *Config) (Model, error),
	load func(path string) (search.Evaluator, error), reference string) Family {
	return Family{
		Name:        name,
		Description: description,
		Data:        "positions labelled by Stockfish (dchess label)",
		NewSettings: settings,
		Validate: func(c *Config) error {
			_, err := model(c)
			return err
		},
		Objective: func(c *Config, _ ObjectiveEnv) (objective, error) {
			m, err := model(c)
			if err != nil {
				return nil, err
			}
			return &evalObjective{m: m, cfg: c}, nil
		},
		Examples:    func(*Config) (string, bool) { return labelledPositions, true },
		Accuracy:    AccuracySign,
		Reference:   reference,
		Metrics:     evaluatorMetrics,
		Evaluator:   load,
		Evaluations: EvalStatic,
	}
}

// labelledPositions are what the evaluators train on.
const labelledPositions = "positions labelled by Stockfish (`dchess label --stockfish PATH -i DATASET -o LABELLED` makes them)"

// evaluatorMetrics are the figures every evaluator reports.
var evaluatorMetrics = []MetricInfo{
	{"train_loss, val_loss", "MSE (or cross-entropy) of the predicted win probability against Stockfish's"},
	{"train_sign_agreement, val_sign_agreement", "share of decisive labels (win probability outside 0.48-0.52) whose side of 0.5 the prediction shares"},
	{"train_within_0_1, val_within_0_1", "share of predictions within 0.1 of Stockfish's win probability"},
}

// evaluatorPlayer makes a player factory for a family whose weights load
// into a search.Evaluator. Each player loads its own copy, so concurrent
// games never share an evaluator's scratch buffers.
func evaluatorPlayer(load func(path string) (search.Evaluator, error)) player.Factory {
	return func(_ context.Context, spec player.Spec) (player.Player, error) {
		if err := spec.CheckSettings(player.SearchSettings...); err != nil {
			return nil, err
		}
		opts, err := player.SearchOptionsFromSpec(spec)
		if err != nil {
			return nil, err
		}
		eval, err := load(spec.Path)
		if err != nil {
			return nil, fmt.Errorf("player %s: %w", spec.Family, err)
		}
		return player.SearchPlayer(spec.DisplayName(), eval, opts), nil
	}
}

// evalObjective trains an evaluation family (ann, cnn) on Stockfish's win
// probabilities: one labelled record per row, MSE or cross-entropy on the
// sigmoid of the logit.
type evalObjective struct {
	m   Model
	cfg *Config
}

func (o *evalObjective) family() string        { return o.m.Family() }
func (o *evalObjective) arch() ([]byte, error) { return o.m.Arch() }
func (o *evalObjective) initParams(seed int64) ([]dcw.Tensor, error) {
	return o.m.InitParams(seed), nil
}
func (o *evalObjective) stages() int                   { return 1 }
func (o *evalObjective) inputShapes(batch int) [][]int { return [][]int{o.m.InputShape(batch)} }
func (o *evalObjective) targetWidth() int              { return 1 }

func (o *evalObjective) build(g *G.ExprGraph, _ int, inputs []*G.Node, target *G.Node, params []dcw.Tensor) (netParts, error) {
	logit, learnables, err := o.m.Build(g, inputs[0], params)
	if err != nil {
		return netParts{}, err
	}
	var per *G.Node
	if o.cfg.Loss == LossCrossEntropy {
		per, err = crossEntropyRows(logit, target)
	} else {
		per, err = sigmoidSquaredRows(logit, target)
	}
	return netParts{perRow: per, output: logit, learnables: learnables}, err
}

func (o *evalObjective) stream(ctx context.Context, ds *dataset.Dataset, split dataset.Split, order streamOrder, sink rowSink) error {
	each := func(r *dataset.Record) error {
		if r.Label == nil || r.Label.Status != dataset.LabelOK {
			return nil
		}
		inputs, target := sink.row()
		y, err := o.m.EncodeRecord(r, inputs[0])
		if err != nil {
			sink.reject()
			return nil
		}
		target[0] = y
		return sink.add()
	}
	return eachRecord(ctx, ds, split, order, o.cfg, each)
}

func (o *evalObjective) score(tg *trainGraph, rows int, acc *accuracy) {
	logits := tg.outputs()
	for i := 0; i < rows; i++ {
		acc.add(sampleLoss(o.cfg.Loss, logits[i], tg.ys[i]), nn.Sigmoid(logits[i]), tg.ys[i])
	}
}

func (o *evalObjective) epochSize(man *dataset.Manifest) int64 { return labelledTrainRecords(man) }

// labelledTrainRecords estimates the labelled records of the train split.
func labelledTrainRecords(man *dataset.Manifest) int64 {
	if man.Split != nil && man.Counts.Records > 0 {
		return man.Split.Records.Train * man.Counts.Labelled / man.Counts.Records
	}
	return man.Counts.Labelled
}

// crossEntropyRows is -(y log σ(z) + (1-y) log(1-σ(z))) = softplus(z) - y·z
// per row, stable for any z.
func crossEntropyRows(logit, y *G.Node) (*G.Node, error) {
	sp, err := G.Softplus(logit)
	if err != nil {
		return nil, err
	}
	yz, err := G.HadamardProd(y, logit)
	if err != nil {
		return nil, err
	}
	return G.Sub(sp, yz)
}

// sigmoidSquaredRows is (σ(z) - y)² per row.
func sigmoidSquaredRows(logit, y *G.Node) (*G.Node, error) {
	p, err := G.Sigmoid(logit)
	if err != nil {
		return nil, err
	}
	d, err := G.Sub(p, y)
	if err != nil {
		return nil, err
	}
	return G.Square(d)
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
