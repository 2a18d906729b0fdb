package search

import (
	"reflect"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dchess/dchess/internal/chess/board"
)

// Lazy SMP: an Engine with Options.Threads = N runs N-1 helper threads
// beside its own search. Every helper searches the same root with the same
// iterative deepening, alone but for the transposition table, which all
// threads share: what one thread stores, the others read as hash moves
// and cutoffs, and the threads' different timing and the depths helpers
// skip spread them over different parts of the tree. The main thread
// alone reads the clock and the limits, reports and picks the move; when
// it stops, it stops the helpers and waits for them, so nothing of a
// search runs after Search returns.

// MaxThreads bounds Options.Threads.
const MaxThreads = 256

// smpShared is what the threads of one parallel search share besides the
// table.
type smpShared struct {
	// stop is set by the main thread when its search ends, or by any
	// thread that finds the node limit reached.
	stop atomic.Bool
	// nodes[i] is thread i's node count (0 the main thread), published
	// every 256 nodes.
	nodes []paddedCount
	// nodeLimit is the search's node limit, 0 for none. Every thread
	// checks it against the sum when it publishes: a main thread that
	// the scheduler holds back cannot let its helpers run past it.
	nodeLimit int64
}

// paddedCount fills a cache line, so a helper publishing its count does
// not slow the threads that use the neighbouring line.
type paddedCount struct {
	n atomic.Int64
	_ [56]byte
}

// addHelpers gives the engine n helper threads, each with its own clone of
// the evaluator; none when the search is minimax or the evaluator cannot
// be cloned.
func (e *Engine) addHelpers(n int) {
	if e.algo != AlphaBeta {
		return
	}
	for i := 1; i <= n; i++ {
		eval, ok := cloneEvaluator(e.eval)
		if !ok {
			return
		}
		observer, _ := eval.(MoveObserver)
		e.helpers = append(e.helpers, &Engine{eval: eval, observer: observer, algo: e.algo, tt: e.tt, helperIndex: i})
	}
}

// cloneEvaluator returns an evaluator for another thread: eval's
// Clone(), which shares the weights and owns its scratch buffers and
// accumulators. The evaluators name that method by convention but return
// their own type (*nnue.Evaluator, *nn.Evaluator[N], *heuristic.Evaluator),
// which no Go interface can express, so it is found by reflection, once
// per thread when the engine is made.
func cloneEvaluator(eval Evaluator) (Evaluator, bool) {
	if eval == nil {
		return nil, false
	}
	m := reflect.ValueOf(eval).MethodByName("Clone")
	if !m.IsValid() || m.Type().NumIn() != 0 || m.Type().NumOut() != 1 {
		return nil, false
	}
	out := m.Call(nil)[0]
	if out.Kind() == reflect.Pointer && out.IsNil() {
		return nil, false
	}
	clone, ok := out.Interface().(Evaluator)
	return clone, ok
}

// startHelpers sets the helpers searching b and returns the function that
// stops them, waits for them and adds their nodes to e.otherNodes. It
// must run after begin, which ages the table for this search.
func (e *Engine) startHelpers(b *board.Board) (finish func()) {
	if len(e.helpers) == 0 {
		return func() {}
	}
	shared := &smpShared{nodes: make([]paddedCount, 1+len(e.helpers)), nodeLimit: e.nodeLimit}
	e.smp = shared
	var wg sync.WaitGroup
	for _, h := range e.helpers {
		// The copy shares the buckets and carries this search's age.
		h.tt = e.tt
		h.smp = shared
		h.rootMoves = e.rootMoves
		h.rootRank = e.rootRank
		hb := b.Clone()
		wg.Go(func() { h.helperSearch(hb) })
	}
	return func() {
		shared.stop.Store(true)
		wg.Wait()
		e.otherNodes = 0
		for _, h := range e.helpers {
			e.otherNodes += h.nodes
			h.smp = nil
		}
		e.smp = nil
	}
}

// helperSearch deepens on b until the main thread stops it: no clock, no
// limit, no report. Its results reach the main thread only through the
// table.
func (e *Engine) helperSearch(b *board.Board) {
	e.start = time.Now()
	e.nodes, e.selDepth, e.stopped, e.otherNodes = 0, 0, false, 0
	e.done, e.nodeLimit, e.hasDeadline = nil, 0, false
	if e.observer != nil {
		e.observer.Root(b)
	}
	var res Result
	e.deepen(Limits{Infinite: true}, 0, false, &res, nil, func(depth int) int {
		return e.aspirate(b, depth, res.Score)
	})
}

// syncThreads publishes the thread's node count, brings its view of the
// other threads' counts up to date and stops the search when together they
// reached the node limit.
func (e *Engine) syncThreads() {
	s := e.smp
	s.nodes[e.helperIndex].n.Store(e.nodes)
	var all int64
	for i := range s.nodes {
		all += s.nodes[i].n.Load()
	}
	e.otherNodes = all - e.nodes
	if s.nodeLimit > 0 && all >= s.nodeLimit {
		s.stop.Store(true)
	}
}

// skipDepth says whether helper i leaves out the iteration at depth, as
// Stockfish's Lazy SMP did (2016-2018): helpers run in pairs of phases
// over blocks of 1, 2, 3 or 4 depths, so at any time some helpers work a
// ply or two deeper than the main thread and fill the table ahead of it.
// The first helper searches the even depths.
func skipDepth(i, depth int) bool {
	j := (i - 1) % len(skipSize)
	return (depth+skipPhase[j])/skipSize[j]%2 != 0
}

var (
	skipSize  = [...]int{1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4}
	skipPhase = [...]int{0, 1, 0, 1, 2, 3, 0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5, 6, 7}
)
