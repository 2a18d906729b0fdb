package sequence

import (
	"context"
	"math/rand/v2"

	G "gorgonia.org/gorgonia"

	"github.com/dchess/dchess/dataset"
	"github.com/dchess/dchess/dataset/encode"
	"github.com/dchess/dchess/internal/chess/board"
	"github.com/dchess/dchess/models/dcw"
	"github.com/dchess/dchess/models/family"
	"github.com/dchess/dchess/models/transformer"
)

// objective trains a sequence family (diffusion, its one-step
// policy, flow) on action-state-action sequences: each record's line
// (Stockfish's PV or the game's moves) is encoded, corrupted as the
// family's process does at a random time, and the loss is the family's
// weighted cross-entropy of the corrupted tokens. With legal_mask each
// row also carries the legal moves of the record's position, the only
// moves a_i's cross-entropy is taken over.
type objective struct {
	m   Model
	cfg *family.Config
}

// Trainer is a sequence family's objective, which also shows the
// network it trains (a benchmark fills batches as the objective does).
type Trainer interface {
	family.Objective
	Model() Model
}

// Model is the network the objective trains.
func (o *objective) Model() Model { return o.m }

// NewObjective is the objective of a sequence family whose
// network is m, trained with cfg.
func NewObjective(m Model, cfg *family.Config) Trainer {
	return &objective{m: m, cfg: cfg}
}

// Model is what the objective needs of a sequence family's
// network: the transformer's training graph, and how one sequence is
// corrupted and written into a row of the batch buffers.
type Model interface {
	Arch() ([]byte, error)
	InitParams(seed int64) []dcw.Tensor
	InputShapes(batch int) [][]int
	Build(g *G.ExprGraph, inputs []*G.Node, params []dcw.Tensor) (transformer.Outputs, error)
	Transformer() transformer.Arch
	Target() string
	// corrupt draws the corruption of seq and writes the row.
	Corrupt(rng *rand.Rand, seq []int16, rows [][]float32)
	// EncodeLegal writes a_i's legal-move mask into the row (legal_mask
	// only; nothing otherwise).
	EncodeLegal(legal []int, rows [][]float32)
}

func (o *objective) Family() string        { return o.cfg.Model.Family }
func (o *objective) Arch() ([]byte, error) { return o.m.Arch() }
func (o *objective) InitParams(seed int64) ([]dcw.Tensor, error) {
	return o.m.InitParams(seed), nil
}
func (o *objective) Stages() int                   { return 1 }
func (o *objective) InputShapes(batch int) [][]int { return o.m.InputShapes(batch) }
func (o *objective) TargetWidth() int              { return 0 }

func (o *objective) Build(g *G.ExprGraph, _ int, inputs []*G.Node, _ *G.Node, params []dcw.Tensor) (family.Net, error) {
	out, err := o.m.Build(g, inputs, params)
	if err != nil {
		return family.Net{}, err
	}
	return family.Net{PerRow: out.PerRow, Output: out.ActionLogits, Learnables: out.Learnables}, nil
}

// Targets: the line a sequence follows is Stockfish's principal variation
// (label --pv) or the moves played in the game (ingest's Record.Next).
const (
	TargetPV   = "pv"
	TargetGame = "game"
)

// RecordLine is the line a record's sequence follows: Stockfish's
// principal variation (its best move when it gave no PV) for target pv,
// the played move and the moves after it for target game. nil means the
// record has no line.
func RecordLine(r *dataset.Record, target string) []string {
	if target == TargetGame {
		if r.Move == "" {
			return nil
		}
		return append([]string{r.Move}, r.Next...)
	}
	if r.Label == nil || r.Label.Status != dataset.LabelOK {
		return nil
	}
	if len(r.Label.PV) > 0 {
		return r.Label.PV
	}
	if r.Label.BestMove != "" {
		return []string{r.Label.BestMove}
	}
	return nil
}

// maskSeed separates the masking draws from the shuffle's.
const maskSeed = 0x6d61736b

// sequenceSlot is one record's encoding: its sequence and a_i's legal
// moves, or that it has no line or cannot be read.
type sequenceSlot struct {
	line, failed bool
	seq          []int16
	legal        []int
}

func (o *objective) Stream(ctx context.Context, ds *dataset.Dataset, split dataset.Split, order family.StreamOrder, sink family.Sink) error {
	tr, target := o.m.Transformer(), o.m.Target()
	epoch := order.Epoch
	if !order.Shuffled {
		epoch = family.ValidationEpoch // the same masks every validation
	}
	// One generator per epoch, drawn once per streamed example: a resumed
	// epoch replays the skipped examples' draws and masks the rest alike.
	// Its draws are emit's, in stream order.
	rng := rand.New(rand.NewPCG(uint64(o.cfg.Seed)^maskSeed, uint64(int64(epoch))))
	encodeRecord := func(r *dataset.Record, s *sequenceSlot) {
		line := RecordLine(r, target)
		s.line, s.failed, s.legal = len(line) > 0, true, nil // failed until the sequence is written
		if !s.line {
			return
		}
		b, err := board.FromFEN(r.FEN)
		if err != nil {
			return
		}
		if _, err := encode.Sequence(b, line, tr.Horizon, s.seq); err != nil {
			return
		}
		if tr.LegalMask {
			if _, s.legal, err = transformer.LegalActions(b); err != nil {
				return
			}
		}
		s.failed = false
	}
	emit := func(s *sequenceSlot) error {
		if !s.line {
			return nil
		}
		if s.failed {
			sink.Reject()
			return nil
		}
		rows, _ := sink.Row()
		o.m.Corrupt(rng, s.seq, rows)
		o.m.EncodeLegal(s.legal, rows)
		return sink.Add()
	}
	return family.EachEncoded(ctx, ds, split, order, o.cfg,
		func() *sequenceSlot { return &sequenceSlot{seq: make([]int16, tr.SeqLen())} }, encodeRecord, emit)
}

// score counts the rows whose a_i was masked: predicted (argmax over the
// whole vocabulary, the legal moves with legal_mask) is 1 when it is the
// target move, so the sign agreement the loop reports is the action
// Tally on those rows.
func (o *objective) Score(tg family.Batch, rows int, acc *family.Tally) {
	c := o.m.Transformer()
	logits := tg.Outputs()
	losses := tg.RowLosses()
	weights, targets := tg.Inputs()[4], tg.Inputs()[5]
	L, h := c.SeqLen(), c.Horizon
	for i := 0; i < rows; i++ {
		if weights[i*L+c.StateSlots()] == 0 {
			acc.AddLoss(float64(losses[i]))
			continue
		}
		lp := logits[i*h*encode.ActionVocab : (i*h+1)*encode.ActionVocab]
		best := 0
		for j, v := range lp {
			if v > lp[best] {
				best = j
			}
		}
		var correct float32
		if best == int(targets[i]) {
			correct = 1
		}
		acc.Add(float64(losses[i]), correct, 1)
	}
}

func (o *objective) EpochSize(man *dataset.Manifest) int64 {
	if man.Split != nil && man.Counts.Records > 0 {
		return man.Split.Records.Train * max(man.Counts.Labelled, 1) / man.Counts.Records
	}
	return man.Counts.Records
}
