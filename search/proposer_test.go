package search

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/dchess/dchess/internal/chess/board"
)

// reversedProposer ranks the legal moves in the reverse of the order they
// are generated in, far from the order the search gives them itself, and
// counts its calls.
type reversedProposer struct{ calls int }

func (p *reversedProposer) Propose(b *board.Board) ([]board.Move, []float64, error) {
	p.calls++
	moves := b.LegalMoves()
	scores := make([]float64, len(moves))
	for i := range moves {
		scores[i] = float64(i)
	}
	return moves, scores, nil
}

// ranking is the order the proposer ranks the moves of b in.
func (p *reversedProposer) ranking(b *board.Board) []board.Move {
	moves := b.LegalMoves()
	slices.Reverse(moves)
	return moves
}

type failingProposer struct{}

func (failingProposer) Propose(*board.Board) ([]board.Move, []float64, error) {
	return nil, nil, errors.New("no model")
}

// rootRecorder scores by material and records, in order, the moves the
// search plays from the root.
type rootRecorder struct {
	materialEval
	height int
	root   []board.Move
}

func (r *rootRecorder) Root(*board.Board) { r.height = 0 }
func (r *rootRecorder) MakeMove(_ *board.Board, m board.Move) {
	if r.height == 0 {
		r.root = append(r.root, m)
	}
	r.height++
}
func (r *rootRecorder) MakeNull(*board.Board) { r.height++ }
func (r *rootRecorder) Unmake()               { r.height-- }

// rootOrder searches fen to depth 1, where every root move is searched
// once, and returns the order the root moves were searched in.
func rootOrder(t *testing.T, fen string, proposer MoveProposer) []board.Move {
	t.Helper()
	rec := &rootRecorder{}
	e := New(rec, Options{HashMB: 1, Proposer: proposer})
	e.Search(context.Background(), mustFEN(t, fen), Limits{Depth: 1}, nil)
	return rec.root
}

const proposerFEN = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"

func TestProposerOrdersTheRoot(t *testing.T) {
	p := &reversedProposer{}
	want := p.ranking(mustFEN(t, proposerFEN))
	got := rootOrder(t, proposerFEN, p)
	if !slices.Equal(got, want) {
		t.Fatalf("root searched in the order %v, the proposer ranks %v", uciList(got), uciList(want))
	}
	if without := rootOrder(t, proposerFEN, nil); slices.Equal(without, want) {
		t.Fatal("the search orders the root as the proposer does without it: the test shows nothing")
	}
	if p.calls != 1 {
		t.Errorf("the proposer was asked %d times in one search, want once", p.calls)
	}
}

// TestProposerLeavesTheHashMoveFirst: a search of a position the table
// knows starts with the table's move, wherever the proposer ranks it, and
// asks the proposer nothing more about a position it ranked.
func TestProposerLeavesTheHashMoveFirst(t *testing.T) {
	p := &reversedProposer{}
	rec := &rootRecorder{}
	e := New(rec, Options{HashMB: 1, Proposer: p})
	b := mustFEN(t, proposerFEN)
	res := e.Search(context.Background(), b, Limits{Depth: 4}, nil)
	ranking := p.ranking(b)
	if res.Best == ranking[0] {
		t.Fatalf("the best move %s is the proposer's first: the test shows nothing", board.UCI(res.Best))
	}
	rec.root = nil
	e.Search(context.Background(), b, Limits{Depth: 1}, nil)
	if len(rec.root) == 0 || rec.root[0] != res.Best {
		t.Fatalf("the second search started with %v, want the hash move %s", uciList(rec.root[:1]), board.UCI(res.Best))
	}
	if !slices.Equal(rec.root[1:], slices.DeleteFunc(ranking, func(m board.Move) bool { return m == res.Best })) {
		t.Errorf("after the hash move the root went %v, not in the proposer's order", uciList(rec.root[1:]))
	}
	if p.calls != 1 {
		t.Errorf("two searches of one position asked the proposer %d times, want once", p.calls)
	}
}

// TestProposerLeftOutMovesGoLast: moves the proposer does not rank follow
// the ranked ones.
func TestProposerLeftOutMovesGoLast(t *testing.T) {
	b := mustFEN(t, proposerFEN)
	moves := b.LegalMoves()
	top := []board.Move{moves[5], moves[2]}
	got := rootOrder(t, proposerFEN, fixedProposer{moves: top, scores: []float64{2, 1}})
	rest := slices.DeleteFunc(slices.Clone(moves), func(m board.Move) bool { return slices.Contains(top, m) })
	if len(got) != len(moves) || !slices.Equal(got[:2], top) || !sameMoves(got[2:], rest) {
		t.Fatalf("root searched in the order %v, want %v first", uciList(got), uciList(top))
	}
}

func sameMoves(a, b []board.Move) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

type fixedProposer struct {
	moves  []board.Move
	scores []float64
}

func (p fixedProposer) Propose(*board.Board) ([]board.Move, []float64, error) {
	return p.moves, p.scores, nil
}

// TestFailingProposerChangesNothing: a proposer that fails, or answers
// with a score missing, leaves the search as it is without one.
func TestFailingProposerChangesNothing(t *testing.T) {
	b := mustFEN(t, proposerFEN)
	lim := Limits{Depth: 5}
	want := New(materialEval{}, Options{HashMB: 1}).Search(context.Background(), b, lim, nil)
	for _, p := range []MoveProposer{failingProposer{}, fixedProposer{moves: b.LegalMoves()[:3], scores: []float64{1, 2}}} {
		got := New(materialEval{}, Options{HashMB: 1, Proposer: p}).Search(context.Background(), b, lim, nil)
		if got.Best != want.Best || got.Score != want.Score || got.Nodes != want.Nodes || !slices.Equal(got.PV, want.PV) {
			t.Errorf("%T: %s %d cp, %d nodes; without a proposer %s %d cp, %d nodes",
				p, board.UCI(got.Best), got.Score, got.Nodes, board.UCI(want.Best), want.Score, want.Nodes)
		}
	}
	with := New(materialEval{}, Options{HashMB: 1, Proposer: &reversedProposer{}}).Search(context.Background(), b, lim, nil)
	if with.Nodes == want.Nodes {
		t.Error("a working proposer searched as many nodes as none: the comparison shows nothing")
	}
}

// TestProposerAskedByTheMainThreadOnly: with helper threads the proposer,
// which need not be safe for concurrent use, is asked once; minimax, which
// orders nothing, does not ask it.
func TestProposerAskedByTheMainThreadOnly(t *testing.T) {
	b := mustFEN(t, proposerFEN)
	p := &reversedProposer{}
	New(materialEval{}, Options{HashMB: 1, Threads: 2, Proposer: p}).Search(context.Background(), b, Limits{Depth: 6}, nil)
	if p.calls != 1 {
		t.Errorf("two threads asked the proposer %d times, want once", p.calls)
	}
	p.calls = 0
	New(materialEval{}, Options{HashMB: 1, Algorithm: Minimax, Proposer: p}).Search(context.Background(), b, Limits{Depth: 2}, nil)
	if p.calls != 0 {
		t.Errorf("minimax asked the proposer %d times", p.calls)
	}
}

func uciList(moves []board.Move) []string {
	out := make([]string, len(moves))
	for i, m := range moves {
		out[i] = board.UCI(m)
	}
	return out
}
