package search

import (
	"context"
	"math"
	"testing"

	"github.com/dchess/dchess/internal/chess/board"
	"github.com/dchess/dchess/internal/chess/winprob"
)

// materialComparator says a is better for White than b with a probability
// that grows with White's material edge of a over b, as a trained siamese
// network would on such positions.
type materialComparator struct{ calls int }

func whiteMaterial(b *board.Board) int {
	s := materialEval{}.Evaluate(b)
	if b.SideToMove() == board.Black {
		return -s
	}
	return s
}

func (m *materialComparator) Compare(a, b *board.Board) float64 {
	m.calls++
	return 1 / (1 + math.Exp(-float64(whiteMaterial(a)-whiteMaterial(b))/100))
}

func compareSearch(t *testing.T, fen string, lim Limits) (Result, *materialComparator) {
	t.Helper()
	cmp := &materialComparator{}
	e := NewCompare(cmp, CompareOptions{HashMB: 1})
	b := mustFEN(t, fen)
	before := b.FEN()
	res := e.Search(context.Background(), b, lim, nil)
	if b.FEN() != before {
		t.Fatalf("board changed by search: %s -> %s", before, b.FEN())
	}
	if int64(cmp.calls) < e.Comparisons() {
		t.Fatalf("%d comparisons counted, the comparator saw %d", e.Comparisons(), cmp.calls)
	}
	return res, cmp
}

func TestCompareSearchFindsMates(t *testing.T) {
	cases := []struct {
		name, fen, best string
		mate            int
	}{
		{"back rank in 1", "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", "a1a8", 1},
		{"two rooks in 2", "7k/8/8/8/8/8/R7/1R4K1 w - - 0 1", "", 2},
		{"mated in 2", "7K/8/8/8/8/8/r7/1r4k1 b - - 0 1", "", 2},
		{"mated in 1 whatever white does", "7k/8/8/8/8/r7/1r6/7K w - - 0 1", "", -1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, _ := compareSearch(t, c.fen, Limits{Depth: 4})
			if res.Mate != c.mate {
				t.Fatalf("mate %d, want %d (best %s, score %d)", res.Mate, c.mate, board.UCI(res.Best), res.Score)
			}
			if c.best != "" && board.UCI(res.Best) != c.best {
				t.Fatalf("best %s, want %s", board.UCI(res.Best), c.best)
			}
		})
	}
}

func TestCompareSearchTactics(t *testing.T) {
	// A free queen is taken, by White and by Black.
	if res, _ := compareSearch(t, "4k3/8/8/3q4/8/8/3R4/4K3 w - - 0 1", Limits{Depth: 2}); board.UCI(res.Best) != "d2d5" {
		t.Fatalf("white did not take the queen: %s", board.UCI(res.Best))
	}
	if res, _ := compareSearch(t, "4k3/3r4/8/8/3Q4/8/8/4K3 b - - 0 1", Limits{Depth: 2}); board.UCI(res.Best) != "d7d4" {
		t.Fatalf("black did not take the queen: %s", board.UCI(res.Best))
	}
	// At depth 1 only quiescence sees that the defended pawn costs the queen.
	res, _ := compareSearch(t, "4k3/8/2p5/3p4/8/8/8/3QK3 w - - 0 1", Limits{Depth: 1})
	if board.UCI(res.Best) == "d1d5" {
		t.Fatal("the queen took a defended pawn")
	}
	// Without quiescence it falls for it: the test above is not vacuous.
	e := NewCompare(&materialComparator{}, CompareOptions{HashMB: 1, QuiesceDepth: -1})
	if res := e.Search(context.Background(), mustFEN(t, "4k3/8/2p5/3p4/8/8/8/3QK3 w - - 0 1"), Limits{Depth: 1}, nil); board.UCI(res.Best) != "d1d5" {
		t.Fatalf("without quiescence the search played %s, not the greedy d1d5", board.UCI(res.Best))
	}
}

func TestCompareSearchLimitsAndDeterminism(t *testing.T) {
	fen := "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4"
	a, _ := compareSearch(t, fen, Limits{Depth: 3})
	b, _ := compareSearch(t, fen, Limits{Depth: 3})
	if a.Best != b.Best || a.Nodes != b.Nodes || a.Depth != 3 || len(a.PV) == 0 || a.PV[0] != a.Best {
		t.Fatalf("depth-limited searches differ or are incomplete: %+v vs %+v", a, b)
	}
	n, _ := compareSearch(t, fen, Limits{Nodes: 500})
	if n.Nodes > 500 || n.Best == board.NullMove {
		t.Fatalf("node limit 500: %d nodes, best %v", n.Nodes, n.Best)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res := NewCompare(&materialComparator{}, CompareOptions{}).Search(ctx, mustFEN(t, fen), Limits{}, nil)
	if res.Best == board.NullMove {
		t.Fatal("a cancelled search must still return a legal move")
	}
}

func TestCompareValues(t *testing.T) {
	c := NewCompare(&materialComparator{}, CompareOptions{})
	whiteUp := c.leaf(mustFEN(t, "4k3/8/8/8/8/8/8/R3K3 b - - 0 1"))
	blackUp := c.leaf(mustFEN(t, "r3k3/8/8/8/8/8/8/4K3 w - - 0 1"))
	draw := value{kind: drawn}
	ordered := []value{{kind: minusInf}, {kind: blackMates, ply: 2}, {kind: blackMates, ply: 5}, blackUp, draw,
		whiteUp, {kind: whiteMates, ply: 7}, {kind: whiteMates, ply: 3}, {kind: plusInf}}
	for i := range ordered {
		for j := range ordered {
			if got := c.better(ordered[i], ordered[j]); got != (i > j) {
				t.Errorf("better(%+v, %+v) = %v", ordered[i], ordered[j], got)
			}
		}
	}
}

// A comparison search scores its root on the centipawn scale: the
// comparator's probability that the principal variation's leaf beats a
// draw (its own mirror), from the side to move's view, through the inverse
// of the centipawn logistic; a draw is 0.
func TestCompareSearchScore(t *testing.T) {
	// materialComparator on a leaf a pawn up against its mirror (a pawn
	// down) says p = 1/(1+exp(-2)).
	up := winprob.Centipawns(1 / (1 + math.Exp(-2)))
	if up < 500 || up > 560 {
		t.Fatalf("a pawn up maps to %d cp", up)
	}
	for _, c := range []struct {
		fen  string
		want int
	}{
		{"4k3/8/8/8/8/8/P7/4K3 w - - 0 1", up},
		{"4k3/p7/8/8/8/8/8/4K3 b - - 0 1", up},
		{"4k3/p7/8/8/8/8/8/4K3 w - - 0 1", -up},
		{"4k3/8/8/8/8/8/P7/4K3 b - - 0 1", -up},
		{"4k3/8/8/8/8/8/8/4K3 w - - 0 1", 0}, // every line a draw
	} {
		res, _ := compareSearch(t, c.fen, Limits{Depth: 3})
		if res.Score != c.want || res.Mate != 0 {
			t.Errorf("%s: score %d mate %d, want score %d", c.fen, res.Score, res.Mate, c.want)
		}
	}
}

func TestMirrorFEN(t *testing.T) {
	cases := map[string]string{
		"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1": "rnbqkbnr/pppp1ppp/8/4p3/8/8/PPPPPPPP/RNBQKBNR w KQkq e6 0 1",
		"4k2r/8/8/8/8/8/8/R3K3 w Qk - 3 20":                           "r3k3/8/8/8/8/8/8/4K2R b Kq - 3 20",
	}
	for in, want := range cases {
		if got := MirrorFEN(in); got != want {
			t.Errorf("MirrorFEN(%q) = %q, want %q", in, got, want)
		}
		if back := MirrorFEN(MirrorFEN(in)); back != in {
			t.Errorf("mirroring twice gives %q", back)
		}
	}
}
