package deepchess

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/dchess/dchess/dataset"
	"github.com/dchess/dchess/internal/chess/board"
	"github.com/dchess/dchess/internal/chess/pgn"
	"github.com/dchess/dchess/models/dcw"
	"github.com/dchess/dchess/models/family"
	"github.com/dchess/dchess/models/nn"
)

// positionFilter picks the positions DeepChess trains on.
type positionFilter struct {
	minPly       int
	skipCaptures bool
}

func newPositionFilter(c family.DataConfig) positionFilter {
	return positionFilter{minPly: c.MinPly, skipCaptures: c.SkipCaptures}
}

// accept packs r's position when DeepChess trains on it: from a game White
// or Black won, at ply minPly or later and, with skipCaptures, not one whose
// played move is a capture (a record without its move cannot tell, and is
// left out). err reports a record that cannot be read.
func (f positionFilter) accept(r *dataset.Record) (Packed, bool, error) {
	if (r.Result != pgn.WhiteWin && r.Result != pgn.BlackWin) || int(r.Ply) < f.minPly {
		return Packed{}, false, nil
	}
	if f.skipCaptures && r.Move == "" {
		return Packed{}, false, nil
	}
	b, err := board.FromFEN(r.FEN)
	if err != nil {
		return Packed{}, false, err
	}
	if f.skipCaptures {
		m, err := b.ParseUCI(r.Move)
		if err != nil {
			return Packed{}, false, err
		}
		if b.IsCapture(m) {
			return Packed{}, false, nil
		}
	}
	return Pack(b), true, nil
}

// positionSlot is one record as the filter read it: its packed position
// when kept, or that it was left out or cannot be read.
type positionSlot struct {
	pos      PairPosition
	whiteWon bool
	kept     bool
	failed   bool
}

// eachPosition streams split's records as EachEncoded does, their
// positions parsed and filtered on every core, and hands fn each kept
// position in stream order; reject is called, in its place, for each
// record that cannot be read.
func eachPosition(ctx context.Context, ds *dataset.Dataset, split dataset.Split, order family.StreamOrder, cfg *family.Config,
	filter positionFilter, reject func(), fn func(pos PairPosition, whiteWon bool) error) error {
	return family.EachEncoded(ctx, ds, split, order, cfg,
		func() *positionSlot { return &positionSlot{} },
		func(r *dataset.Record, s *positionSlot) {
			p, ok, err := filter.accept(r)
			s.kept, s.failed = ok, err != nil
			s.pos, s.whiteWon = PairPosition{Packed: p, FEN: r.FEN}, r.Result == pgn.WhiteWin
		},
		func(s *positionSlot) error {
			if s.failed {
				reject()
				return nil
			}
			if !s.kept {
				return nil
			}
			return fn(s.pos, s.whiteWon)
		})
}

// autoencoderObjective trains Pos2Vec layer by layer: stage k is layer k's
// own autoencoder, trained on its reconstruction error (mean squared error
// per value) with the layers below it fixed.
type autoencoderObjective struct {
	m      *Autoencoder
	cfg    *family.Config
	filter positionFilter
}

func (o *autoencoderObjective) Family() string        { return AutoencoderFamily }
func (o *autoencoderObjective) Arch() ([]byte, error) { return o.m.Arch() }
func (o *autoencoderObjective) InitParams(seed int64) ([]dcw.Tensor, error) {
	return o.m.InitParams(seed), nil
}
func (o *autoencoderObjective) Stages() int { return o.m.Stages() }
func (o *autoencoderObjective) InputShapes(batch int) [][]int {
	return [][]int{{batch, InputSize}}
}
func (o *autoencoderObjective) TargetWidth() int { return 0 }

func (o *autoencoderObjective) Build(g *G.ExprGraph, stage int, inputs []*G.Node, _ *G.Node, params []dcw.Tensor) (family.Net, error) {
	recon, target, learnables, err := o.m.BuildStage(g, inputs[0], params, stage)
	if err != nil {
		return family.Net{}, err
	}
	per, err := meanSquaredRows(g, recon, target)
	return family.Net{PerRow: per, Output: recon, Learnables: learnables}, err
}

func (o *autoencoderObjective) Stream(ctx context.Context, ds *dataset.Dataset, split dataset.Split, order family.StreamOrder, sink family.Sink) error {
	return eachPosition(ctx, ds, split, order, o.cfg, o.filter, sink.Reject, func(pos PairPosition, _ bool) error {
		inputs, _ := sink.Row()
		pos.Packed.Unpack(inputs[0])
		return sink.Add()
	})
}

func (o *autoencoderObjective) Score(tg family.Batch, rows int, acc *family.Tally) {
	for _, l := range tg.RowLosses()[:rows] {
		acc.AddLoss(float64(l))
	}
}

func (o *autoencoderObjective) EpochSize(man *dataset.Manifest) int64 {
	return family.TrainRecords(man)
}

// meanSquaredRows is the mean of (a - b)² over each row, as batch × 1: the
// squares times a column of 1/width.
func meanSquaredRows(g *G.ExprGraph, a, b *G.Node) (*G.Node, error) {
	d, err := G.Sub(a, b)
	if err != nil {
		return nil, err
	}
	sq, err := G.Square(d)
	if err != nil {
		return nil, err
	}
	width := a.Shape()[1]
	col := make([]float32, width)
	for i := range col {
		col[i] = 1 / float32(width)
	}
	mean := G.NewMatrix(g, tensor.Float32, G.WithShape(width, 1), G.WithName(fmt.Sprintf("mean%d", width)),
		G.WithValue(tensor.New(tensor.WithShape(width, 1), tensor.WithBacking(col))))
	return G.Mul(sq, mean)
}

// siameseObjective trains the comparator on pairs: a position from a game
// White won and one from a game Black won, in random order, labelled 1 when
// the first is the White win (better for White). Each epoch pairs the
// split's shuffled positions afresh, so the pairs are new every epoch, and
// validation pairs come only from validation games.
type siameseObjective struct {
	m      *Siamese
	cfg    *family.Config
	filter positionFilter
	// init holds the autoencoder the towers start from (nil on resume,
	// when the checkpoint holds every weight).
	init    *dcw.File
	initCfg AutoencoderConfig
}

func (o *siameseObjective) Family() string        { return SiameseFamily }
func (o *siameseObjective) Arch() ([]byte, error) { return o.m.Arch() }
func (o *siameseObjective) InitParams(seed int64) ([]dcw.Tensor, error) {
	if o.init == nil {
		return o.m.InitParams(seed), nil
	}
	return o.m.InitFrom(o.init, o.initCfg, seed)
}
func (o *siameseObjective) Stages() int { return 1 }
func (o *siameseObjective) InputShapes(batch int) [][]int {
	return [][]int{{batch, InputSize}, {batch, InputSize}}
}
func (o *siameseObjective) TargetWidth() int { return 1 }

// build ends in the two softmax logits; with two classes softmax
// cross-entropy is the sigmoid cross-entropy of their difference z0 - z1,
// which is also the logit of "the first is better".
func (o *siameseObjective) Build(g *G.ExprGraph, _ int, inputs []*G.Node, target *G.Node, params []dcw.Tensor) (family.Net, error) {
	logits, learnables, err := o.m.Build(g, inputs[0], inputs[1], params)
	if err != nil {
		return family.Net{}, err
	}
	diff := G.NewMatrix(g, tensor.Float32, G.WithShape(2, 1), G.WithName("softmax2"),
		G.WithValue(tensor.New(tensor.WithShape(2, 1), tensor.WithBacking([]float32{1, -1}))))
	z, err := G.Mul(logits, diff)
	if err != nil {
		return family.Net{}, err
	}
	per, err := family.CrossEntropyRows(z, target)
	return family.Net{PerRow: per, Output: z, Learnables: learnables}, err
}

func (o *siameseObjective) Stream(ctx context.Context, ds *dataset.Dataset, split dataset.Split, order family.StreamOrder, sink family.Sink) error {
	return pairPositions(ctx, ds, split, order, o.cfg, o.filter, sink.Reject, func(first, second *PairPosition, whiteFirst bool) error {
		inputs, target := sink.Row()
		first.Packed.Unpack(inputs[0])
		second.Packed.Unpack(inputs[1])
		target[0] = 0
		if whiteFirst {
			target[0] = 1
		}
		return sink.Add()
	})
}

// PairPosition is one side of a DeepChess pair: the network's input and
// the position itself, for comparators that search it. FEN is empty for a
// mirrored training position, which only the network reads.
type PairPosition struct {
	Packed Packed
	FEN    string
}

// pairPositions pairs split's positions as DeepChess trains on them: each
// position from a game White won with the next from a game Black won, in
// random order (whiteFirst says which came first). A shuffled epoch pairs
// afresh (mirrored as the config asks); otherwise the pairs are the fixed
// ones validation uses. reject counts a record that cannot be read.
func pairPositions(ctx context.Context, ds *dataset.Dataset, split dataset.Split, order family.StreamOrder, cfg *family.Config,
	filter positionFilter, reject func(), emit func(first, second *PairPosition, whiteFirst bool) error) error {
	mirror := cfg.Data.MirrorPairs && order.Shuffled // never the validation pairs
	if !order.Shuffled {
		// Validation pairs are drawn from a fixed shuffle, not stored
		// order, where neighbouring positions come from one game.
		order = family.StreamOrder{Shuffled: true, Epoch: family.ValidationEpoch}
	}
	rng := rand.New(rand.NewPCG(uint64(cfg.Seed), uint64(int64(order.Epoch))^0x7061697273))
	// Positions wait here for a partner from a game of the other result.
	// A queue at its limit (a stretch of one result) drops newcomers.
	var white, black []PairPosition
	limit := cfg.Data.ShuffleBuffer
	return eachPosition(ctx, ds, split, order, cfg, filter, reject, func(pos PairPosition, whiteWon bool) error {
		if mirror && rng.IntN(2) == 0 {
			pos = PairPosition{Packed: pos.Packed.Mirror()} // training only: no FEN to mirror
			whiteWon = !whiteWon
		}
		queue := &white
		if !whiteWon {
			queue = &black
		}
		if len(*queue) >= limit {
			return nil
		}
		*queue = append(*queue, pos)
		if len(white) == 0 || len(black) == 0 {
			return nil
		}
		w, b := white[0], black[0]
		white, black = white[1:], black[1:]
		if rng.IntN(2) == 0 {
			return emit(&w, &b, true)
		}
		return emit(&b, &w, false)
	})
}

// ComparisonPairs streams the pairs a DeepChess comparator is scored on
// from split: the fixed pairs training validates on (cfg's data filters,
// shuffle buffer and seed), so a test split's figure reads like the
// validation one. fn gets each pair and whether the first is the White win;
// reject is called for each record that cannot be read.
func ComparisonPairs(ctx context.Context, ds *dataset.Dataset, split dataset.Split, cfg *family.Config, reject func(),
	fn func(first, second *PairPosition, whiteFirst bool) error) error {
	return pairPositions(ctx, ds, split, family.StreamOrder{}, cfg, newPositionFilter(cfg.Data), reject, fn)
}

func (o *siameseObjective) Score(tg family.Batch, rows int, acc *family.Tally) {
	z := tg.Outputs()
	for i := 0; i < rows; i++ {
		acc.Add(family.SampleLoss(family.LossCrossEntropy, z[i], tg.Targets()[i]), nn.Sigmoid(z[i]), tg.Targets()[i])
	}
}

// epochSize is at most one pair per two positions.
func (o *siameseObjective) EpochSize(man *dataset.Manifest) int64 {
	return family.TrainRecords(man) / 2
}

// autoencoderWeights finds the model.dcw a siamese run starts from: init
// names a run folder or a weights file; "" means the newest autoencoder
// run under runsDir.
func autoencoderWeights(init, runsDir string) (string, error) {
	if init == "" {
		path, err := family.NewestWeights(runsDir, AutoencoderFamily)
		if err != nil {
			return "", fmt.Errorf("siamese: the towers start from a trained autoencoder, and %w; or name a run with --init RUNDIR", err)
		}
		return path, nil
	}
	st, err := os.Stat(init)
	if err != nil {
		return "", fmt.Errorf("siamese: --init %s: %w", init, err)
	}
	if !st.IsDir() {
		return init, nil
	}
	path := filepath.Join(init, family.ModelFile)
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("siamese: --init %s holds no %s (an unfinished run? `dchess export %s` writes it)", init, family.ModelFile, init)
	}
	return path, nil
}
