package family

import (
	"context"
	"fmt"
	"math"

	G "gorgonia.org/gorgonia"

	"github.com/dchess/dchess/dataset"
	"github.com/dchess/dchess/models/dcw"
	"github.com/dchess/dchess/models/nn"
	"github.com/dchess/dchess/search"
	"github.com/dchess/dchess/search/player"
)

// Model is what an evaluation family gives the training loop: models/ann.Model
// and models/cnn.Model implement it. (DeepChess's families have objectives
// of their own, in models/deepchess.)
type Model interface {
	// Family names the family ("ann", "cnn"); it is stored in model.dcw.
	Family() string
	// Arch is the architecture as JSON, stored in model.dcw for the loader.
	Arch() ([]byte, error)
	// InputShape is the input node's shape for a batch (batch first).
	InputShape(batch int) []int
	// EncodeRecord writes a labelled record's input into dst (the product
	// of InputShape(1)) and returns its target win probability. The loop
	// encodes records on several goroutines at once (EachEncoded).
	EncodeRecord(r *dataset.Record, dst []float32) (float32, error)
	// InitParams draws initial weights from seed.
	InitParams(seed int64) []dcw.Tensor
	// Build adds the network on x to g with weights params and returns the
	// logit node (batch × 1) and its learnables, in the order of params.
	Build(g *G.ExprGraph, x *G.Node, params []dcw.Tensor) (logit *G.Node, learnables []*G.Node, err error)
}

// NewEvaluator is the registration of an evaluation family whose
// network implements Model: trained on Stockfish's win probabilities with
// evalObjective, reported by sign agreement, played through alpha-beta with
// the weights loaded by load.
func NewEvaluator(name, description string, settings func() any, model func(c *Config) (Model, error),
	load func(path string) (search.Evaluator, error)) Family {
	return Family{
		Name:        name,
		Description: description,
		Data:        "positions labelled by Stockfish (dchess label)",
		NewSettings: settings,
		Validate: func(c *Config) error {
			_, err := model(c)
			return err
		},
		Objective: func(c *Config, _ ObjectiveEnv) (Objective, error) {
			m, err := model(c)
			if err != nil {
				return nil, err
			}
			return &evalObjective{m: m, cfg: c}, nil
		},
		Examples:    func(*Config) (string, bool) { return LabelledPositions, true },
		Accuracy:    AccuracySign,
		Metrics:     EvaluatorMetrics,
		Evaluator:   load,
		Evaluations: EvalStatic,
	}
}

// LabelledPositions are what the evaluators train on.
const LabelledPositions = "positions labelled by Stockfish (`dchess label --stockfish PATH -i DATASET -o LABELLED` makes them)"

// EvaluatorMetrics are the figures every evaluator reports.
var EvaluatorMetrics = []MetricInfo{
	{"train_loss, val_loss", "MSE (or cross-entropy) of the predicted win probability against Stockfish's"},
	{"train_sign_agreement, val_sign_agreement", "share of decisive labels (win probability outside 0.48-0.52) whose side of 0.5 the prediction shares"},
	{"train_within_0_1, val_within_0_1", "share of predictions within 0.1 of Stockfish's win probability"},
}

// evaluatorPlayer makes a player factory for a family whose weights load
// into a search.Evaluator. Each player loads its own copy, and its own
// proposer when proposer= names one, so concurrent games never share an
// evaluator's or a decoder's scratch buffers.
func evaluatorPlayer(load func(path string) (search.Evaluator, error)) player.Factory {
	return func(ctx context.Context, spec player.Spec) (player.Player, error) {
		if err := spec.CheckSettings(player.AlphaBetaSettings...); err != nil {
			return nil, err
		}
		opts, err := player.SearchOptionsFromSpec(spec)
		if err != nil {
			return nil, err
		}
		if opts.Proposer, err = player.ProposerFromSpec(ctx, spec); err != nil {
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

func (o *evalObjective) Family() string        { return o.m.Family() }
func (o *evalObjective) Arch() ([]byte, error) { return o.m.Arch() }
func (o *evalObjective) InitParams(seed int64) ([]dcw.Tensor, error) {
	return o.m.InitParams(seed), nil
}
func (o *evalObjective) Stages() int                   { return 1 }
func (o *evalObjective) InputShapes(batch int) [][]int { return [][]int{o.m.InputShape(batch)} }
func (o *evalObjective) TargetWidth() int              { return 1 }

func (o *evalObjective) Build(g *G.ExprGraph, _ int, inputs []*G.Node, target *G.Node, params []dcw.Tensor) (Net, error) {
	logit, learnables, err := o.m.Build(g, inputs[0], params)
	if err != nil {
		return Net{}, err
	}
	var per *G.Node
	if o.cfg.Loss == LossCrossEntropy {
		per, err = CrossEntropyRows(logit, target)
	} else {
		per, err = sigmoidSquaredRows(logit, target)
	}
	return Net{PerRow: per, Output: logit, Learnables: learnables}, err
}

// evalSlot is one record's encoding: whether it is labelled, and its
// input and target or why it has none.
type evalSlot struct {
	labelled bool
	input    []float32
	target   float32
	err      error
}

func (o *evalObjective) Stream(ctx context.Context, ds *dataset.Dataset, split dataset.Split, order StreamOrder, sink Sink) error {
	width := 1
	for _, d := range o.m.InputShape(1)[1:] {
		width *= d
	}
	return EachEncoded(ctx, ds, split, order, o.cfg,
		func() *evalSlot { return &evalSlot{input: make([]float32, width)} },
		func(r *dataset.Record, s *evalSlot) {
			s.labelled = r.Label != nil && r.Label.Status == dataset.LabelOK
			if s.labelled {
				s.target, s.err = o.m.EncodeRecord(r, s.input)
			}
		},
		func(s *evalSlot) error {
			if !s.labelled {
				return nil
			}
			if s.err != nil {
				sink.Reject()
				return nil
			}
			inputs, target := sink.Row()
			copy(inputs[0], s.input)
			target[0] = s.target
			return sink.Add()
		})
}

func (o *evalObjective) Score(tg Batch, rows int, acc *Tally) {
	logits := tg.Outputs()
	for i := 0; i < rows; i++ {
		acc.Add(SampleLoss(o.cfg.Loss, logits[i], tg.Targets()[i]), nn.Sigmoid(logits[i]), tg.Targets()[i])
	}
}

func (o *evalObjective) EpochSize(man *dataset.Manifest) int64 { return LabelledTrainRecords(man) }

// CrossEntropyRows is -(y log σ(z) + (1-y) log(1-σ(z))) = softplus(z) - y·z
// per row, stable for any z.
func CrossEntropyRows(logit, y *G.Node) (*G.Node, error) {
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

// SampleLoss is one record's loss as the graph computes it, in float64.
func SampleLoss(loss string, logit, target float32) float64 {
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
