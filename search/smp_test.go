package search

import (
	"context"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/dchess/dchess/internal/chess/board"
)

// cloningEval is materialEval with the Clone method by which the engine
// gives each thread its own evaluator; clones counts the calls.
type cloningEval struct {
	materialEval
	clones *int
}

func (c *cloningEval) Clone() *cloningEval {
	*c.clones++
	return &cloningEval{clones: c.clones}
}

// genericEval mimics nn.Evaluator[N]: a generic type whose Clone returns
// its own instantiation.
type genericEval[N any] struct {
	materialEval
	scratch []N
}

func (g *genericEval[N]) Clone() *genericEval[N] {
	return &genericEval[N]{scratch: make([]N, len(g.scratch))}
}

// badClone has a Clone that does not return an evaluator.
type badClone struct{ materialEval }

func (badClone) Clone() int { return 0 }

func newThreaded(t *testing.T, threads int) *Engine {
	t.Helper()
	n := 0
	e := New(&cloningEval{clones: &n}, Options{HashMB: 1, Threads: threads})
	if e.Threads() != threads || n != threads-1 {
		t.Fatalf("Threads() = %d with %d clones, want %d", e.Threads(), n, threads)
	}
	return e
}

func TestCloneEvaluator(t *testing.T) {
	for _, c := range []struct {
		name string
		eval Evaluator
		ok   bool
	}{
		{"pointer method", &cloningEval{clones: new(int)}, true},
		{"generic", &genericEval[int]{scratch: make([]int, 4)}, true},
		{"no Clone", materialEval{}, false},
		{"Clone not an evaluator", badClone{}, false},
		{"nil", nil, false},
	} {
		clone, ok := cloneEvaluator(c.eval)
		if ok != c.ok || ok && (clone == nil || clone == c.eval) {
			t.Errorf("%s: clone %v, ok %v; want ok %v and a new evaluator", c.name, clone, ok, c.ok)
		}
	}
	// Without a clone for the second thread, or in minimax, the engine
	// searches on one.
	if e := New(materialEval{}, Options{HashMB: 1, Threads: 4}); e.Threads() != 1 {
		t.Errorf("uncloneable evaluator: %d threads", e.Threads())
	}
	if e := New(&cloningEval{clones: new(int)}, Options{HashMB: 1, Threads: 4, Algorithm: Minimax}); e.Threads() != 1 {
		t.Errorf("minimax: %d threads", e.Threads())
	}
	if e := New(&cloningEval{clones: new(int)}, Options{HashMB: 1, Threads: MaxThreads + 5}); e.Threads() != MaxThreads {
		t.Errorf("threads above the maximum: %d", e.Threads())
	}
}

// TestOneThreadIsTheSearch: Threads 1 is the engine without threads,
// node for node.
func TestOneThreadIsTheSearch(t *testing.T) {
	for _, fen := range BenchPositions[:12] {
		var results [2]Result
		for i, threads := range []int{0, 1} {
			e := New(&cloningEval{clones: new(int)}, Options{HashMB: 1, Threads: threads})
			results[i] = e.Search(context.Background(), mustFEN(t, fen), Limits{Depth: 6}, nil)
		}
		a, b := results[0], results[1]
		if a.Best != b.Best || a.Score != b.Score || a.Nodes != b.Nodes || len(a.PV) != len(b.PV) {
			t.Errorf("%s: no threads %v %d %d nodes, one thread %v %d %d nodes", fen,
				board.UCI(a.Best), a.Score, a.Nodes, board.UCI(b.Best), b.Score, b.Nodes)
		}
	}
}

func TestThreadsFindMate(t *testing.T) {
	cases := []struct{ fen, best string }{
		{"7k/8/8/8/8/8/R7/1R4K1 w - - 0 1", ""}, // two rooks in 2
		{"r5rk/6pp/7N/8/8/8/1Q6/6K1 w - - 0 1", "h6f7"},
		{"6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", "a1a8"},
	}
	for _, c := range cases {
		e := newThreaded(t, 2)
		b := mustFEN(t, c.fen)
		res := e.Search(context.Background(), b, Limits{Depth: 6}, nil)
		if c.best != "" && board.UCI(res.Best) != c.best {
			t.Errorf("%s: best %s, want %s", c.fen, board.UCI(res.Best), c.best)
		}
		if want := map[string]int{"": 2, "h6f7": 1, "a1a8": 1}[c.best]; res.Mate != want {
			t.Errorf("%s: mate %d, want %d (pv %v)", c.fen, res.Mate, want, res.PV)
		}
		if b.FEN() != mustFEN(t, c.fen).FEN() {
			t.Errorf("board changed: %s", b.FEN())
		}
	}
}

// TestThreadsSearchAndReport: the helpers search (their nodes count in
// the result and the reports), the move is legal, and nothing runs after
// Search returns: the next search reuses the same helpers, which the race
// detector would catch.
func TestThreadsSearchAndReport(t *testing.T) {
	e := newThreaded(t, 3)
	for _, fen := range BenchPositions[1:4] {
		b := mustFEN(t, fen)
		var infos []Info
		res := e.Search(context.Background(), b, Limits{Depth: 7}, func(in Info) { infos = append(infos, in) })
		if !isLegal(b, res.Best) || res.Depth != 7 || len(infos) != 7 {
			t.Fatalf("%s: best %s depth %d, %d reports", fen, board.UCI(res.Best), res.Depth, len(infos))
		}
		var helperNodes int64
		for _, h := range e.helpers {
			if h.nodes == 0 {
				t.Errorf("%s: helper %d searched nothing", fen, h.helperIndex)
			}
			helperNodes += h.nodes
		}
		if res.Nodes != e.nodes+helperNodes || infos[len(infos)-1].Nodes > res.Nodes {
			t.Errorf("%s: result %d nodes, main %d + helpers %d, last report %d", fen, res.Nodes, e.nodes,
				helperNodes, infos[len(infos)-1].Nodes)
		}
	}
	// A node limit counts every thread's nodes, within what the helpers
	// have not yet published (256 a helper).
	res := e.Search(context.Background(), mustFEN(t, board.StartFEN), Limits{Nodes: 20000}, nil)
	if res.Nodes < 20000 || res.Nodes > 20000+int64(e.Threads())*600 {
		t.Errorf("node limit 20000 searched %d nodes", res.Nodes)
	}
	e.NewGame()
	if e.helpers[0].history != [2][64][64]int32{} {
		t.Error("NewGame left a helper's history")
	}
}

func isLegal(b *board.Board, m board.Move) bool {
	for _, l := range b.LegalMoves() {
		if l == m {
			return true
		}
	}
	return false
}

func TestThreadsStop(t *testing.T) {
	e := newThreaded(t, 2)
	b := mustFEN(t, BenchPositions[1])
	start := time.Now()
	res := e.Search(context.Background(), b, Limits{MoveTime: 50 * time.Millisecond}, nil)
	if took := time.Since(start); took > 2*time.Second || !isLegal(b, res.Best) {
		t.Errorf("movetime 50ms took %v, best %s", took, board.UCI(res.Best))
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	start = time.Now()
	res = e.Search(ctx, b, Limits{Infinite: true}, nil)
	if took := time.Since(start); took > 2*time.Second || !isLegal(b, res.Best) {
		t.Errorf("stop after 50ms took %v, best %s", took, board.UCI(res.Best))
	}
}

func TestSkipDepth(t *testing.T) {
	var first []int
	for d := 1; d <= 8; d++ {
		if !skipDepth(1, d) {
			first = append(first, d)
		}
	}
	if len(first) != 4 || first[0] != 2 || first[3] != 8 {
		t.Errorf("helper 1 searches depths %v, want the even ones", first)
	}
	// Every helper searches some depth in every stretch of eight.
	for i := 1; i <= 40; i++ {
		searched := 0
		for d := 10; d < 18; d++ {
			if !skipDepth(i, d) {
				searched++
			}
		}
		if searched == 0 {
			t.Errorf("helper %d skips depths 10-17", i)
		}
	}
}

// TestTableSharedByThreads stores and probes from several goroutines at
// once in a table small enough that they fight over every bucket. Each
// key always stores the same move, score and depth, so an entry that mixed
// two writes would show as a hit with another key's data. Run with -race.
func TestTableSharedByThreads(t *testing.T) {
	tt := newTranspositionTable(1)
	tt.buckets = tt.buckets[:64]
	tt.mask = 63
	tt.age = 1
	dataOf := func(key uint64) (board.Move, int, int) {
		return board.Move(key>>48) | 1, int(int16(key >> 32)), int(key>>24) % 100
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	bad := 0
	for g := range 4 {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(g), 7))
			keys := make([]uint64, 200)
			for i := range keys {
				keys[i] = r.Uint64()
			}
			for range 20000 {
				key := keys[r.IntN(len(keys))]
				if e, ok := tt.probe(key); ok {
					move, score, depth := dataOf(key)
					if e.key != key || e.move != move || int(e.score) != score || int(e.depth) != depth || e.bound != boundLower {
						mu.Lock()
						bad++
						mu.Unlock()
					}
				}
				move, score, depth := dataOf(key)
				tt.store(key, move, score, depth, 0, boundLower)
			}
		})
	}
	wg.Wait()
	if bad > 0 {
		t.Errorf("%d probes read an entry that is not what its key stored", bad)
	}
}
