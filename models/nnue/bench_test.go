package nnue

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/dchess/dchess/internal/chess/board"
	"github.com/dchess/dchess/models/dcw"
	"github.com/dchess/dchess/search"
	"github.com/dchess/dchess/search/heuristic"
)

// The player plugs into the search as an evaluator that follows the moves.
var (
	_ search.Evaluator    = (*Evaluator)(nil)
	_ search.MoveObserver = (*Evaluator)(nil)
)

// benchNet is the default size without the pairwise product (N = 256,
// 512 → 32 → 1) set by hand to
// score material, for the tests that compare the kernels on the scores of
// a whole network: accumulators 0-7 of a view sum its own material, 8-15
// the other side's, hidden unit 0 their difference, the output that unit;
// every other weight is random and small, so every path of the kernels
// runs. The material is spread over eight accumulators whose biases differ
// by an eighth of the first layer's byte step, so that their rounding to
// 127 steps averages out as a trained network's many units' does.
func benchNet(b testing.TB) *Net {
	b.Helper()
	c := DefaultConfig()
	c.Pairwise = false
	m := newModel(b, c)
	params := m.InitParams(1)
	n, h := c.Accumulator, c.Hidden[0]
	ftw, ftb, fc0w, fc0b, fc1w := params[0].Data, params[1].Data, params[2].Data, params[3].Data, params[4].Data
	values := [...]float32{board.Pawn: 1, board.Knight: 3, board.Bishop: 3, board.Rook: 5, board.Queen: 9, board.King: 0}
	const spread = 8
	for f := 0; f < Features; f++ {
		side, piece := f/(6*64), board.Piece(f/64%6+1)
		for j := range spread {
			ftw[f*n+side*spread+j], ftw[f*n+(1-side)*spread+j] = values[piece]/100, 0
		}
	}
	// The other biases stay 0, so half of the random accumulators clip to 0.
	for j := range spread {
		ftb[j] = 0.1 + float32(j)/(spread*u8Top)
		ftb[spread+j] = ftb[j]
	}
	for i := range 2 * n {
		fc0w[i*h] = 0
	}
	for j := range spread {
		fc0w[j*h], fc0w[(spread+j)*h] = 1.0/spread, -1.0/spread
	}
	fc0b[0] = 0.5
	for j := range fc1w {
		fc1w[j] *= 0.01
	}
	fc1w[0] = float32(10000 / c.Scale) // a pawn is 100 cp
	params[5].Data[0] = -fc1w[0] * 0.5
	net, err := NewNet(weightsFile(b, m, params))
	if err != nil {
		b.Fatal(err)
	}
	return net
}

// benchLines are the bench positions with their legal moves, which the
// benchmarks make, evaluate and take back one after the other.
func benchLines(b *testing.B) ([]*board.Board, [][]board.Move) {
	var boards []*board.Board
	var moves [][]board.Move
	for _, fen := range search.BenchPositions {
		bd := mustFEN(b, fen)
		if ms := bd.LegalMoves(); len(ms) > 0 {
			boards, moves = append(boards, bd), append(moves, ms)
		}
	}
	return boards, moves
}

// shippedNet is the network the nnue player ships with, or the one the
// environment's DCHESS_BENCH_NNUE names: the benchmarks time the work a
// trained network does (its clipped bytes are 0 in the proportions a
// search meets, which the first layer's product skips).
func shippedNet(b testing.TB) *Net {
	b.Helper()
	path := filepath.Join("..", "shipped", "nnue.dcw")
	if p := os.Getenv("DCHESS_BENCH_NNUE"); p != "" {
		path = p
	}
	f, err := dcw.Read(path)
	if err != nil {
		b.Fatal(err)
	}
	n, err := NewNet(f)
	if err != nil {
		b.Fatal(err)
	}
	return n
}

// rootedLines returns the bench positions, their legal moves and an
// evaluator rooted at each: a search refreshes its accumulators once, at
// the root, so the benchmarks leave that refresh out of the time.
func rootedLines(b *testing.B, n *Net) ([]*board.Board, [][]board.Move, []*Evaluator) {
	boards, moves := benchLines(b)
	evals := make([]*Evaluator, len(boards))
	for k, bd := range boards {
		evals[k] = NewEvaluator(n)
		evals[k].Root(bd)
	}
	return boards, moves, evals
}

// BenchmarkUpdateEvaluate is what a search node costs the evaluator with
// the shipped network: the move's accumulator update and the evaluation,
// with the board's make and unmake (BenchmarkMakeUnmake alone) included.
func BenchmarkUpdateEvaluate(b *testing.B) {
	boards, moves, evals := rootedLines(b, shippedNet(b))
	b.ResetTimer()
	defer cpuPerOp(b)()
	for i := 0; i < b.N; {
		for k, bd := range boards {
			e := evals[k]
			for _, m := range moves[k] {
				e.MakeMove(bd, m)
				bd.Make(m)
				e.Evaluate(bd)
				bd.Unmake()
				e.Unmake()
				i++
			}
		}
	}
}

// BenchmarkEvaluatorNode is what a search node costs the evaluator alone,
// issue #19's "incremental update plus evaluation": the observer's make,
// the accumulator update, the evaluation and the unmake, on positions
// whose boards were made before the clock started.
func BenchmarkEvaluatorNode(b *testing.B) {
	boards, moves, evals := rootedLines(b, shippedNet(b))
	children := make([][]*board.Board, len(boards))
	for k, bd := range boards {
		for _, m := range moves[k] {
			bd.Make(m)
			children[k] = append(children[k], mustFEN(b, bd.FEN()))
			bd.Unmake()
		}
	}
	b.ResetTimer()
	defer cpuPerOp(b)()
	for i := 0; i < b.N; {
		for k, bd := range boards {
			e := evals[k]
			for j, m := range moves[k] {
				e.MakeMove(bd, m)
				e.Evaluate(children[k][j])
				e.Unmake()
				i++
			}
		}
	}
}

// BenchmarkUpdate is the accumulator update alone.
func BenchmarkUpdate(b *testing.B) {
	boards, moves, evals := rootedLines(b, shippedNet(b))
	b.ResetTimer()
	defer cpuPerOp(b)()
	for i := 0; i < b.N; {
		for k, bd := range boards {
			e := evals[k]
			for _, m := range moves[k] {
				e.MakeMove(bd, m)
				e.net.update(&e.frames[0], &e.frames[1])
				e.Unmake()
				i++
			}
		}
	}
}

// BenchmarkMakeUnmake is the board's share of BenchmarkUpdateEvaluate.
func BenchmarkMakeUnmake(b *testing.B) {
	boards, moves := benchLines(b)
	b.ResetTimer()
	for i := 0; i < b.N; {
		for k, bd := range boards {
			for _, m := range moves[k] {
				bd.Make(m)
				bd.Unmake()
				i++
			}
		}
	}
}

// searchDepth keeps BenchmarkSearch to seconds: the bench positions at
// depth 10 take the heuristic player 2.8 million nodes.
const searchDepth = 8

// BenchmarkSearch runs the bench positions to searchDepth with the nnue and
// the heuristic evaluator: compare their nodes/s.
func BenchmarkSearch(b *testing.B) {
	for _, player := range []struct {
		name string
		eval func() search.Evaluator
	}{
		{"nnue", func() search.Evaluator { return NewEvaluator(shippedNet(b)) }},
		{"heuristic", func() search.Evaluator { return heuristic.New() }},
	} {
		b.Run(player.name, func(b *testing.B) {
			var nodes int64
			for range b.N {
				r, err := search.Bench(context.Background(), player.eval(), search.Options{HashMB: 16}, searchDepth, nil)
				if err != nil {
					b.Fatal(err)
				}
				nodes += r.Nodes
			}
			b.ReportMetric(float64(nodes)/b.Elapsed().Seconds(), "nodes/s")
		})
	}
}

func TestBenchNetScoresMaterial(t *testing.T) {
	e := NewEvaluator(benchNet(t))
	for fen, want := range map[string]int{
		board.StartFEN: 0,
		"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNB1KBNR w KQkq - 0 1": -900,
		"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNB1KBNR b KQkq - 0 1": 900,
	} {
		if got := e.Network(mustFEN(t, fen)); got < want-20 || got > want+20 {
			t.Errorf("%s: %d, want about %d", fen, got, want)
		}
	}
}

// trainBatch is the batch BenchmarkTrainStep times: configs/nnue.yaml's
// 1024.
const trainBatch = 1024

// BenchmarkTrainStep is one training step of the default size without the
// pairwise product (512 → 32 → 1) in the Gorgonia graph the loop runs,
// forward and backward, without the optimizer (the loop's Adam is in
// pipeline): trainBatch positions of 26 pieces per view, random win
// probabilities. The whole step with Adam, on the same batches, is
// pipeline/train's BenchmarkTrainStepWorkers/nnue, which scripts/bench/
// train.sh compares with PyTorch (train_torch.py's nnue).
func BenchmarkTrainStep(b *testing.B) {
	c := DefaultConfig()
	c.Pairwise = false
	benchTrainStep(b, c)
}

// BenchmarkTrainStepPairwise is BenchmarkTrainStep for the default network,
// with the pairwise product.
func BenchmarkTrainStepPairwise(b *testing.B) { benchTrainStep(b, DefaultConfig()) }

func benchTrainStep(b *testing.B, c Config) {
	m := newModel(b, c)
	rng := rand.New(rand.NewPCG(1, 2))
	bt := batch{rows: trainBatch}
	shapes := m.InputShapes(trainBatch)
	for _, s := range shapes {
		bt.bufs = append(bt.bufs, make([]float32, s[0]*s[1]))
	}
	for rp := 0; rp < 2*trainBatch; rp++ {
		for k, sq := range rng.Perm(64)[:26] {
			bt.bufs[InputActive][rp*Slots+k] = float32(1 + rng.IntN(12)*64 + sq)
		}
	}
	for i := range trainBatch {
		bt.bufs[InputWinProb][i], bt.bufs[InputResult][i] = rng.Float32(), 0.5
	}
	gr := buildGraph(b, m, m.InitParams(1), bt)
	defer gr.vm.Close()
	gr.run(b)
	b.ResetTimer()
	for range b.N {
		gr.run(b)
	}
	b.ReportMetric(float64(b.N*trainBatch)/b.Elapsed().Seconds(), "samples/s")
}

// BenchmarkFirstLayer is the first dense layer's product alone, on the
// shipped network's clipped bytes of the bench positions' moves; it
// reports the share of their chunks of four that are all 0, which the
// product skips.
func BenchmarkFirstLayer(b *testing.B) {
	net := shippedNet(b)
	boards, moves, evals := rootedLines(b, net)
	var inputs [][]uint8
	for k, bd := range boards {
		e := evals[k]
		for _, m := range moves[k] {
			e.MakeMove(bd, m)
			bd.Make(m)
			e.Evaluate(bd)
			inputs = append(inputs, slices.Clone(e.scratch.bytes[:net.first.in]))
			bd.Unmake()
			e.Unmake()
		}
	}
	var zero, chunks int
	for _, in := range inputs {
		for c := 0; c < len(in); c += 4 {
			if in[c]|in[c+1]|in[c+2]|in[c+3] == 0 {
				zero++
			}
			chunks++
		}
	}
	s, l := newScratch(net.cfg), &net.first
	b.ResetTimer()
	defer cpuPerOp(b)()
	for i := 0; i < b.N; {
		for _, in := range inputs {
			l.product(s.sums[:l.width], in, s.nnz)
			i++
		}
	}
	b.ReportMetric(100*float64(zero)/float64(chunks), "%zero-chunks")
}
