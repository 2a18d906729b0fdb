package nnue

import (
	"bytes"
	"maps"
	"math"
	"math/bits"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/dchess/dchess/internal/chess/pgn"

	"gopkg.in/yaml.v3"
	G "gorgonia.org/gorgonia"

	"github.com/dchess/dchess/configs"
	"github.com/dchess/dchess/dataset"
	"github.com/dchess/dchess/internal/chess/board"
	"github.com/dchess/dchess/internal/testenv"
	"github.com/dchess/dchess/models/dcw"
	"github.com/dchess/dchess/models/nn/nntest"
	"github.com/dchess/dchess/search"
)

func TestConfigValidate(t *testing.T) {
	if err := DefaultConfig().Validate(); err != nil {
		t.Fatal(err)
	}
	if s := DefaultConfig().Scale; math.Abs(s-271.5856) > 1e-3 {
		t.Errorf("default scale %g, want 1/0.00368208", s)
	}
	for name, mutate := range map[string]func(*Config){
		"accumulator not a multiple of 16": func(c *Config) { c.Accumulator = 24 },
		"no accumulator":                   func(c *Config) { c.Accumulator = 0 },
		"zero hidden width":                func(c *Config) { c.Hidden = []int{0} },
		"too many hidden layers":           func(c *Config) { c.Hidden = []int{8, 8, 8, 8, 8} },
		"zero scale":                       func(c *Config) { c.Scale = 0 },
		"NaN scale":                        func(c *Config) { c.Scale = math.NaN() },
		"lambda above 1":                   func(c *Config) { c.Lambda = 1.5 },
		"negative lambda":                  func(c *Config) { c.Lambda = -0.1 },
		"negative children":                func(c *Config) { c.Children = -1 },
		"too many children":                func(c *Config) { c.Children = 17 },
		"negative child plies":             func(c *Config) { c.ChildPlies = -1 },
		"too many child plies":             func(c *Config) { c.ChildPlies = 17 },
		"negative sparsity":                func(c *Config) { c.Sparsity = -0.01 },
		"NaN sparsity":                     func(c *Config) { c.Sparsity = math.NaN() },
		"pairwise halves not of 16":        func(c *Config) { c.Pairwise, c.Accumulator = true, 48 },
		"negative output buckets":          func(c *Config) { c.OutputBuckets = -1 },
		"more output buckets than pieces":  func(c *Config) { c.OutputBuckets = 33 },
	} {
		c := DefaultConfig()
		mutate(&c)
		err := c.Validate()
		if err == nil || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error %v, want one line", name, err)
		}
	}
}

// The two views share one weight matrix: Black's view of a position is
// White's view of the position with colours swapped and the board flipped.
func TestViewsAreMirrorImages(t *testing.T) {
	pairs := [][2]string{
		{board.StartFEN, board.StartFEN},
		{"r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
			"r3k2r/pppbbppp/2n2q1P/1P2p3/3pn3/BN2PNP1/P1PPQPB1/R3K2R b KQkq - 0 1"},
	}
	for _, p := range pairs {
		a, b := mustFEN(t, p[0]), mustFEN(t, p[1])
		var fa, fb [Slots + 1]int
		na, nb := activeFeatures(a, board.White, fa[:]), activeFeatures(b, board.Black, fb[:])
		sa, sb := slices.Sorted(slices.Values(fa[:na])), slices.Sorted(slices.Values(fb[:nb]))
		if !slices.Equal(sa, sb) {
			t.Errorf("%s: White's view %v, Black's view of the mirror %v", p[0], sa, sb)
		}
	}
}

func mustFEN(t testing.TB, fen string) *board.Board {
	t.Helper()
	b, err := board.FromFEN(fen)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestEncode(t *testing.T) {
	m := newModel(t, smallConfig())
	label := func(best string) *dataset.Label {
		return &dataset.Label{Status: dataset.LabelOK, CP: 50, WinProb: 0.6, BestMove: best}
	}
	const open = "rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 2"
	cases := []struct {
		name   string
		rec    dataset.Record
		lambda float64
		used   bool
		result float32
	}{
		{"quiet, black to move, white won", dataset.Record{FEN: open, Result: pgn.WhiteWin, Label: label("g8f6")}, 1, true, 0},
		{"best move captures", dataset.Record{FEN: open, Result: pgn.WhiteWin, Label: label("d5e4")}, 1, false, 0},
		{"in check", dataset.Record{FEN: "rnbqkbnr/ppp2ppp/8/1B1pp3/4P3/8/PPPP1PPP/RNBQK1NR b KQkq - 1 3",
			Result: pgn.Draw, Label: label("c7c6")}, 1, false, 0},
		{"not labelled", dataset.Record{FEN: open, Result: pgn.BlackWin}, 1, false, 0},
		{"result needed but unknown", dataset.Record{FEN: open, Label: label("g8f6")}, 0.5, false, 0},
		{"black won, black to move", dataset.Record{FEN: open, Result: pgn.BlackWin, Label: label("g8f6")}, 0.5, true, 1},
		{"draw", dataset.Record{FEN: open, Result: pgn.Draw, Label: label("g8f6")}, 0.5, true, 0.5},
	}
	for _, c := range cases {
		cfg := smallConfig()
		cfg.Lambda = c.lambda
		m := newModel(t, cfg)
		rows := [][]float32{make([]float32, 2*Slots), make([]float32, 1), make([]float32, 1)}
		used, err := m.Encode(&c.rec, rows)
		if err != nil || used != c.used {
			t.Errorf("%s: used %t, error %v; want used %t", c.name, used, err, c.used)
			continue
		}
		if !used {
			continue
		}
		if rows[InputWinProb][0] != 0.6 || rows[InputResult][0] != c.result {
			t.Errorf("%s: win probability %g, result %g; want 0.6, %g", c.name, rows[InputWinProb][0], rows[InputResult][0], c.result)
		}
		// Black to move: Black's view first, where Black's pawn on d5
		// (d4 seen from Black) is one of "our" pawns.
		own := float32(feature(board.Black, board.Black, board.Pawn, 35) + 1)
		if !slices.Contains(rows[InputActive][:Slots], own) || slices.Contains(rows[InputActive][Slots:], own) {
			t.Errorf("%s: the side to move's view is not first: %v", c.name, rows[InputActive])
		}
	}
	bad := dataset.Record{FEN: open, Label: label("e2e4")}
	if _, err := m.Encode(&bad, [][]float32{make([]float32, 2*Slots), {0}, {0}}); err == nil {
		t.Error("an illegal best move was not an error")
	}
}

func TestTrainingLowersLoss(t *testing.T) {
	for name, c := range smallConfigs() {
		t.Run(name, func(t *testing.T) {
			m := newModel(t, c)
			bt := encodeBatch(t, m, materialSet(256, 1))
			before, after, _ := train(t, m, m.InitParams(1), bt, 150, 0.01)
			if !(after < 0.5*before) {
				t.Fatalf("150 Adam steps took the loss from %g to %g, want below half", before, after)
			}
		})
	}
}

// quantizedTolerance is how far, in centipawns, the player's score may be
// from the Gorgonia graph's on the same weights, for the tests' small
// network (N = 32, 64 → 8 → 1, trained on material for 150 steps): the
// feature weights' rounding to steps of 1/qa, the clipped accumulators'
// to bytes of 1/127 and the first dense layer's weights' to int8 move
// the scores by a few centipawns (the figures are in
// docs/results/2026-11-25-nnue-integer-accuracy.md), the integer score
// adds half a centipawn. TestShippedMatchesGraph measures the shipped
// network.
const quantizedTolerance = 8

// pairwiseTolerance is quantizedTolerance for the same network with
// Pairwise: its inputs are the halves' products, one rounding to bytes of
// about 1/127 as the clipped ones, but smaller (a product of two values in
// [0, 1]), so the dense layer's weights that read them are larger and
// carry the bytes' rounding further (the same entry as quantizedTolerance's).
const pairwiseTolerance = 14

func TestQuantizedMatchesGraph(t *testing.T) {
	configs := smallConfigs()
	buckets := smallConfig()
	buckets.OutputBuckets = 8
	configs["pairwise, 8 output buckets"] = buckets
	for name, c := range configs {
		t.Run(name, func(t *testing.T) { checkQuantizedMatchesGraph(t, c) })
	}
}

// TestOutputBucketsPickByPieceCount gives each output bucket k a last layer
// that scores k/10 of a logit unit whatever the inputs, and checks that the
// graph and the player both score each position by its piece count's
// bucket, with hidden layers and without.
func TestOutputBucketsPickByPieceCount(t *testing.T) {
	for name, hidden := range map[string][]int{"one hidden layer": {8}, "no hidden layer": nil} {
		t.Run(name, func(t *testing.T) {
			c := smallConfig()
			c.Hidden, c.OutputBuckets = hidden, 4
			m := newModel(t, c)
			params := m.InitParams(3)
			last := denseName(len(hidden))
			for i := range params {
				switch params[i].Name {
				case last + ".w":
					clear(params[i].Data)
				case last + ".b":
					for k := range params[i].Data {
						params[i].Data[k] = float32(k) / 10
					}
				}
			}
			// Random games keep most of their pieces: endings fill the
			// lower buckets.
			var endings []*board.Board
			for _, fen := range []string{
				"8/8/4k3/8/8/3K4/4P3/8 w - - 0 1",
				"8/5pk1/8/3r4/8/2R5/5PK1/8 b - - 0 1",
				"r3k3/1p3pp1/8/8/8/8/1P3PP1/R3K3 w - - 0 1",
				"2r1k3/pp3ppp/8/3n4/8/5N2/PP3PPP/2R1K3 w - - 0 1",
			} {
				endings = append(endings, mustFEN(t, fen))
			}
			recs := append(materialSet(100, 4), nntest.MaterialRecords(endings)...)
			bt := encodeBatch(t, m, recs)
			gr := buildGraph(t, m, params, bt)
			defer gr.vm.Close()
			gr.run(t)
			scores := gr.out.Score.Value().Data().([]float32)
			net, err := NewNet(weightsFile(t, m, params))
			if err != nil {
				t.Fatal(err)
			}
			e := NewEvaluator(net)
			seen := map[int]bool{}
			i := 0
			for _, r := range recs {
				b := mustFEN(t, r.FEN)
				if b.InCheck() {
					continue
				}
				pieces := bits.OnesCount64(b.Occupied())
				k := (pieces - 1) * 4 / 32
				want := float64(k) / 10 * c.Scale
				if got := float64(scores[i]); math.Abs(got-want) > 1e-3*c.Scale {
					t.Fatalf("%s (%d pieces): the graph scores %.2f cp, want bucket %d's %.2f", r.FEN, pieces, got, k, want)
				}
				if got := float64(e.Network(b)); math.Abs(got-want) > 1 {
					t.Fatalf("%s (%d pieces): the player scores %.0f cp, want bucket %d's %.2f", r.FEN, pieces, got, k, want)
				}
				seen[k] = true
				i++
			}
			if len(seen) < 4 {
				t.Fatalf("the positions fell in buckets %v: too few to test the choice", seen)
			}
		})
	}
}

func checkQuantizedMatchesGraph(t *testing.T, c Config) {
	m := newModel(t, c)
	recs := materialSet(256, 2)
	bt := encodeBatch(t, m, recs)
	_, _, params := train(t, m, m.InitParams(2), bt, 150, 0.01)
	net, err := NewNet(weightsFile(t, m, params))
	if err != nil {
		t.Fatal(err)
	}
	gr := buildGraph(t, m, params, bt)
	defer gr.vm.Close()
	gr.run(t)
	scores := gr.out.Score.Value().Data().([]float32)
	e := NewEvaluator(net)
	var worst, sum, spread float64
	i := 0
	for _, r := range recs {
		b := mustFEN(t, r.FEN)
		if b.InCheck() { // the quiet filter left these out of the batch
			continue
		}
		d := math.Abs(float64(e.Network(b)) - float64(scores[i]))
		worst, sum = math.Max(worst, d), sum+d
		spread = math.Max(spread, math.Abs(float64(scores[i])))
		i++
	}
	if i != bt.rows {
		t.Fatalf("%d positions compared, the batch has %d", i, bt.rows)
	}
	t.Logf("differences %.2f cp on average, %.2f at most, over %d positions (scores up to %.0f cp)", sum/float64(i), worst, i, spread)
	tolerance := quantizedTolerance
	if c.Pairwise {
		tolerance = pairwiseTolerance
	}
	if worst > float64(tolerance) || spread < 100 {
		t.Fatalf("quantized scores differ by up to %.2f cp (tolerance %d), the graph's reach %.0f cp", worst, tolerance, spread)
	}
}

// TestShippedMatchesGraph compares the player's scores with the Gorgonia
// graph's on the shipped network (N = 256, pairwise, 256 → 32 → 1), over
// every position of the perft suites and every bench position and the
// position after each of its moves (8,430 positions, quiet or not), and
// logs the differences; what each shipped network gave is in
// docs/results/2026-11-25-nnue-integer-accuracy.md. The limits leave room
// for retrained weights of either kind.
func TestShippedMatchesGraph(t *testing.T) {
	const meanTolerance, worstTolerance = 3, 20
	f, err := dcw.Read(filepath.Join("..", "shipped", "nnue.dcw"))
	if err != nil {
		t.Fatal(err)
	}
	net, err := NewNet(f)
	if err != nil {
		t.Fatal(err)
	}
	var boards []*board.Board
	suites, err := board.ReadPerftSuites(testenv.SharedData(t, "perft"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range slices.Sorted(maps.Keys(suites)) {
		for _, c := range suites[name] {
			boards = append(boards, mustFEN(t, c.FEN))
		}
	}
	for _, fen := range search.BenchPositions {
		boards = append(boards, mustFEN(t, fen))
		b := mustFEN(t, fen)
		for _, mv := range b.LegalMoves() {
			b.Make(mv)
			boards = append(boards, mustFEN(t, b.FEN()))
			b.Unmake()
		}
	}
	m := newModel(t, net.Config())
	bt := batch{rows: len(boards)}
	for _, s := range m.InputShapes(len(boards)) {
		bt.bufs = append(bt.bufs, make([]float32, s[0]*s[1]))
	}
	for i, b := range boards {
		if err := encodeActive(b, bt.bufs[InputActive][i*2*Slots:(i+1)*2*Slots]); err != nil {
			t.Fatal(err)
		}
	}
	scores := graphScores(t, m, f.Tensors, bt)
	e := NewEvaluator(net)
	diffs := make([]float64, len(boards))
	var sum float64
	for i, b := range boards {
		diffs[i] = math.Abs(float64(e.Network(b)) - float64(scores[i]))
		sum += diffs[i]
	}
	slices.Sort(diffs)
	mean, n := sum/float64(len(diffs)), len(diffs)
	t.Logf("%d positions: differences %.2f cp on average, median %.2f, 99th percentile %.2f, at most %.2f",
		n, mean, diffs[n/2], diffs[n*99/100], diffs[n-1])
	if mean > meanTolerance || diffs[n-1] > worstTolerance {
		t.Fatalf("the player is %.2f cp from the graph on average (tolerance %d), %.2f at most (tolerance %d)", mean, meanTolerance, diffs[n-1], worstTolerance)
	}
}

// graphScores runs the graph forward alone on a batch and returns its
// scores in centipawns.
func graphScores(t *testing.T, m *Model, params []dcw.Tensor, bt batch) []float32 {
	t.Helper()
	g := G.NewGraph()
	out, err := m.Build(g, batchInputs(g, m, bt), params)
	if err != nil {
		t.Fatal(err)
	}
	vm := G.NewTapeMachine(g)
	defer vm.Close()
	if err := vm.RunAll(); err != nil {
		t.Fatal(err)
	}
	return out.Score.Value().Data().([]float32)
}

// TestIncrementalMatchesRefresh plays every move of the perft suites'
// positions (and every reply, in all but the largest suite) through the
// evaluator and checks the updated accumulators against ones computed
// from scratch, exactly: int16 sums do not depend on their order.
func TestIncrementalMatchesRefresh(t *testing.T) {
	m := newModel(t, smallConfig())
	net, err := NewNet(weightsFile(t, m, m.InitParams(3)))
	if err != nil {
		t.Fatal(err)
	}
	e := NewEvaluator(net)
	fresh := frame{acc: [2][]int16{make([]int16, net.cfg.Accumulator), make([]int16, net.cfg.Accumulator)}}
	var moves, castles, enPassants, promotions, captures int
	check := func(b *board.Board, line string) {
		f := &e.frames[e.top]
		net.update(&e.frames[e.top-1], f)
		e.refresh(&fresh, b)
		for v := range f.acc {
			if !slices.Equal(f.acc[v], fresh.acc[v]) {
				t.Fatalf("%s: view %d updated %v, refreshed %v", line, v, f.acc[v][:4], fresh.acc[v][:4])
			}
		}
		moves++
	}
	var play func(b *board.Board, depth int, line string)
	play = func(b *board.Board, depth int, line string) {
		for _, mv := range b.LegalMoves() {
			piece, _ := b.PieceAt(mv.From())
			switch {
			case piece == board.King && (mv.To() == mv.From()+2 || mv.From() == mv.To()+2):
				castles++
			case mv.Promote() != 0:
				promotions++
			}
			if ep, ok := b.EnPassant(); ok && piece == board.Pawn && mv.To() == ep {
				enPassants++
			} else if b.IsCapture(mv) {
				captures++
			}
			e.MakeMove(b, mv)
			b.Make(mv)
			check(b, line+" "+board.UCI(mv))
			if depth > 1 {
				play(b, depth-1, line+" "+board.UCI(mv))
			}
			b.Unmake()
			e.Unmake()
		}
	}
	suites, err := board.ReadPerftSuites(testenv.SharedData(t, "perft"))
	if err != nil {
		t.Fatal(err)
	}
	for suite, cases := range suites {
		depth := 2
		if len(cases) > 1000 {
			depth = 1
		}
		for _, c := range cases {
			fen := c.FEN
			b := mustFEN(t, fen)
			e.Root(b)
			play(b, depth, suite+": "+fen+":")
		}
	}
	t.Logf("%d moves: %d castling, %d en passant, %d promotions, %d other captures", moves, castles, enPassants, promotions, captures)
	if castles == 0 || enPassants == 0 || promotions == 0 || captures == 0 {
		t.Fatal("the suites must exercise every kind of move")
	}
}

// TestEvaluateFollowsTheLine plays random games, evaluating at random
// plies only (so updates run over several plies, or become refreshes),
// with null moves and take-backs, against a fresh evaluator each time.
func TestEvaluateFollowsTheLine(t *testing.T) {
	m := newModel(t, smallConfig())
	net, err := NewNet(weightsFile(t, m, m.InitParams(4)))
	if err != nil {
		t.Fatal(err)
	}
	e := NewEvaluator(net)
	evaluated, nullsTakenBack := 0, 0
	rng := rand.New(rand.NewPCG(6, 7))
	for g, start := range nntest.RandomBoards(40, 5) {
		b := start.Clone()
		e.Root(b)
		var nulls []int // the plies null moves led to
		for ply := 0; ply < 60; ply++ {
			moves := b.LegalMoves()
			if len(moves) == 0 {
				break
			}
			switch r := rng.IntN(6); {
			case r == 0 && !b.InCheck() && b.NullMoveAllowed():
				e.MakeNull(b)
				b.MakeNull()
				nulls = append(nulls, b.Ply())
			case r == 1 && b.Ply() > 1:
				if len(nulls) > 0 && nulls[len(nulls)-1] == b.Ply() {
					nulls = nulls[:len(nulls)-1]
					nullsTakenBack++
				}
				b.Unmake()
				e.Unmake()
			default:
				mv := moves[rng.IntN(len(moves))]
				e.MakeMove(b, mv)
				b.Make(mv)
			}
			if rng.IntN(3) == 0 {
				want := NewEvaluator(net).Evaluate(b.Clone())
				if got := e.Evaluate(b); got != want {
					t.Fatalf("game %d ply %d (%s): followed %d, fresh %d", g, ply, b.FEN(), got, want)
				}
				evaluated++
			}
		}
	}
	if evaluated < 100 || nullsTakenBack == 0 {
		t.Fatalf("only %d evaluations, %d null moves taken back", evaluated, nullsTakenBack)
	}
}

func TestLoadRefuses(t *testing.T) {
	dir := t.TempDir()
	m := newModel(t, smallConfig())
	params := m.InitParams(5)
	good := filepath.Join(dir, "good.dcw")
	if err := dcw.Write(good, weightsFile(t, m, params)); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(good); err != nil {
		t.Fatalf("a good file: %v", err)
	}
	data, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	damaged := filepath.Join(dir, "damaged.dcw")
	data[len(data)/2] ^= 0x40
	os.WriteFile(damaged, data, 0o644)
	foreign := filepath.Join(dir, "foreign.dcw")
	dcw.Write(foreign, &dcw.File{Family: "ann", Arch: []byte(`{"hidden":[64]}`), Tensors: params})
	wrongShape := filepath.Join(dir, "shape.dcw")
	bigger := smallConfig()
	bigger.Accumulator = 64
	wf := weightsFile(t, newModel(t, bigger), params)
	dcw.Write(wrongShape, wf)
	badArch := filepath.Join(dir, "arch.dcw")
	dcw.Write(badArch, &dcw.File{Family: Family, Arch: []byte(`{"accumulator":32,"heads":4}`), Tensors: params})
	// Weights a float file can hold and the player cannot: a NaN, and
	// feature weights whose sum over 32 pieces overflows int16 however
	// they are scaled.
	if params[0].Name != "ft.w" {
		t.Fatalf("the first tensor is %s, want ft.w", params[0].Name)
	}
	withWeight := func(name string, v float32) string {
		changed := make([]dcw.Tensor, len(params))
		for i, p := range params {
			changed[i] = dcw.Tensor{Name: p.Name, Shape: p.Shape, Data: append([]float32(nil), p.Data...)}
		}
		changed[0].Data[7] = v
		path := filepath.Join(dir, name)
		if err := dcw.Write(path, weightsFile(t, m, changed)); err != nil {
			t.Fatal(err)
		}
		return path
	}
	notFinite := withWeight("nan.dcw", float32(math.NaN()))
	tooLarge := withWeight("large.dcw", 100)
	for _, path := range []string{damaged, foreign, wrongShape, badArch, notFinite, tooLarge, filepath.Join(dir, "missing.dcw")} {
		_, err := Load(path)
		if err == nil || !strings.Contains(err.Error(), path) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error %v, want one line naming the file", filepath.Base(path), err)
		}
	}
}

// TestLossBlendsResult checks the loss's target against the formula of
// docs/nnue.md: (sigmoid(logit) - (lambda·p + (1 - lambda)·r))² per
// position, with lambda below 1, where the game's result counts.
func TestLossBlendsResult(t *testing.T) {
	cfg := smallConfig()
	cfg.Lambda = 0.25
	m := newModel(t, cfg)
	recs := materialSet(64, 6)
	for i, r := range recs { // results of every kind
		r.Result = []pgn.Result{pgn.WhiteWin, pgn.BlackWin, pgn.Draw}[i%3]
	}
	bt := encodeBatch(t, m, recs)
	gr := buildGraph(t, m, m.InitParams(6), bt)
	defer gr.vm.Close()
	gr.run(t)
	logits := gr.out.Logit.Value().Data().([]float32)
	perRow := gr.out.PerRow.Value().Data().([]float32)
	results := 0.0
	for i := 0; i < bt.rows; i++ {
		p, r := float64(bt.bufs[InputWinProb][i]), float64(bt.bufs[InputResult][i])
		want := math.Pow(sigmoid(float64(logits[i]))-(0.25*p+0.75*r), 2)
		if math.Abs(float64(perRow[i])-want) > 1e-5 {
			t.Fatalf("row %d: loss %g, want %g (win probability %g, result %g)", i, perRow[i], want, p, r)
		}
		results += r
	}
	if bt.rows < 20 || results == 0 || results == float64(bt.rows) {
		t.Fatalf("%d rows with results summing to %g: the batch does not test the blend", bt.rows, results)
	}
}

// TestEncodeRecord: the record's row and its lines' rows, ply by ply,
// are the positions along each line scored from their own side to move.
func TestEncodeRecord(t *testing.T) {
	const open = "rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 2"
	label := &dataset.Label{Status: dataset.LabelOK, CP: 50, WinProb: dataset.WinProbability(50, 0), BestMove: "g8f6",
		PV: []string{"g8f6", "e4d5"}, // the reply captures: the child is not quiet
		MultiPV: []dataset.PVLine{
			{CP: -30, PV: []string{"d5e4", "b1c3"}}, // a capture, then a quiet reply: quiet child
			{Mate: -3, PV: []string{"c7c6"}},        // no reply known: quiet unless in check
			{CP: 10},                                // no moves: unused
		}}
	rec := dataset.Record{FEN: open, Result: pgn.WhiteWin, Label: label}
	m := newModel(t, smallConfig())
	const lines, plies = 5, 3
	newRows := func() [][][]float32 {
		rows := make([][][]float32, 1+lines*plies)
		for i := range rows {
			rows[i] = [][]float32{make([]float32, 2*Slots), make([]float32, 1), make([]float32, 1)}
		}
		return rows
	}
	got, used := newRows(), make([]bool, 1+lines*plies)
	if failed, err := m.EncodeRecord(&rec, lines, plies, got, used); failed != -1 || err != nil {
		t.Fatalf("failed row %d: %v", failed, err)
	}
	// The positions used, by line k and ply p (the record itself at k -1);
	// every other row is unused: lines 3 and 4 have no moves (or do not
	// exist), line 0's first ply is not quiet, no line has three plies.
	want := map[[2]int]struct {
		fen string
		win float32
	}{
		{-1, 0}: {open, dataset.WinProbability(50, 0)},
		{1, 1}:  {"rnbqkbnr/ppp1pppp/8/8/4p3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 3", 1 - dataset.WinProbability(-30, 0)},
		{2, 1}:  {"rnbqkbnr/pp2pppp/2p5/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 3", 1},
		// Two plies: Black to move again, scored as the line scores the record.
		{0, 2}: {"rnbqkb1r/ppp1pppp/5n2/3P4/8/8/PPPP1PPP/RNBQKBNR b KQkq - 0 3", dataset.WinProbability(50, 0)},
		{1, 2}: {"rnbqkbnr/ppp1pppp/8/8/4p3/2N5/PPPP1PPP/R1BQKBNR b KQkq - 1 3", dataset.WinProbability(-30, 0)},
	}
	for i := range got {
		k, p := -1, 0
		if i > 0 {
			k, p = (i-1)/plies, 1+(i-1)%plies
		}
		w, ok := want[[2]int{k, p}]
		if used[i] != ok {
			t.Errorf("line %d, %d plies: used %t, want %t", k+1, p, used[i], ok)
			continue
		}
		if !ok {
			continue
		}
		// Scored from its own side to move; White won.
		rows := newRows()[0]
		if _, err := m.encode(mustFEN(t, w.fen), "", w.win, pgn.WhiteWin, rows); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got[i], rows) {
			t.Errorf("line %d, %d plies: rows %v, want the position's %v", k+1, p, got[i], rows)
		}
	}
	bad := rec
	bad.Label = &dataset.Label{Status: dataset.LabelOK, PV: []string{"c7c6", "e2e4", "e4e5"}}
	// The line's second move is the best move of its first position.
	if failed, err := m.EncodeRecord(&bad, 1, plies, newRows(), used); failed != 1 || err == nil {
		t.Errorf("an illegal second move: failed row %d, error %v; want row 1", failed, err)
	}
	bad.Label.PV = []string{"c7c6", "b1c3", "c3c3"}
	if failed, err := m.EncodeRecord(&bad, 1, plies, newRows(), used); failed != 2 || err == nil {
		t.Errorf("an illegal third move: failed row %d, error %v; want row 2", failed, err)
	}
	bad.FEN = "8/8 w - - 0 1"
	if failed, err := m.EncodeRecord(&bad, 1, plies, newRows(), used); failed != 0 || err == nil {
		t.Errorf("a bad FEN: failed row %d, error %v; want row 0", failed, err)
	}
}

// The configs write out every setting of Config, the defaults in nnue.yaml;
// the quickstart's, which the pipeline reads from disk, too.
func TestConfigFiles(t *testing.T) {
	for _, name := range []string{"nnue", "nnue-small", "test/nnue", "quickstart/nnue"} {
		read := configs.Read
		if strings.HasPrefix(name, "quickstart/") {
			read = func(name string) ([]byte, error) {
				return os.ReadFile(filepath.Join("..", "..", "configs", name+".yaml"))
			}
		}
		data, err := read(name)
		if err != nil {
			t.Fatal(err)
		}
		var file struct {
			Model yaml.Node `yaml:"model"`
		}
		if err := yaml.Unmarshal(data, &file); err != nil {
			t.Fatal(err)
		}
		var section struct {
			Family string `yaml:"family"`
			Config `yaml:",inline"`
		}
		raw, err := yaml.Marshal(&file.Model)
		if err != nil {
			t.Fatal(err)
		}
		dec := yaml.NewDecoder(bytes.NewReader(raw))
		dec.KnownFields(true)
		if err := dec.Decode(&section); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var keys map[string]any
		yaml.Unmarshal(raw, &keys)
		if fields := reflect.TypeFor[Config]().NumField(); section.Family != Family || len(keys) != fields+1 {
			t.Errorf("%s: family %q and %d settings, want nnue and all %d of Config", name, section.Family, len(keys)-1, fields)
		}
		if err := section.Config.Validate(); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if name == "nnue" {
			want := DefaultConfig()
			if math.Abs(section.Scale-want.Scale) > 1e-3 {
				t.Errorf("nnue.yaml: scale %g, default %g", section.Scale, want.Scale)
			}
			section.Scale = want.Scale
			if !reflect.DeepEqual(section.Config, want) {
				t.Errorf("nnue.yaml holds %+v, the defaults are %+v", section.Config, want)
			}
		}
	}
}

// TestSparsityZeroesAccumulators trains the small network on material
// twice, the same steps from the same weights, without and with the L1
// penalty: with it, more of the player's clipped accumulators are 0 on
// positions it did not train on, and the penalty is in the loss (the
// graph's loss on the first step is the squared error plus the penalty).
func TestSparsityZeroesAccumulators(t *testing.T) {
	trainSet, probe := materialSet(256, 1), nntest.RandomBoards(200, 2)
	zeros := func(sparsity float64) (frac, firstLoss float64) {
		c := smallConfig()
		c.Sparsity = sparsity
		m := newModel(t, c)
		before, after, trained := train(t, m, m.InitParams(1), encodeBatch(t, m, trainSet), 150, 0.01)
		if !(after < before) {
			t.Fatalf("sparsity %g: the loss went from %g to %g", sparsity, before, after)
		}
		net, err := NewNet(weightsFile(t, m, trained))
		if err != nil {
			t.Fatal(err)
		}
		e := NewEvaluator(net)
		var zero, all int
		for _, b := range probe {
			e.Evaluate(b)
			for _, v := range e.scratch.bytes {
				if v == 0 {
					zero++
				}
				all++
			}
		}
		return float64(zero) / float64(all), before
	}
	const sparsity = 0.005
	plain, plainLoss := zeros(0)
	sparse, sparseLoss := zeros(sparsity)
	t.Logf("clipped accumulators at 0: %.1f %% without the penalty, %.1f %% with it", 100*plain, 100*sparse)
	if !(sparse > plain+0.1) {
		t.Errorf("sparsity %g left %.1f %% of the clipped accumulators at 0, without it %.1f %%: want 10 points more", sparsity, 100*sparse, 100*plain)
	}
	if !(sparseLoss > plainLoss) {
		t.Errorf("the first step's loss is %g with the penalty, %g without: the penalty is not in the loss", sparseLoss, plainLoss)
	}
}

// mirrorFEN is fen mirrored left to right, without castling rights.
func mirrorFEN(fen string) string {
	f := strings.Fields(fen)
	ranks := strings.Split(f[0], "/")
	for i, r := range ranks {
		b := []byte(r)
		slices.Reverse(b)
		ranks[i] = string(b)
	}
	f[0], f[2] = strings.Join(ranks, "/"), "-"
	if f[3] != "-" {
		f[3] = string('h'-(f[3][0]-'a')) + f[3][1:]
	}
	return strings.Join(f, " ")
}

func TestMirrorRowIsTheMirroredPosition(t *testing.T) {
	for i, b := range nntest.RandomBoards(40, 5) {
		mirrored := mustFEN(t, mirrorFEN(b.FEN()))
		src := [][]float32{make([]float32, 2*Slots), {0.25}, {1}}
		want := make([]float32, 2*Slots)
		if err := encodeActive(b, src[InputActive]); err != nil {
			t.Fatal(err)
		}
		if err := encodeActive(mirrored, want); err != nil {
			t.Fatal(err)
		}
		got := [][]float32{make([]float32, 2*Slots), {0}, {0}}
		MirrorRow(src, got)
		// Each view's slots as a set: the mirror changes the order of squares.
		for v := 0; v < 2; v++ {
			g, w := slices.Clone(got[InputActive][v*Slots:(v+1)*Slots]), slices.Clone(want[v*Slots:(v+1)*Slots])
			slices.Sort(g)
			slices.Sort(w)
			if !slices.Equal(g, w) {
				t.Fatalf("board %d (%s), view %d: mirrored row %v, the mirrored board's %v", i, b.FEN(), v, g, w)
			}
		}
		if got[InputWinProb][0] != 0.25 || got[InputResult][0] != 1 {
			t.Errorf("board %d: the target changed: %v", i, got[1:])
		}
	}
}

func TestMirrorableOnlyWithoutCastling(t *testing.T) {
	cfg := smallConfig()
	cfg.Mirror = true
	m := newModel(t, cfg)
	cfg.Mirror = false
	off := newModel(t, cfg)
	for _, c := range []struct {
		fen        string
		mirrorable bool
	}{
		{"rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 2", false},
		{"r3k3/8/8/8/8/8/8/4K2R w Kq - 0 1", false},
		{"4k3/8/8/3pP3/8/8/8/4K2R w - d6 0 1", true},
	} {
		r := &dataset.Record{FEN: c.fen}
		if got := m.Mirrorable(r); got != c.mirrorable {
			t.Errorf("%s: mirrorable %t, want %t", c.fen, got, c.mirrorable)
		}
		if off.Mirrorable(r) {
			t.Errorf("%s: mirrorable without mirror in the config", c.fen)
		}
	}
}
