package search

import (
	"context"
	"testing"

	"github.com/dchess/dchess/internal/chess/board"
)

// followingEval scores by material, as materialEval does, but keeps its own
// board from the MoveObserver calls alone and fails when the board it is
// asked to evaluate is not the one those calls lead to.
type followingEval struct {
	t     *testing.T
	b     *board.Board
	calls int
}

func (f *followingEval) Root(b *board.Board) { f.b = b.Clone() }

func (f *followingEval) MakeMove(b *board.Board, m board.Move) {
	f.check(b, "before a move")
	f.b.Make(m)
	f.calls++
}

func (f *followingEval) MakeNull(b *board.Board) {
	f.check(b, "before a null move")
	f.b.MakeNull()
	f.calls++
}

func (f *followingEval) Unmake() { f.b.Unmake() }

func (f *followingEval) Evaluate(b *board.Board) int {
	f.check(b, "at evaluation")
	return materialEval{}.Evaluate(b)
}

func (f *followingEval) check(b *board.Board, when string) {
	f.t.Helper()
	if f.b == nil {
		f.t.Fatalf("%s: no Root call before the search used the evaluator", when)
	}
	if f.b.FEN() != b.FEN() || f.b.Key() != b.Key() {
		f.t.Fatalf("%s: the observed moves lead to %s, the search is at %s", when, f.b.FEN(), b.FEN())
	}
}

// The positions have castling, en passant, promotions, checks and null-move
// chances, so every kind of move and every call site is exercised.
var observerFENs = []string{
	board.StartFEN,
	"r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
	"8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
	"r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
	"rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
}

func TestMoveObserverSeesEveryMove(t *testing.T) {
	for _, algo := range []Algorithm{AlphaBeta, Minimax} {
		depth := 5
		if algo == Minimax {
			depth = 3
		}
		for _, fen := range observerFENs {
			f := &followingEval{t: t}
			e := New(f, Options{HashMB: 1, Algorithm: algo})
			got := e.Search(context.Background(), mustFEN(t, fen), Limits{Depth: depth}, nil)
			if f.calls == 0 {
				t.Fatalf("%v %s: the observer was told of no move", algo, fen)
			}
			if f.b.FEN() != mustFEN(t, fen).FEN() {
				t.Fatalf("%v %s: the observer ends at %s: an unmake was not reported", algo, fen, f.b.FEN())
			}
			// Observing changes nothing: the same tree as the same
			// evaluation without the observer.
			want := New(materialEval{}, Options{HashMB: 1, Algorithm: algo}).
				Search(context.Background(), mustFEN(t, fen), Limits{Depth: depth}, nil)
			if got.Nodes != want.Nodes || got.Best != want.Best || got.Score != want.Score {
				t.Fatalf("%v %s: with the observer %d nodes, %v, %d; without %d nodes, %v, %d",
					algo, fen, got.Nodes, got.Best, got.Score, want.Nodes, want.Best, want.Score)
			}
		}
	}
}
