package train

import (
	"context"
	"maps"
	"math/bits"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dchess/dchess/dataset"
	"github.com/dchess/dchess/dataset/datasettest"
	"github.com/dchess/dchess/internal/chess/board"
	"github.com/dchess/dchess/internal/chess/pgn"
	"github.com/dchess/dchess/models/dcw"
	"github.com/dchess/dchess/models/deepchess"
	"github.com/dchess/dchess/models/family"
)

// pieceValue is the material a greedy side grabs first.
var pieceValue = [7]int{board.Pawn: 1, board.Knight: 3, board.Bishop: 3, board.Rook: 5, board.Queen: 9}

func material(b *board.Board, c board.Color) int {
	p := b.Pieces(c)
	return bits.OnesCount64(p.Pawns) + 3*bits.OnesCount64(p.Knights|p.Bishops) + 5*bits.OnesCount64(p.Rooks) + 9*bits.OnesCount64(p.Queens)
}

// decisiveGames writes games in which one side, drawn at random, takes the
// most valuable piece it can on a quarter of its moves and otherwise moves
// at random, while
// the other side moves at random. The result is the material balance after
// 80 plies (or the mate): games of both results, whose later positions show
// who wins, as DeepChess's pairs need. Positions keep their played move, so
// captures can be filtered; 20 % of the games are split off for validation.
func decisiveGames(t testing.TB, games int) string {
	t.Helper()
	var all []*dataset.Record
	rng := rand.New(rand.NewPCG(7, 11))
	for g := 0; g < games; g++ {
		greedy := board.Color(rng.IntN(2))
		b := board.New()
		var recs []*dataset.Record
		for ply := 0; ply < 80; ply++ {
			moves := b.LegalMoves()
			if len(moves) == 0 {
				break
			}
			m := moves[rng.IntN(len(moves))]
			if b.SideToMove() == greedy && rng.IntN(4) == 0 {
				best := 0
				for _, c := range moves {
					if victim, _ := b.PieceAt(c.To()); b.IsCapture(c) && pieceValue[victim] > best {
						m, best = c, pieceValue[victim]
					}
				}
			}
			fen := b.FEN()
			recs = append(recs, &dataset.Record{FEN: fen, Key: dataset.PositionKey(fen), Move: board.UCI(m),
				Ply: uint16(ply), GameID: uint64(g + 1)})
			b.Make(m)
		}
		result := pgn.Draw
		switch diff := material(b, board.White) - material(b, board.Black); {
		case b.Status() == board.Checkmate && b.SideToMove() == board.Black, b.Status() != board.Checkmate && diff > 0:
			result = pgn.WhiteWin
		case b.Status() == board.Checkmate, diff < 0:
			result = pgn.BlackWin
		}
		for _, r := range recs {
			r.Result = result
		}
		all = append(all, recs...)
	}
	dir := datasettest.Write(t, filepath.Join(t.TempDir(), "games"), dataset.WriteOptions{Shard: 2000}, all)
	if _, err := dataset.WriteSplit(dir, 0.2, 0, 3); err != nil {
		t.Fatal(err)
	}
	return dir
}

// pairSink records the pairs a stream writes.
type pairSink struct {
	a, b   []float32
	target []float32
	pairs  [][2]deepchess.Packed
	labels []float32
}

func (s *pairSink) Row() ([][]float32, []float32) {
	if s.a == nil {
		s.a, s.b, s.target = make([]float32, deepchess.InputSize), make([]float32, deepchess.InputSize), make([]float32, 1)
	}
	return [][]float32{s.a, s.b}, s.target
}

func (s *pairSink) Add() error {
	s.pairs = append(s.pairs, [2]deepchess.Packed{pack(s.a), pack(s.b)})
	s.labels = append(s.labels, s.target[0])
	return nil
}

func (s *pairSink) Reject() {}

func pack(bitsIn []float32) deepchess.Packed {
	var p deepchess.Packed
	for i, v := range bitsIn {
		if v != 0 {
			p[i/64] |= 1 << (i % 64)
		}
	}
	return p
}

func TestPairsFollowThePaper(t *testing.T) {
	data := decisiveGames(t, 60)
	ds, err := dataset.Open(data)
	if err != nil {
		t.Fatal(err)
	}
	cfg := testConfig(t, deepchess.SiameseFamily)
	// Index every stored position: its result, split, ply and whether its
	// move was a capture.
	type info struct {
		result  pgn.Result
		split   dataset.Split
		ply     int
		capture bool
	}
	positions := map[deepchess.Packed]info{}
	if err := ds.Scan(context.Background(), dataset.AllSplits, func(r *dataset.Record) error {
		b, err := board.FromFEN(r.FEN)
		if err != nil {
			return err
		}
		m, err := b.ParseUCI(r.Move)
		if err != nil {
			return err
		}
		positions[deepchess.Pack(b)] = info{r.Result, ds.SplitOf(r.GameID), int(r.Ply), b.IsCapture(m)}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	// A resumed run's objective: its tower is given, nothing is loaded.
	cfg.Model.Settings.(*deepchess.SiameseConfig).Tower = []int{8}
	o, err := cfg.Family().Objective(cfg, family.ObjectiveEnv{})
	if err != nil {
		t.Fatal(err)
	}
	pairs := func(split dataset.Split, order family.StreamOrder) *pairSink {
		s := &pairSink{}
		if err := o.Stream(context.Background(), ds, split, order, s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	check := func(s *pairSink, split dataset.Split) {
		if len(s.pairs) < 100 {
			t.Fatalf("only %d %s pairs", len(s.pairs), split)
		}
		firstBetter := 0
		for i, p := range s.pairs {
			a, aok := positions[p[0]]
			b, bok := positions[p[1]]
			if !aok || !bok {
				t.Fatalf("pair %d holds a position that is not in the dataset", i)
			}
			for _, x := range []info{a, b} {
				if x.split != split || x.ply < 10 || x.capture || x.result == pgn.Draw {
					t.Fatalf("pair %d of %s holds %+v", i, split, x)
				}
			}
			if a.result == b.result || (s.labels[i] == 1) != (a.result == pgn.WhiteWin) {
				t.Fatalf("pair %d: results %v and %v labelled %v", i, a.result, b.result, s.labels[i])
			}
			firstBetter += int(s.labels[i])
		}
		if n := len(s.pairs); firstBetter < n/3 || firstBetter > 2*n/3 {
			t.Fatalf("the White win comes first in %d of %d pairs: the order is not random", firstBetter, n)
		}
	}
	epoch0 := pairs(dataset.Train, family.StreamOrder{Shuffled: true, Epoch: 0})
	epoch1 := pairs(dataset.Train, family.StreamOrder{Shuffled: true, Epoch: 1})
	check(epoch0, dataset.Train)
	check(epoch1, dataset.Train)
	same := 0
	for _, p := range epoch1.pairs {
		if slices.Contains(epoch0.pairs, p) {
			same++
		}
	}
	if same > len(epoch1.pairs)/10 {
		t.Fatalf("%d of %d pairs of epoch 2 were already drawn in epoch 1", same, len(epoch1.pairs))
	}
	// With mirror_pairs half the positions are colour-swapped, and carry
	// the opposite result: index them as such.
	original := maps.Clone(positions)
	for p, x := range original {
		if x.result != pgn.Draw {
			x.result = pgn.WhiteWin + pgn.BlackWin - x.result
			positions[p.Mirror()] = x
		}
	}
	cfg.Data.MirrorPairs = true // the objective reads its config as it streams
	mirrored := pairs(dataset.Train, family.StreamOrder{Shuffled: true, Epoch: 0})
	check(mirrored, dataset.Train)
	swapped := 0
	for _, p := range mirrored.pairs {
		for _, x := range p {
			if _, ok := original[x]; !ok {
				swapped++
			}
		}
	}
	if n := 2 * len(mirrored.pairs); swapped < n/3 || swapped > 2*n/3 {
		t.Fatalf("%d of %d positions of the pairs are mirrored, want about half", swapped, n)
	}
	val := pairs(dataset.Val, family.StreamOrder{})
	check(val, dataset.Val)
	if again := pairs(dataset.Val, family.StreamOrder{}); !slices.Equal(again.pairs, val.pairs) {
		t.Fatal("the validation pairs change from one epoch to the next")
	}
}

// trainAutoencoder trains the test Pos2Vec into runs/<name>.
func trainAutoencoder(t *testing.T, data, runs string, cfg *family.Config) *Result {
	t.Helper()
	res, err := Run(context.Background(), Options{Config: cfg, Data: data, RunDir: filepath.Join(runs, "autoencoder-test")})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestAutoencoderTrainsLayerByLayer(t *testing.T) {
	data := decisiveGames(t, 120)
	cfg := testConfig(t, deepchess.AutoencoderFamily)
	runs := t.TempDir()
	res := trainAutoencoder(t, data, runs, cfg)
	run := res.RunDir
	if res.Family != deepchess.AutoencoderFamily || res.Epochs != 2*cfg.Epochs || len(res.Layers) != 2 {
		t.Fatalf("result %+v: want %d epochs for each of 2 layers", res, cfg.Epochs)
	}
	metrics, err := ReadMetrics(filepath.Join(run, MetricsFile))
	if err != nil {
		t.Fatal(err)
	}
	// Each layer's reconstruction error falls from its first steps, and
	// each layer's learning rate schedule starts afresh.
	layerStart := int64(0) // the step the layer began after
	for layer := 1; layer <= 2; layer++ {
		var first, last []Metric
		for _, m := range metrics {
			if m.Kind == "epoch" && m.Stage == layer {
				last = append(last, m)
			}
			if m.Kind == "step" && len(first) < 5 && m.Step > layerStart {
				first = append(first, m)
			}
		}
		layerStart = last[len(last)-1].Step
		var start float64
		for _, m := range first {
			start += m.Loss / float64(len(first))
		}
		l := res.Layers[layer-1]
		t.Logf("layer %d: first steps %.5f, last epoch train %.5f, best val %.5f", layer, start, l.TrainMSE, l.BestValMSE)
		if len(last) != cfg.Epochs || l.Epochs != cfg.Epochs || last[0].LR != cfg.Optimizer.LR {
			t.Fatalf("layer %d: epochs %+v", layer, last)
		}
		if !(l.TrainMSE < 0.5*start) || !(l.BestValMSE < 0.5*start) || l.ValMSE == 0 {
			t.Fatalf("layer %d did not learn to reconstruct: first steps %.5f, last train %.5f, best val %.5f", layer, start, l.TrainMSE, l.BestValMSE)
		}
	}
	f, aeCfg, err := deepchess.ReadAutoencoder(filepath.Join(run, family.ModelFile))
	layers := cfg.Model.Settings.(*deepchess.AutoencoderConfig).Layers
	if err != nil || !slices.Equal(aeCfg.Layers, layers) {
		t.Fatalf("model.dcw: %v, layers %v", err, aeCfg.Layers)
	}

	// Training the second layer leaves the first as its own stage left it:
	// a one-layer Pos2Vec starts from the same weights and data order, so
	// its encoder must be the first layer's, bit for bit.
	one := cfg.Clone()
	one.Model.Settings.(*deepchess.AutoencoderConfig).Layers = layers[:1]
	alone, err := Run(context.Background(), Options{Config: one, Data: data, RunDir: filepath.Join(t.TempDir(), "one")})
	if err != nil {
		t.Fatal(err)
	}
	g, _, err := deepchess.ReadAutoencoder(alone.Model)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"enc0.w", "enc0.b"} {
		a, _ := f.Tensor(name, tensorShape(f, name)...)
		b, _ := g.Tensor(name, tensorShape(g, name)...)
		if !slices.Equal(a, b) {
			t.Fatalf("%s changed while the second layer trained", name)
		}
	}

	// Resuming in the middle of the second layer ends with the same weights.
	short := *cfg
	short.MaxSteps = res.Steps - 5
	mid := filepath.Join(t.TempDir(), "mid")
	if _, err := Run(context.Background(), Options{Config: &short, Data: data, RunDir: mid}); err != nil {
		t.Fatal(err)
	}
	if _, err := Run(context.Background(), Options{Data: data, RunDir: mid, Resume: true, MaxSteps: 1 << 40}); err != nil {
		t.Fatal(err)
	}
	sameWeights(t, trainedWeights(t, run), trainedWeights(t, mid))
}

func tensorShape(f *dcw.File, name string) []int {
	for _, t := range f.Tensors {
		if t.Name == name {
			return t.Shape
		}
	}
	return nil
}

func TestSiameseTrainsFromAutoencoder(t *testing.T) {
	data := decisiveGames(t, 150)
	runs := t.TempDir()
	cfg := testConfig(t, deepchess.SiameseFamily)
	_, err := Run(context.Background(), Options{Config: cfg, Data: data, RunDir: filepath.Join(t.TempDir(), "s"), RunsDir: runs})
	if err == nil || !strings.Contains(err.Error(), "dchess train --model autoencoder") || !strings.Contains(err.Error(), "--init") {
		t.Fatalf("siamese without an autoencoder: %v", err)
	}
	named := cfg.Clone()
	named.Model.Settings.(*deepchess.SiameseConfig).Init = filepath.Join(runs, "missing")
	if _, err := Run(context.Background(), Options{Config: named, Data: data, RunDir: filepath.Join(t.TempDir(), "s")}); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Fatalf("siamese from a missing run: %v", err)
	}

	aeCfg := testConfig(t, deepchess.AutoencoderFamily)
	aeCfg.Epochs = 2
	ae := trainAutoencoder(t, data, runs, aeCfg)
	run := filepath.Join(t.TempDir(), "siamese")
	res, err := Run(context.Background(), Options{Config: cfg, Data: data, RunDir: run, RunsDir: runs})
	if err != nil {
		t.Fatal(err)
	}
	// The run records the autoencoder it started from and the tower it gave.
	asRun, err := family.LoadConfig(filepath.Join(run, family.ConfigFile), deepchess.SiameseFamily)
	if err != nil {
		t.Fatal(err)
	}
	sc := asRun.Model.Settings.(*deepchess.SiameseConfig)
	if sc.Init != ae.Model || !slices.Equal(sc.Tower, aeCfg.Model.Settings.(*deepchess.AutoencoderConfig).Layers) {
		t.Fatalf("config as run: init %q, tower %v", sc.Init, sc.Tower)
	}
	metrics, err := ReadMetrics(filepath.Join(run, MetricsFile))
	if err != nil {
		t.Fatal(err)
	}
	var accs []float64
	for _, m := range metrics {
		if m.Kind == "epoch" {
			if m.ValPairAccuracy == nil {
				t.Fatalf("epoch %d reports no validation pair accuracy", m.Epoch)
			}
			accs = append(accs, *m.ValPairAccuracy)
		}
	}
	if len(accs) != cfg.Epochs || res.BestValPairAccuracy != slices.Max(accs) {
		t.Fatalf("pair accuracies %v, result %+v", accs, res)
	}
	t.Logf("validation pair accuracy by epoch: %.3f", accs)
	if res.BestValPairAccuracy < 0.85 || res.BestValPairAccuracy <= accs[0] {
		t.Fatalf("validation pair accuracy by epoch %v: the comparator did not learn who is winning", accs)
	}
	cmp, err := deepchess.Load(res.Model)
	if err != nil {
		t.Fatal(err)
	}
	// White a queen up against Black a queen up, both ways round.
	up, _ := board.FromFEN("4k3/pppp4/8/8/8/8/PPPP4/3QK3 w - - 0 1")
	down, _ := board.FromFEN("3qk3/pppp4/8/8/8/8/PPPP4/4K3 w - - 0 1")
	if p, q := cmp.Compare(up, down), cmp.Compare(down, up); !(p > 0.5 && q < 0.5) {
		t.Fatalf("White a queen up is better than Black a queen up with probability %.3f (reversed %.3f)", p, q)
	}
	playsAndBeatsRandom(t, deepchess.SiameseFamily+":"+res.Model+"?depth=2")

	// A resumed siamese run needs no autoencoder any more.
	if err := os.RemoveAll(filepath.Dir(ae.Model)); err != nil {
		t.Fatal(err)
	}
	if _, err := Run(context.Background(), Options{Data: data, RunDir: run, Resume: true, Epochs: cfg.Epochs + 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := Run(context.Background(), Options{Config: cfg, Data: data, RunDir: filepath.Join(t.TempDir(), "s"), RunsDir: runs}); err == nil {
		t.Fatal("a new siamese run started without an autoencoder")
	}
}
