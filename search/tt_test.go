package search

import (
	"context"
	"testing"

	"github.com/dchess/dchess/internal/chess/board"
)

func TestTranspositionTableReplacement(t *testing.T) {
	tt := newTranspositionTable(1)
	if len(tt.buckets) != 1<<20/bucketBytes {
		t.Fatalf("1 MB gives %d buckets", len(tt.buckets))
	}
	tt.age = 1
	// Three keys in one bucket: the deep entry keeps slot 0, the newest
	// shallow one takes slot 1 and pushes the older shallow one out.
	deep, shallow1, shallow2 := uint64(5), uint64(5+1<<40), uint64(5+2<<40)
	tt.store(deep, board.Move(1), 10, 8, 0, boundExact)
	tt.store(shallow1, board.Move(2), 20, 2, 0, boundLower)
	tt.store(shallow2, board.Move(3), 30, 1, 0, boundUpper)
	if e, ok := tt.probe(deep); !ok || e.depth != 8 || e.move != 1 {
		t.Errorf("deep entry lost: %+v %v", e, ok)
	}
	if _, ok := tt.probe(shallow1); ok {
		t.Error("older shallow entry survived in the always-replace slot")
	}
	if e, ok := tt.probe(shallow2); !ok || e.score != 30 || e.bound != boundUpper {
		t.Errorf("newest entry %+v %v", e, ok)
	}
	// A new search may replace the old deep entry.
	tt.age = 2
	tt.store(shallow1, board.Move(4), 40, 1, 0, boundExact)
	if e, ok := tt.probe(shallow1); !ok || slotKey(&tt.buckets[deep&tt.mask][0]) != shallow1 || e.move != 4 {
		t.Errorf("stale deep entry not replaced: %+v", e)
	}
	// Storing without a move keeps the known one.
	tt.store(shallow1, board.NullMove, 41, 2, 0, boundLower)
	if e, _ := tt.probe(shallow1); e.move != 4 || e.score != 41 {
		t.Errorf("update lost the move: %+v", e)
	}
	tt.clear()
	if _, ok := tt.probe(shallow1); ok {
		t.Error("clear left entries")
	}
}

func slotKey(s *ttSlot) uint64 {
	e, _, _ := s.load()
	return e.key
}

func TestMateScoresAreStoredRelativeToTheNode(t *testing.T) {
	// Mate in 3 plies from a node at ply 4 is MateScore-7 at the root.
	root := MateScore - 7
	stored := scoreToTT(root, 4)
	if stored != MateScore-3 {
		t.Errorf("stored %d", stored)
	}
	// Reached again at ply 6, the same mate is 9 plies from the root.
	if got := scoreFromTT(stored, 6); got != MateScore-9 {
		t.Errorf("read back at ply 6: %d", got)
	}
	if got := scoreFromTT(scoreToTT(-root, 4), 6); got != -(MateScore - 9) {
		t.Errorf("mated score read back: %d", got)
	}
	if scoreToTT(150, 9) != 150 || scoreFromTT(-150, 9) != -150 {
		t.Error("ordinary scores changed")
	}
	if MateIn(MateScore-1) != 1 || MateIn(MateScore-3) != 2 || MateIn(-(MateScore-2)) != -1 || MateIn(500) != 0 {
		t.Error("MateIn")
	}
}

func TestInsufficientMaterialInsideTree(t *testing.T) {
	// Any move leaves king and knight against king: a dead draw whatever
	// the evaluator thinks of the knight.
	res := search(t, AlphaBeta, "7k/8/8/8/8/8/8/KN6 w - - 0 1", Limits{Depth: 3})
	if res.Score != 0 {
		t.Errorf("score %d, want 0", res.Score)
	}
}

// TestNewGameEmptiesTheTable: after searches short and long, on one thread
// and on two, NewGame leaves every bucket as a fresh table's, whether it
// zeroes the buckets the threads wrote or, past their lists' bound, the
// whole table; and the next search is the one a fresh engine makes.
func TestNewGameEmptiesTheTable(t *testing.T) {
	pos, err := board.FromFEN("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		threads int
		hashMB  int
		lim     Limits
	}{
		{"short, one thread", 1, 1, Limits{Depth: 2}},
		{"long, one thread", 1, 1, Limits{Depth: 7}},
		{"short, two threads", 2, 1, Limits{Depth: 3}},
		{"helpers' own buckets, two threads", 2, 16, Limits{Nodes: 40000}},
		{"long, two threads", 2, 1, Limits{Nodes: 200000}},
	} {
		e := New(&cloningEval{clones: new(int)}, Options{HashMB: tc.hashMB, Threads: tc.threads})
		if len(e.helpers) != tc.threads-1 {
			t.Fatalf("%s: %d helper threads", tc.name, len(e.helpers))
		}
		e.Search(context.Background(), pos.Clone(), tc.lim, nil)
		written := 0
		for i := range e.tt.buckets {
			if e.tt.buckets[i] != (ttBucket{}) {
				written++
			}
		}
		if written == 0 {
			t.Fatalf("%s: the search stored nothing", tc.name)
		}
		e.NewGame()
		for i := range e.tt.buckets {
			if e.tt.buckets[i] != (ttBucket{}) {
				t.Fatalf("%s: bucket %d of %d written kept after NewGame", tc.name, i, written)
			}
		}
		if e.ttWrites.overflow || len(e.ttWrites.buckets) != 0 {
			t.Errorf("%s: the list was not emptied", tc.name)
		}
		if tc.threads == 1 {
			again := e.Search(context.Background(), pos.Clone(), Limits{Depth: 5}, nil)
			fresh := New(materialEval{}, Options{HashMB: 1}).Search(context.Background(), pos.Clone(), Limits{Depth: 5}, nil)
			if again.Nodes != fresh.Nodes || again.Best != fresh.Best {
				t.Errorf("%s: after NewGame %d nodes, %v; a fresh engine %d, %v", tc.name, again.Nodes, again.Best, fresh.Nodes, fresh.Best)
			}
		}
	}
}
