package search

import (
	"context"
	"math/bits"
	"testing"
	"time"

	"github.com/dchess/dchess/internal/chess/board"
)

// materialEval is the simplest evaluator that makes tactics matter; the
// heuristic evaluator lives in its own package and is tested there.
type materialEval struct{}

func (materialEval) Evaluate(b *board.Board) int {
	side := func(bb *board.Bitboards) int {
		return 100*bits.OnesCount64(bb.Pawns) + 320*bits.OnesCount64(bb.Knights) +
			330*bits.OnesCount64(bb.Bishops) + 500*bits.OnesCount64(bb.Rooks) + 900*bits.OnesCount64(bb.Queens)
	}
	s := side(b.Pieces(board.White)) - side(b.Pieces(board.Black))
	if b.SideToMove() == board.Black {
		return -s
	}
	return s
}

func mustFEN(t testing.TB, fen string) *board.Board {
	t.Helper()
	b, err := board.FromFEN(fen)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func search(t *testing.T, algo Algorithm, fen string, lim Limits) Result {
	t.Helper()
	e := New(materialEval{}, Options{HashMB: 1, Algorithm: algo})
	b := mustFEN(t, fen)
	before := b.FEN()
	res := e.Search(context.Background(), b, lim, nil)
	if b.FEN() != before {
		t.Fatalf("board changed by search: %s -> %s", before, b.FEN())
	}
	return res
}

func TestFindsMates(t *testing.T) {
	cases := []struct {
		name, fen, best string
		mate            int
	}{
		{"back rank in 1", "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", "a1a8", 1},
		{"two rooks in 2", "7k/8/8/8/8/8/R7/1R4K1 w - - 0 1", "", 2},
		{"smothered in 1", "r5rk/6pp/7N/8/8/8/1Q6/6K1 w - - 0 1", "h6f7", 1},
		{"mated in 2", "7K/8/8/8/8/8/r7/1r4k1 b - - 0 1", "", 2},
		{"mated in 1 whatever white does", "7k/8/8/8/8/r7/1r6/7K w - - 0 1", "", -1},
	}
	for _, c := range cases {
		for _, algo := range []Algorithm{AlphaBeta, Minimax} {
			t.Run(c.name+"/"+algo.String(), func(t *testing.T) {
				// Late-move reductions search a quiet first move of a
				// mate in 2 one ply short at depth 4; minimax has none.
				depth := 6
				if algo == Minimax {
					depth = 4
				}
				res := search(t, algo, c.fen, Limits{Depth: depth})
				if c.best != "" && board.UCI(res.Best) != c.best {
					t.Errorf("best %s, want %s (score %d)", board.UCI(res.Best), c.best, res.Score)
				}
				if c.mate != 0 && res.Mate != c.mate {
					t.Errorf("mate %d, want %d (score %d, pv %v)", res.Mate, c.mate, res.Score, res.PV)
				}
			})
		}
	}
}

func TestNoLegalMoves(t *testing.T) {
	res := search(t, AlphaBeta, "7k/6Q1/6K1/8/8/8/8/8 b - - 0 1", Limits{Depth: 3})
	if res.Best != board.NullMove || res.Score != -MateScore || res.Mate != 0 {
		t.Errorf("checkmated: %+v", res)
	}
	res = search(t, AlphaBeta, "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", Limits{Depth: 3})
	if res.Best != board.NullMove || res.Score != 0 {
		t.Errorf("stalemated: %+v", res)
	}
}

func TestWinsMaterialThroughExchange(t *testing.T) {
	// Quiescence must see that Qxd5?? loses the queen to the pawn on e6,
	// and a hanging queen must be taken.
	res := search(t, AlphaBeta, "4k3/8/4p3/3n4/8/8/3Q4/3RK3 w - - 0 1", Limits{Depth: 2})
	if board.UCI(res.Best) == "d2d5" {
		t.Errorf("took a defended knight with the queen: %+v", res)
	}
	res = search(t, AlphaBeta, "4k3/8/8/3q4/8/8/8/3RK3 w - - 0 1", Limits{Depth: 2})
	if board.UCI(res.Best) != "d1d5" {
		t.Errorf("missed the hanging queen: best %s", board.UCI(res.Best))
	}
}

func TestRepetitionInsideTreeIsADraw(t *testing.T) {
	// White is a queen down; after Kg1 Kb8 Kh1 Ka8, Kg1 repeats a position,
	// which the search scores as a draw and so prefers.
	fen := "k7/8/8/8/1q6/8/8/7K w - - 0 1"
	b := mustFEN(t, fen)
	for _, uci := range []string{"h1g1", "a8b8", "g1h1", "b8a8"} {
		m, err := b.ParseUCI(uci)
		if err != nil {
			t.Fatal(err)
		}
		b.Make(m)
	}
	e := New(materialEval{}, Options{HashMB: 1})
	res := e.Search(context.Background(), b, Limits{Depth: 3}, nil)
	if board.UCI(res.Best) != "h1g1" || res.Score != 0 {
		t.Errorf("with history: best %s score %d, want h1g1 0", board.UCI(res.Best), res.Score)
	}
	fresh := search(t, AlphaBeta, fen, Limits{Depth: 3})
	if fresh.Score > -800 {
		t.Errorf("without history the queen-down position scores %d", fresh.Score)
	}
}

func TestFiftyMoveRuleInsideTree(t *testing.T) {
	// Every move reaches the hundredth half-move and none mates, so a
	// queen up is worth nothing.
	res := search(t, AlphaBeta, "7k/8/8/8/8/8/8/KQ6 w - - 99 80", Limits{Depth: 3})
	if res.Score != 0 {
		t.Errorf("score %d, want 0", res.Score)
	}
}

func TestSameResultForSameLimits(t *testing.T) {
	fen := "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4"
	for _, lim := range []Limits{{Depth: 4}, {Nodes: 20000}} {
		a := search(t, AlphaBeta, fen, lim)
		e := New(materialEval{}, Options{HashMB: 1})
		b := mustFEN(t, fen)
		e.Search(context.Background(), b, Limits{Depth: 3}, nil) // leaves table, killers, history behind
		e.NewGame()
		c := e.Search(context.Background(), b, lim, nil)
		if a.Best != c.Best || a.Score != c.Score || a.Nodes != c.Nodes || a.Depth != c.Depth || len(a.PV) != len(c.PV) {
			t.Errorf("%+v: fresh engine %v %d %d d%d, after NewGame %v %d %d d%d",
				lim, a.Best, a.Score, a.Nodes, a.Depth, c.Best, c.Score, c.Nodes, c.Depth)
		}
	}
}

func TestNodeLimit(t *testing.T) {
	res := search(t, AlphaBeta, board.StartFEN, Limits{Nodes: 5000})
	if res.Nodes > 5000 || res.Nodes < 4000 {
		t.Errorf("nodes %d for a 5000-node limit", res.Nodes)
	}
	if res.Depth < 1 || res.Best == board.NullMove {
		t.Errorf("no finished iteration: %+v", res)
	}
}

func TestStopReturnsLegalMove(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, algo := range []Algorithm{AlphaBeta, Minimax} {
		e := New(materialEval{}, Options{HashMB: 1, Algorithm: algo})
		b := mustFEN(t, "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4")
		res := e.Search(ctx, b, Limits{Infinite: true}, nil)
		if _, err := b.ParseUCI(board.UCI(res.Best)); err != nil {
			t.Errorf("%v: stopped search returned %v: %v", algo, res.Best, err)
		}
	}
	// Cancelled while running: an infinite search must come back with the
	// best move of a finished iteration.
	ctx, cancel = context.WithCancel(context.Background())
	e := New(materialEval{}, Options{HashMB: 1})
	b := mustFEN(t, board.StartFEN)
	var finished []Info
	res := e.Search(ctx, b, Limits{Infinite: true}, func(info Info) {
		finished = append(finished, info)
		if info.Depth == 3 {
			cancel()
		}
	})
	if len(finished) == 0 || res.Depth != finished[len(finished)-1].Depth || res.PV[0] != res.Best {
		t.Errorf("result %+v does not match the last iteration", res)
	}
	if _, err := b.ParseUCI(board.UCI(res.Best)); err != nil {
		t.Errorf("illegal best move %v", res.Best)
	}
}

func TestInfoPerIteration(t *testing.T) {
	e := New(materialEval{}, Options{HashMB: 1})
	b := mustFEN(t, board.StartFEN)
	var depths []int
	res := e.Search(context.Background(), b, Limits{Depth: 4}, func(info Info) {
		depths = append(depths, info.Depth)
		if len(info.PV) == 0 || info.Nodes <= 0 || info.SelDepth < info.Depth {
			t.Errorf("incomplete info %+v", info)
		}
		// The PV must be a playable line.
		c := b.Clone()
		for _, m := range info.PV {
			if _, err := c.ParseUCI(board.UCI(m)); err != nil {
				t.Fatalf("PV %v not legal at %v: %v", info.PV, m, err)
			}
			c.Make(m)
		}
	})
	if len(depths) != 4 || depths[3] != 4 || res.Depth != 4 {
		t.Errorf("iterations %v, result depth %d", depths, res.Depth)
	}
}

func TestMovetimeAndClocksStop(t *testing.T) {
	// These would hang (and time the test out) if the clock were ignored.
	for _, lim := range []Limits{
		{MoveTime: 30 * time.Millisecond},
		{WTime: 300 * time.Millisecond, BTime: time.Second},
	} {
		res := search(t, AlphaBeta, board.StartFEN, lim)
		if res.Best == board.NullMove {
			t.Errorf("%+v: no move", lim)
		}
	}
}

func TestTimeBudget(t *testing.T) {
	const ms = time.Millisecond
	cases := []struct {
		lim        Limits
		side       board.Color
		soft, hard time.Duration
		ok         bool
	}{
		{Limits{Depth: 5}, board.White, 0, 0, false},
		{Limits{WTime: time.Minute, Infinite: true}, board.White, 0, 0, false},
		{Limits{MoveTime: 250 * ms, WTime: time.Minute}, board.White, 250 * ms, 250 * ms, true},
		// Target 60 s / 20 moves + 3/4 of 1 s = 3.75 s: no new iteration
		// after half of it, none running past three times it, less the overhead.
		{Limits{WTime: time.Minute, WInc: time.Second}, board.White, 1875*ms - moveOverhead, 11250*ms - moveOverhead, true},
		{Limits{WTime: time.Minute, BTime: 10 * time.Second, MovesToGo: 10}, board.Black, 500*ms - moveOverhead, 3000*ms - moveOverhead, true},
		// A huge increment is capped at 2/5 of the clock.
		{Limits{BTime: time.Second, BInc: 5 * time.Second}, board.Black, 400*ms - moveOverhead, 400*ms - moveOverhead, true},
		// The last move before the control may use most, never all, of the clock.
		{Limits{WTime: time.Second, MovesToGo: 1}, board.White, 500*ms - moveOverhead, 800*ms - moveOverhead, true},
		{Limits{WTime: time.Second, MovesToGo: 1, MoveOverhead: 300 * ms}, board.White, 200 * ms, 500 * ms, true},
		{Limits{WTime: time.Second, MovesToGo: 1, MoveOverhead: 2 * time.Second}, board.White, ms, ms, true},
	}
	for _, c := range cases {
		soft, hard, ok := timeBudget(c.lim, c.side)
		if ok != c.ok || soft != c.soft || hard != c.hard {
			t.Errorf("%+v: soft %v hard %v ok %v, want soft %v hard %v ok %v", c.lim, soft, hard, ok, c.soft, c.hard, c.ok)
		}
	}
}

func TestAlphaBetaSearchesFewerNodesThanMinimax(t *testing.T) {
	fen := "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4"
	ab := search(t, AlphaBeta, fen, Limits{Depth: 3})
	mm := search(t, Minimax, fen, Limits{Depth: 3})
	if ab.Nodes*3 > mm.Nodes {
		t.Errorf("alpha-beta %d nodes, minimax %d", ab.Nodes, mm.Nodes)
	}
}

func TestLateMoveReductionLeavesDepth(t *testing.T) {
	for _, improving := range []bool{true, false} {
		for depth := 0; depth <= MaxPly; depth++ {
			for i := 0; i < 300; i++ {
				r := lateMoveReduction(depth, i, improving)
				switch {
				case r < 0 || (r > 0 && depth-1-r < 1):
					t.Fatalf("depth %d move %d improving %v: reduction %d leaves %d plies", depth, i, improving, r, depth-1-r)
				case (depth < 3 || i < lmrFirstMove) && r != 0:
					t.Fatalf("depth %d move %d improving %v: reduced by %d", depth, i, improving, r)
				case depth >= 3 && i >= lmrFirstMove && r == 0:
					t.Fatalf("depth %d move %d improving %v: not reduced", depth, i, improving)
				case depth >= 4 && i >= lmrFirstMove && !improving && r <= lateMoveReduction(depth, i, true) && r < depth-2:
					t.Fatalf("depth %d move %d: not improving reduces %d, no more than improving", depth, i, r)
				}
			}
		}
	}
}

func TestCutOffIterationKeepsABetterMove(t *testing.T) {
	changed := 0
	for _, fen := range []string{
		"2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - 0 1",
		"5rk1/1ppb3p/p1pb4/6q1/3P1p1r/2P1R2P/PP1BQ1P1/5RKN w - - 0 1",
		"r1bq2rk/pp3pbp/2p1p1pQ/7P/3P4/2PB1N2/PP3PPR/2KR4 w - - 0 1",
		"5k2/6pp/p1qN4/1p1p4/3P4/2PKP2Q/PP3r2/3R4 b - - 0 1",
		"r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
	} {
		var infos []Info
		e := New(materialEval{}, Options{HashMB: 1})
		e.Search(context.Background(), mustFEN(t, fen), Limits{Depth: 7}, func(info Info) { infos = append(infos, info) })
		for i := 1; i < len(infos); i++ {
			before, after := infos[i-1], infos[i]
			if before.PV[0] == after.PV[0] {
				continue
			}
			// One node before iteration after.Depth finishes, the move it
			// prefers has been searched and must be played.
			res := search(t, AlphaBeta, fen, Limits{Nodes: after.Nodes - 1})
			if res.Depth != before.Depth || res.Best != after.PV[0] {
				t.Errorf("%s: cut off in depth %d: %v (depth %d), want %v (depth %d kept %v)",
					fen, after.Depth, res.Best, res.Depth, after.PV[0], before.Depth, before.PV[0])
			}
			changed++
			break
		}
	}
	if changed == 0 {
		t.Fatal("no position changed its best move between iterations")
	}
}

func TestAspirationWidensToTheScore(t *testing.T) {
	fen := "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4"
	full := New(materialEval{}, Options{HashMB: 1})
	want := full.negamax(mustFEN(t, fen), aspirationDepth, -infinity, infinity, 0, false)
	// A window far from the score fails, low or high, and must widen until
	// the search lands on the same score.
	for _, guess := range []int{want - 600, want - 30, want + 30, want + 600} {
		e := New(materialEval{}, Options{HashMB: 1})
		if got := e.aspirate(mustFEN(t, fen), aspirationDepth, guess); got != want {
			t.Errorf("window around %d: score %d, want %d", guess, got, want)
		}
	}
}

// TestRewardQuietMarksDownTriedMoves checks the history update: the cutting
// move rises, the quiet moves tried before it fall, scores stay within
// ±historyMax however often they repeat, and the cut becomes the counter
// move of the move before it.
func TestRewardQuietMarksDownTriedMoves(t *testing.T) {
	b := board.New()
	moves := b.LegalMoves()
	cut, tried := moves[0], moves[1:3]
	var e Engine
	e.moveStack[0] = moves[5]
	for range 1000 {
		e.rewardQuiet(board.White, cut, tried, 20, 1)
	}
	if h := e.history[board.White][cut.From()][cut.To()]; h <= 0 || h > historyMax {
		t.Errorf("cutting move's history %d, want in (0, %d]", h, historyMax)
	}
	for _, m := range tried {
		if h := e.history[board.White][m.From()][m.To()]; h >= 0 || h < -historyMax {
			t.Errorf("tried move %s history %d, want in [-%d, 0)", board.UCI(m), h, historyMax)
		}
	}
	if got := e.counterMove(1); got != cut {
		t.Errorf("counter move %s, want %s", board.UCI(got), board.UCI(cut))
	}
	if e.killers[1][0] != cut {
		t.Errorf("killer %s, want %s", board.UCI(e.killers[1][0]), board.UCI(cut))
	}
}

// TestExcludedMoveIsLeftOut checks the search a singular extension makes:
// with the only winning move (the rook takes the queen) left out, the node
// scores what the other moves are worth, never plays the move left out, and
// neither reads the table's result for the position (stored by a full
// search just before, with the move) nor stores its own.
func TestExcludedMoveIsLeftOut(t *testing.T) {
	fen := "4k3/8/8/3q4/8/8/3R4/4K3 w - - 0 1"
	e := New(materialEval{}, Options{HashMB: 1})
	b := mustFEN(t, fen)
	win := board.NullMove
	for _, m := range b.LegalMoves() {
		if board.UCI(m) == "d2d5" {
			win = m
		}
	}
	full := e.negamax(b, 3, -infinity, infinity, 1, false)
	if full < 300 || e.pv[1][1] != win {
		t.Fatalf("full search: %d, line from %s; want the queen taken", full, board.UCI(e.pv[1][1]))
	}
	before, _ := e.tt.probe(b.Key())
	e.excluded[1] = win
	left := e.negamax(b, 3, -infinity, infinity, 1, false)
	e.excluded[1] = board.NullMove
	if left > -300 || e.pv[1][1] == win || e.pvLen[1] == 1 {
		t.Errorf("without d2d5: %d, line from %s; want the queen kept by black", left, board.UCI(e.pv[1][1]))
	}
	if after, _ := e.tt.probe(b.Key()); after != before {
		t.Errorf("the node without d2d5 changed the table's entry: %+v, was %+v", after, before)
	}
}
