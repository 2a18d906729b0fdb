package nnue

import (
	"context"
	"fmt"

	G "gorgonia.org/gorgonia"

	"github.com/dchess/dchess/dataset"
	"github.com/dchess/dchess/models/dcw"
	"github.com/dchess/dchess/models/family"
	"github.com/dchess/dchess/models/nn"
	"github.com/dchess/dchess/search"
)

// An efficiently updatable network (docs/nnue.md): sparse (colour, piece,
// square) features of both sides' views through a shared feature
// transformer, trained on Stockfish's win probability over quiet
// positions, played by the alpha-beta with its accumulators updated move
// by move.
//
// Register adds it to the family registry and its player to the
// player registry; cmd/dchess calls it through families.RegisterAll.
func Register() {
	family.MustRegister(family.Family{
		Name:        Family,
		Description: "an efficiently updatable network: 768 features x 2 views -> N -> dense -> centipawns, searched incrementally",
		Data:        "positions labelled by Stockfish (dchess label), quiet ones by default",
		FirstRun:    "dchess train --model nnue --data DATASET --config configs/nnue-small.yaml --max-steps 2000",
		NewSettings: func() any { c := DefaultConfig(); return &c },
		Defaults: func(c *family.Config) {
			// Many small steps over many positions, as nnue-pytorch trains,
			// annealed: with a constant rate the validation loss jumped
			// between epochs and settled higher
			// (docs/results/2026-11-26-nnue-third-round-cosine.md). The
			// length is the shipped network's passes over its quiet train
			// positions (docs/results/2026-11-29-nnue-ten-chunk-ship.md).
			o := &c.Optimizer
			o.Schedule, o.DecaySteps, o.MinLRRatio = family.ScheduleCosine, 65000, 0.01
			c.BatchSize, c.Epochs, c.MaxSteps, c.Patience = 1024, 100, 65000, 6
		},
		Validate: func(c *family.Config) error {
			if c.Loss != family.LossMSE {
				return fmt.Errorf("nnue is trained on the squared error of its win probability: loss must be mse, not %q", c.Loss)
			}
			return c.Model.Settings.(*Config).Validate()
		},
		Objective: func(c *family.Config, _ family.ObjectiveEnv) (family.Objective, error) {
			m, err := NewModel(*c.Model.Settings.(*Config))
			if err != nil {
				return nil, err
			}
			return &nnueObjective{m: m, cfg: c}, nil
		},
		Examples: func(c *family.Config) (string, bool) {
			nc := c.Model.Settings.(*Config)
			what := family.LabelledPositions
			if nc.QuietOnly {
				what += ", quiet ones (not in check, the best move not a capture: model.quiet_only)"
			}
			if nc.Lambda < 1 {
				what += ", from games whose result is known (model.lambda below 1 blends it in)"
			}
			return what, true
		},
		Bounds: family.MergeBounds(family.LayerBounds("hidden", 1024), family.Bounds{
			"accumulator":    {Min: 16, Max: 4096},
			"children":       {Min: 0, Max: 16},
			"child_plies":    {Min: 0, Max: 16},
			"output_buckets": {Min: 0, Max: Slots},
		}),
		// The feature transformer and the dense layers; per example both
		// views' active features, the targets, both accumulators and the
		// dense layers' values.
		Size: func(c *family.Config) family.ModelSize {
			nc := c.Model.Settings.(*Config)
			inputs := 2*Slots + 2
			if b := nc.buckets(); b > 1 {
				inputs += b
			}
			dense := family.DenseSize(nc.widths())
			return family.ModelSize{Params: int64(Features+1)*int64(nc.Accumulator) + dense.Params,
				Values: int64(inputs+2*nc.Accumulator) + dense.Values}
		},
		Accuracy: family.AccuracySign,
		Metrics: append([]family.MetricInfo{{Name: "train_loss, val_loss",
			Meaning: "(sigmoid(score/scale) - target)^2, target = lambda x Stockfish's win probability + (1 - lambda) x the game's result"}},
			family.EvaluatorMetrics[1:]...),
		Evaluator:   func(path string) (search.Evaluator, error) { return Load(path) },
		Evaluations: family.EvalStatic,
	})
}

// nnueObjective trains the network on one labelled position a row; the
// sign agreement it reports is against the blended target.
type nnueObjective struct {
	m   *Model
	cfg *family.Config
}

func (o *nnueObjective) Family() string        { return Family }
func (o *nnueObjective) Arch() ([]byte, error) { return o.m.Arch() }
func (o *nnueObjective) InitParams(seed int64) ([]dcw.Tensor, error) {
	return o.m.InitParams(seed), nil
}
func (o *nnueObjective) Stages() int                   { return 1 }
func (o *nnueObjective) InputShapes(batch int) [][]int { return o.m.InputShapes(batch) }
func (o *nnueObjective) TargetWidth() int              { return 0 }

func (o *nnueObjective) Build(g *G.ExprGraph, _ int, inputs []*G.Node, _ *G.Node, params []dcw.Tensor) (family.Net, error) {
	out, err := o.m.Build(g, inputs, params)
	if err != nil {
		return family.Net{}, err
	}
	return family.Net{PerRow: out.PerRow, Output: out.Logit, Learnables: out.Learnables}, nil
}

// nnueSlot is one record's rows, encoded: the record itself, then its
// lines' positions ply by ply, each used or not, up to the one whose
// encoding failed.
type nnueSlot struct {
	rows   [][][]float32 // one slice per input of each row
	used   []bool
	failed int  // the row that could not be read (-1: none)
	mirror bool // each used row is followed by its mirror
}

func (o *nnueObjective) Stream(ctx context.Context, ds *dataset.Dataset, split dataset.Split, order family.StreamOrder, sink family.Sink) error {
	// Children train only: validation stays the labelled positions alone,
	// comparable between configs.
	children, plies := 0, 1
	if split == dataset.Train {
		children, plies = o.m.Config().Children, o.m.Config().LinePlies()
	}
	shapes := o.m.InputShapes(1)
	newSlot := func() *nnueSlot {
		s := &nnueSlot{rows: make([][][]float32, 1+children*plies), used: make([]bool, 1+children*plies)}
		for i := range s.rows {
			for _, shape := range shapes {
				s.rows[i] = append(s.rows[i], make([]float32, shape[1]))
			}
		}
		return s
	}
	encode := func(r *dataset.Record, s *nnueSlot) {
		s.mirror = split == dataset.Train && o.m.Mirrorable(r)
		s.failed, _ = o.m.EncodeRecord(r, children, plies, s.rows, s.used)
	}
	emit := func(s *nnueSlot) error {
		for i, rows := range s.rows {
			if i == s.failed {
				sink.Reject()
				return nil
			}
			if !s.used[i] {
				continue
			}
			dst, _ := sink.Row()
			for k := range rows {
				copy(dst[k], rows[k])
			}
			if err := sink.Add(); err != nil {
				return err
			}
			if s.mirror {
				dst, _ := sink.Row()
				MirrorRow(rows, dst)
				if err := sink.Add(); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return family.EachEncoded(ctx, ds, split, order, o.cfg, newSlot, encode, emit)
}

func (o *nnueObjective) Score(tg family.Batch, rows int, acc *family.Tally) {
	logits, losses := tg.Outputs(), tg.RowLosses()
	lambda := float32(o.m.Config().Lambda)
	win, result := tg.Inputs()[InputWinProb], tg.Inputs()[InputResult]
	for i := 0; i < rows; i++ {
		target := lambda*win[i] + (1-lambda)*result[i]
		acc.Add(float64(losses[i]), nn.Sigmoid(logits[i]), target)
	}
}

// epochSize is at most this many rows: every record and its children, and
// with Mirror their mirrors.
func (o *nnueObjective) EpochSize(man *dataset.Manifest) int64 {
	rows := family.LabelledTrainRecords(man) * int64(1+o.m.Config().Children*o.m.Config().LinePlies())
	if o.m.Config().Mirror {
		rows *= 2
	}
	return rows
}
