package search

import (
	"context"
	"math"
	"slices"
	"time"

	"github.com/dchess/dchess/internal/chess/board"
)

// Score scale. A mate found n plies from the root scores MateScore-n for
// the side that mates; evaluations are clamped inside ±(mateBound-1) so
// the two can never be confused.
const (
	MaxPly    = 128
	MateScore = 32000
	mateBound = MateScore - 2*MaxPly
	infinity  = MateScore + 1
)

// Algorithm picks the tree search.
type Algorithm int

const (
	// AlphaBeta is negamax with alpha-beta pruning, iterative deepening,
	// a transposition table, quiescence search and move ordering, plus the
	// selective techniques that matches let in (the search entries of
	// docs/results/).
	AlphaBeta Algorithm = iota
	// Minimax is the seeds' plain fixed-depth minimax: no pruning, no
	// table, no quiescence, static evaluation at the leaves. It exists as
	// the baseline alpha-beta is measured against.
	Minimax
)

func (a Algorithm) String() string {
	if a == Minimax {
		return "minimax"
	}
	return "alphabeta"
}

// DefaultMinimaxDepth is the depth the seeds' minimax uses when Limits
// gives none.
const DefaultMinimaxDepth = 3

// DefaultHashMB is the table size used when Options.HashMB is zero.
const DefaultHashMB = 16

// Options configure an Engine.
type Options struct {
	HashMB    int // transposition table size; 0 means DefaultHashMB
	Algorithm Algorithm
	// Threads is how many threads an alpha-beta search runs on (Lazy SMP,
	// see smp.go); 0 and 1 mean one, which searches exactly as an engine
	// without threads. Minimax, and an evaluator that cannot be cloned
	// for the extra threads, search on one thread whatever it says.
	Threads int
	// Proposer, when not nil, orders the root moves of an alpha-beta
	// search: the hash move first, then the others in the proposer's
	// ranking (scoreRoot). It is asked once per root position, by the
	// main thread only; one that fails leaves the usual order. Minimax
	// does not ask it. Without one the search is the same move for move.
	Proposer MoveProposer
}

// Result is the outcome of a search.
type Result struct {
	Best board.Move // NullMove only when the position has no legal move
	// Score is in centipawns from the side to move's view; mates are
	// ±(MateScore - plies to mate).
	Score int
	// Mate is the signed number of moves to mate (positive: the side to
	// move mates), 0 if no mate was found. A position that is already
	// checkmate has Mate 0 and Score -MateScore.
	Mate    int
	Depth   int // last completed depth
	Nodes   int64
	Elapsed time.Duration
	PV      []board.Move
}

// Info reports one finished iteration, for UCI "info" lines and logs.
type Info struct {
	Depth    int
	SelDepth int // deepest ply reached, quiescence included
	Score    int
	Mate     int
	Nodes    int64
	NPS      int64
	Time     time.Duration
	PV       []board.Move
	// HashFull is the per-mille of the transposition table this search
	// filled (UCI "hashfull").
	HashFull int
	// MultiPV is the line's rank from 1 when the search reports several
	// lines an iteration (Limits.MultiPV above 1), 0 when it reports one.
	MultiPV int
}

// MateIn converts a score into signed moves to mate, 0 when it is not a mate score.
func MateIn(score int) int {
	switch {
	case score >= mateBound:
		return (MateScore - score + 1) / 2
	case score <= -mateBound:
		return -(MateScore + score) / 2
	}
	return 0
}

// Engine searches positions with one evaluator. It keeps its
// transposition table, killer moves and history between searches (call
// NewGame to forget them) and is not safe for concurrent use: give each
// goroutine its own Engine. With Options.Threads above one it runs helper
// threads of its own during each search.
type Engine struct {
	eval Evaluator
	// observer is eval when it follows the moves (nil otherwise).
	observer MoveObserver
	algo     Algorithm
	tt       transpositionTable
	// ttWrites are the buckets this thread filled since NewGame.
	ttWrites ttWrites

	killers [MaxPly + 1][2]board.Move
	// history[side][from][to] rewards quiet moves that caused cutoffs and
	// marks down those tried before them.
	history [2][64][64]int32
	// moveStack[ply] is the move played from ply in the line being
	// searched (NullMove for a null move), so a node knows the move that
	// led to it.
	moveStack [MaxPly + 1]board.Move
	// counterMoves[from][to] is the quiet move that last refuted the move
	// from-to: answers to a move recur wherever it is played.
	counterMoves [64][64]board.Move
	// quietsTried[ply] holds the quiet moves searched so far at ply, the
	// ones a cutoff marks down (the first 64 of them at most).
	quietsTried [MaxPly + 1][64]board.Move
	// staticEvals[ply] is the static evaluation at ply, noEval in check:
	// whether it rose over the side's last move says how much a node
	// deserves.
	staticEvals [MaxPly + 1]int
	// scores is the per-ply move-ordering buffer, so ordering allocates nothing.
	scores [MaxPly + 1][256]int32
	// pv is the triangular principal-variation table: pv[ply] holds the
	// best line from ply, pvLen[ply] its end.
	pv    [MaxPly + 1][MaxPly + 1]board.Move
	pvLen [MaxPly + 1]int
	// rootScore is the score of pv[0], the best root move so far in the
	// running iteration.
	rootScore int
	// rootDepth is the depth of the running iteration; extensions stop at
	// twice it, so a line of checks and singular moves cannot grow the
	// tree without bound.
	rootDepth int
	// excluded[ply] is the move a singular-extension search leaves out at
	// ply (NullMove when none).
	excluded [MaxPly + 1]board.Move
	// rootMoves, when not nil, are the only root moves the running search
	// looks at (Limits.SearchMoves); nil searches them all.
	rootMoves []board.Move
	// proposer ranks the root moves (Options.Proposer), nil for none.
	proposer MoveProposer
	// rootRank is the proposer's ranking of the running search's root
	// moves as ordering scores (rankRoot), nil when there is none; helpers
	// read the main thread's. rankedKey is the position it ranks.
	rootRank  map[board.Move]int32
	rankedKey uint64
	// lines are the root moves of the last finished iteration with their
	// lines, best first, when the search reports several
	// (Limits.MultiPV); nil when it reports one.
	lines []rootLine

	// State of the running search.
	nodes       int64
	nodeLimit   int64
	selDepth    int
	stopped     bool
	done        <-chan struct{}
	hasDeadline bool
	deadline    time.Time
	start       time.Time

	// helpers are the other threads of a parallel search: engines with
	// an evaluator, board and move-ordering tables of their own that
	// share this one's transposition table (smp.go).
	helpers []*Engine
	// helperIndex numbers a helper from 1; it is 0 on the main thread.
	helperIndex int
	// smp is what the threads of a running parallel search share; nil on
	// one thread, so that search is the single-threaded one exactly.
	smp *smpShared
	// otherNodes is the other threads' nodes as last seen (on the main
	// thread exact once they stopped), so node limits and reports count them.
	otherNodes int64
}

// New returns an engine that scores positions with eval.
func New(eval Evaluator, opts Options) *Engine {
	mb := opts.HashMB
	if mb <= 0 {
		mb = DefaultHashMB
	}
	observer, _ := eval.(MoveObserver)
	e := &Engine{eval: eval, observer: observer, algo: opts.Algorithm, tt: newTranspositionTable(mb), proposer: opts.Proposer}
	e.addHelpers(min(opts.Threads, MaxThreads) - 1)
	return e
}

// Threads is how many threads the engine's searches run on.
func (e *Engine) Threads() int { return 1 + len(e.helpers) }

// make, makeNull and unmake play moves on b and tell the observer.
func (e *Engine) make(b *board.Board, m board.Move) {
	e.tt.prefetch(b.KeyAfter(m))
	if e.observer != nil {
		e.observer.MakeMove(b, m)
	}
	b.Make(m)
}

func (e *Engine) makeNull(b *board.Board) {
	if e.observer != nil {
		e.observer.MakeNull(b)
	}
	b.MakeNull()
}

func (e *Engine) unmake(b *board.Board) {
	b.Unmake()
	if e.observer != nil {
		e.observer.Unmake()
	}
}

// NewGame forgets everything learned in earlier searches: the
// transposition table, killer moves and history. After NewGame a search
// gives the same result as on a fresh Engine.
func (e *Engine) NewGame() {
	lists := []*ttWrites{&e.ttWrites}
	for _, h := range e.helpers {
		lists = append(lists, &h.ttWrites)
	}
	e.tt.clearWritten(lists...)
	e.clearOrdering()
	for _, h := range e.helpers {
		h.clearOrdering()
	}
}

// storeTT stores a result in the shared table and, when that fills an
// empty bucket, notes it in this thread's list, for NewGame.
func (e *Engine) storeTT(key uint64, move board.Move, score, depth, ply int, bd bound) {
	if e.tt.store(key, move, score, depth, ply, bd) {
		e.ttWrites.note(&e.tt, key)
	}
}

// clearOrdering forgets the thread's move-ordering tables.
func (e *Engine) clearOrdering() {
	e.killers = [MaxPly + 1][2]board.Move{}
	e.history = [2][64][64]int32{}
	e.counterMoves = [64][64]board.Move{}
}

// Search finds a move for the side to move. It stops at the first limit
// reached or when ctx is cancelled, and then returns the best move of the
// last finished iteration, or a better one the cut-off iteration found (a
// legal move even if no iteration finished). On one thread, under depth
// and node limits the result depends only on the position, its history
// and what the engine learned in earlier searches: no clock is read to
// decide anything. On more it also depends on how the threads' timing
// met in the shared table. onInfo, if not nil, is called after every
// finished iteration. b is restored before Search returns.
func (e *Engine) Search(ctx context.Context, b *board.Board, lim Limits, onInfo func(Info)) Result {
	res, soft, timed, ok := e.begin(ctx, b, lim)
	if !ok {
		return res
	}
	if e.observer != nil {
		e.observer.Root(b)
	}
	e.lines = nil
	if e.algo == Minimax {
		e.searchMinimax(b, lim, &res, onInfo)
	} else {
		finish := e.startHelpers(b)
		search := func(depth int) int {
			return e.aspirate(b, depth, res.Score)
		}
		if lim.MultiPV > 1 {
			roots := e.atRoot(b.LegalMoves(), 0)
			k := min(lim.MultiPV, len(roots))
			search = func(depth int) int {
				return e.searchLines(b, depth, roots, k)
			}
		}
		e.deepen(lim, soft, timed, &res, onInfo, search)
		finish()
	}
	res.Nodes = e.nodes + e.otherNodes
	res.Elapsed = time.Since(e.start)
	return res
}

// begin resets the per-search state, reads the limits and returns the
// result to improve on: the first move in search order, so a stop at any
// moment still yields a legal move. ok is false when there is nothing to
// search (no legal move, or ctx already done); res is then final.
func (e *Engine) begin(ctx context.Context, b *board.Board, lim Limits) (res Result, soft time.Duration, timed, ok bool) {
	e.start = time.Now()
	e.nodes, e.selDepth, e.stopped, e.otherNodes = 0, 0, false, 0
	e.done = ctx.Done()
	e.nodeLimit = lim.Nodes
	soft, hard, timed := timeBudget(lim, b.SideToMove())
	e.hasDeadline = timed
	e.deadline = e.start.Add(hard)
	e.tt.age++

	moves := b.LegalMoves()
	if len(moves) == 0 {
		res := Result{Elapsed: time.Since(e.start)}
		if b.InCheck() {
			res.Score = -MateScore
		}
		return res, 0, false, false
	}
	e.rootMoves = nil
	if len(lim.SearchMoves) > 0 {
		e.rootMoves = lim.SearchMoves
		if allowed := e.atRoot(moves, 0); len(allowed) > 0 {
			moves = allowed
		} else {
			e.rootMoves = nil
		}
	}
	if e.algo == AlphaBeta {
		e.rankRoot(b)
	}
	hashMove := board.NullMove
	if entry, ok := e.tt.probe(b.Key()); ok {
		hashMove = entry.move
	}
	e.scoreMoves(b, moves, e.scores[0][:len(moves)], hashMove, 0)
	pickMove(moves, e.scores[0][:len(moves)], 0)
	res = Result{Best: moves[0], PV: []board.Move{moves[0]}}
	if ctx.Err() != nil {
		res.Elapsed = time.Since(e.start)
		return res, 0, false, false
	}
	return res, soft, timed, true
}

// atRoot returns moves, at the root of a search restricted to some moves
// (Limits.SearchMoves) only those among them, in place; anywhere else, or
// unrestricted, moves as they are.
func (e *Engine) atRoot(moves []board.Move, ply int) []board.Move {
	if ply > 0 || e.rootMoves == nil {
		return moves
	}
	kept := moves[:0]
	for _, m := range moves {
		if slices.Contains(e.rootMoves, m) {
			kept = append(kept, m)
		}
	}
	return kept
}

// deepen is iterative deepening over search, which searches the root to a
// depth and returns its score from the side to move's view: each finished
// depth fills the table and the move-ordering tables that make the next
// one cheaper.
func (e *Engine) deepen(lim Limits, soft time.Duration, timed bool, res *Result, onInfo func(Info), search func(depth int) int) {
	maxDepth := MaxPly - 1
	if lim.Depth > 0 {
		maxDepth = min(lim.Depth, maxDepth)
	}
	stable := 0 // iterations in a row that kept the best move
	for depth := 1; depth <= maxDepth; depth++ {
		if e.helperIndex > 0 && skipDepth(e.helperIndex, depth) {
			continue
		}
		previous := res.Best
		score := search(depth)
		if e.stopped {
			// A root move that finished searching in the cut-off
			// iteration and beat the first one was seen deeper than
			// anything the last full iteration found.
			if e.pvLen[0] > 0 && e.pv[0][0] != res.Best {
				res.Best, res.Score, res.Mate = e.pv[0][0], e.rootScore, MateIn(e.rootScore)
				res.PV = append([]board.Move(nil), e.pv[0][:e.pvLen[0]]...)
			}
			return
		}
		e.finishIteration(res, depth, score, onInfo)
		if res.Best == previous {
			stable++
		} else {
			stable = 0
		}
		if timed && time.Since(e.start) >= stabilityScaled(soft, stable) {
			return
		}
		// A forced mate seen within the depth cannot get shorter by looking deeper.
		if m := MateIn(score); m != 0 && !lim.Infinite && 2*abs(m) <= depth {
			return
		}
	}
}

func (e *Engine) finishIteration(res *Result, depth, score int, onInfo func(Info)) {
	pv := append([]board.Move(nil), e.pv[0][:e.pvLen[0]]...)
	res.Best, res.Score, res.Mate, res.Depth, res.PV = pv[0], score, MateIn(score), depth, pv
	if onInfo == nil {
		return
	}
	if e.smp != nil {
		e.syncThreads()
	}
	nodes := e.nodes + e.otherNodes
	elapsed := time.Since(e.start)
	nps := int64(0)
	if elapsed > 0 {
		nps = int64(float64(nodes) / elapsed.Seconds())
	}
	if e.lines == nil {
		onInfo(Info{Depth: depth, SelDepth: e.selDepth, Score: score, Mate: res.Mate, Nodes: nodes,
			NPS: nps, Time: elapsed, PV: append([]board.Move(nil), pv...), HashFull: e.tt.hashfull()})
		return
	}
	// UCI wants the k lines of an iteration together, each numbered.
	for i, line := range e.lines {
		onInfo(Info{Depth: depth, SelDepth: e.selDepth, Score: line.score, Mate: MateIn(line.score), Nodes: nodes,
			NPS: nps, Time: elapsed, PV: slices.Clone(line.pv), HashFull: e.tt.hashfull(), MultiPV: i + 1})
	}
}

// checkStop is called at every node. Node limits are exact on one thread
// (with helpers they count every thread's nodes as last published, every
// 256 of each); the clock and ctx are read every 256 nodes: a fraction of
// a millisecond with the heuristic evaluator, tens of milliseconds with a
// slow network. A thread of a parallel search reads the shared stop at
// every node, so the main thread, which waits for its helpers, is not
// held up.
func (e *Engine) checkStop() bool {
	if e.stopped {
		return true
	}
	if e.nodeLimit > 0 && e.nodes+e.otherNodes >= e.nodeLimit {
		e.stopped = true
		return true
	}
	if e.smp != nil && e.smp.stop.Load() {
		e.stopped = true
		return true
	}
	if e.nodes&255 == 0 {
		if e.smp != nil {
			e.syncThreads()
		}
		select {
		case <-e.done:
			e.stopped = true
		default:
			if e.hasDeadline && time.Now().After(e.deadline) {
				e.stopped = true
			}
		}
	}
	return e.stopped
}

func (e *Engine) evaluate(b *board.Board) int {
	return min(max(e.eval.Evaluate(b), -mateBound+1), mateBound-1)
}

// negamax is fail-soft alpha-beta. Scores are from the side to move's view.
// inCheck is whether the side to move is in check, which the parent
// already knows from deciding the check extension.
func (e *Engine) negamax(b *board.Board, depth, alpha, beta, ply int, inCheck bool) int {
	if depth <= 0 {
		return e.quiesce(b, alpha, beta, ply)
	}
	e.pvLen[ply] = ply
	e.nodes++
	if e.checkStop() {
		return 0
	}
	if ply > 0 {
		// A repetition inside the tree is scored as the draw it can be forced into.
		if b.IsRepeated() || b.InsufficientMaterial() {
			return 0
		}
		if ply >= MaxPly {
			return e.evaluate(b)
		}
	}
	// A node that searches all moves but one, to learn whether that one is
	// singular, is not the node the table knows: it neither takes nor
	// leaves a result there, and does nothing that assumes every move is
	// searched (reductions and cutoffs on the static evaluation).
	excluded := e.excluded[ply]
	hashMove := board.NullMove
	entry, hit := e.tt.probe(b.Key())
	if hit {
		hashMove = entry.move
		if ply > 0 && excluded == board.NullMove && int(entry.depth) >= depth {
			if s, ok := entry.cutoff(ply, alpha, beta); ok {
				return s
			}
		}
	}
	// Not in check, the fifty-move draw needs no look at the moves: there
	// is no mate to prefer over it.
	if ply > 0 && !inCheck && b.HalfmoveClock() >= 100 {
		return 0
	}
	// Internal iterative reduction: a node the table knows no move for is
	// searched a ply shallower; ordered blind, a full-depth search would
	// cost much, and the next iteration finds it with a hash move.
	if depth >= iirMinDepth && hashMove == board.NullMove && excluded == board.NullMove {
		depth--
	}
	side := b.SideToMove()
	// Away from the principal variation a node only has to show which side
	// of a null window it falls; there the static evaluation decides how
	// much effort the node deserves, the more so when it fell over the
	// side's last move (the matches that let each of these in,
	// docs/results/2026-11-21-search-selective-pruning-clock.md).
	pvNode := beta-alpha > 1
	staticEval := noEval
	if !inCheck {
		staticEval = e.evaluate(b)
	}
	e.staticEvals[ply] = staticEval
	improving := e.improving(ply)
	// The pruning below judges the node by its static evaluation, or by a
	// stored search result that bounds the node's value beyond it.
	eval := staticEval
	if hit && !inCheck {
		if s := scoreFromTT(int(entry.score), ply); abs(s) < mateBound &&
			(entry.bound == boundLower && s > eval || entry.bound == boundUpper && s < eval) {
			eval = s
		}
	}
	if !pvNode && !inCheck && ply > 0 && abs(beta) < mateBound && excluded == board.NullMove {
		// Reverse futility: so far above beta that a quiet move by the
		// opponent will not bring the score back down.
		if depth <= rfpMaxDepth && eval-rfpMargin*(depth-boolInt(improving)) >= beta {
			return eval
		}
		// Null move: if passing the turn still fails high on a reduced
		// search, a real move will too. Not without pieces, where passing
		// can be the only bad option (zugzwang).
		if depth >= 3 && eval >= beta && b.HasPieces(side) && b.NullMoveAllowed() {
			e.moveStack[ply] = board.NullMove
			e.makeNull(b)
			s := -e.negamax(b, depth-1-nullMoveReduction(depth, eval-beta), -beta, -beta+1, ply+1, false)
			e.unmake(b)
			if e.stopped {
				return 0
			}
			if s >= beta {
				return min(s, mateBound-1)
			}
		}
	}
	// Moves are generated only now, so the nodes that the static
	// evaluation or the null move cut cost no generation; the price is that
	// such a node's stalemate goes unnoticed, as in quiescence.
	moves := b.LegalMoves()
	if len(moves) == 0 {
		if inCheck {
			return -MateScore + ply
		}
		return 0
	}
	moves = e.atRoot(moves, ply)
	if ply > 0 && inCheck && b.HalfmoveClock() >= 100 {
		return 0 // not mated, so the fifty-move draw
	}
	// Singular extension: when the table's move beats every other move by
	// a margin on a shallower search that leaves it out, it is searched a
	// ply deeper, since the line hangs on it. When even the others reach
	// past beta, several moves refute the opponent's and the node is cut
	// (multi-cut). Done before the move loop, whose buffers at this ply the
	// search leaving the move out uses too.
	singular := 0
	if ply > 0 && depth >= seMinDepth && ply < 2*e.rootDepth && excluded == board.NullMove && hit &&
		hashMove != board.NullMove && entry.bound != boundUpper && int(entry.depth) >= depth-3 {
		if ttScore := scoreFromTT(int(entry.score), ply); abs(ttScore) < mateBound {
			singularBeta := ttScore - seMargin*depth
			e.excluded[ply] = hashMove
			s := e.negamax(b, (depth-1)/2, singularBeta-1, singularBeta, ply, inCheck)
			e.excluded[ply] = board.NullMove
			e.pvLen[ply] = ply // that search's line is not this node's
			if e.stopped {
				return 0
			}
			if s < singularBeta {
				singular = 1
			} else if singularBeta >= beta {
				return singularBeta
			}
		}
	}
	scores := e.scores[ply][:len(moves)]
	e.scoreMoves(b, moves, scores, hashMove, ply)
	best, bestMove, origAlpha := -infinity, board.NullMove, alpha
	tried := e.quietsTried[ply][:0]
	// Near the horizon, quiet moves that cannot reach alpha even with a
	// margin, and quiet moves far down the ordering, are not searched.
	pruneQuiets := !pvNode && !inCheck && depth <= futilityMaxDepth
	futile := pruneQuiets && eval+futilityMargin(depth) <= alpha
	for i := range moves {
		pickMove(moves, scores, i)
		m := moves[i]
		if m == excluded {
			continue
		}
		quiet := m.Promote() == 0 && !b.IsCapture(m)
		// Checks are never pruned: the mates and forcing lines are among
		// them. A move that cannot check is skipped without being made.
		prunable := pruneQuiets && quiet && i > 0 && best > -mateBound &&
			(futile || scores[i] < orderCounter && i >= lateMovePruning(depth, improving))
		if prunable && !b.MayGiveCheck(m) {
			continue
		}
		e.moveStack[ply] = m
		e.make(b, m)
		// A check is searched one ply deeper, so a forcing line is not cut
		// at the horizon (the match and WAC that show it gains:
		// docs/results/2026-11-21-search-check-extension.md).
		next, check := depth-1, b.InCheck()
		if check {
			next = depth
		}
		if m == hashMove {
			next += singular
		}
		if prunable && !check {
			e.unmake(b)
			continue
		}
		var s int
		if i == 0 {
			s = -e.negamax(b, next, -beta, -alpha, ply+1, check)
		} else {
			// Principal variation search: a later move is first shown to be
			// no better than alpha with a null window, and late quiet moves,
			// which good ordering makes unlikely to matter, only to a reduced
			// depth; a move that surprises is searched again in full
			// (the matches that let both in:
			// docs/results/2026-11-21-search-lmr-pvs.md).
			r := 0
			if quiet && !inCheck && !check && scores[i] < orderCounter {
				r = lateMoveReduction(depth, i, improving)
				// A reduced move is reduced more or less by what the
				// history says of it (a ply either way, two at the
				// extremes).
				if r > 0 {
					r = max(0, min(r-int(scores[i])/(historyMax/2), depth-2))
				}
			}
			s = -e.negamax(b, next-r, -alpha-1, -alpha, ply+1, check)
			if s > alpha && r > 0 {
				s = -e.negamax(b, next, -alpha-1, -alpha, ply+1, check)
			}
			if s > alpha && s < beta {
				s = -e.negamax(b, next, -beta, -alpha, ply+1, check)
			}
		}
		e.unmake(b)
		if e.stopped {
			return 0
		}
		if quiet && s < beta && len(tried) < cap(tried) {
			tried = append(tried, m)
		}
		if s <= best {
			continue
		}
		best, bestMove = s, m
		if s <= alpha {
			continue
		}
		alpha = s
		e.updatePV(ply, m)
		if ply == 0 {
			e.rootScore = s
		}
		if s >= beta {
			if quiet {
				e.rewardQuiet(side, m, tried, depth, ply)
			}
			break
		}
	}
	if excluded != board.NullMove {
		// The only other moves may all have been pruned or there may be
		// none: the node then shows nothing above alpha.
		return max(best, alpha)
	}
	if ply == 0 && e.rootMoves != nil {
		// The best of some root moves is not the position's value.
		return best
	}
	e.storeTT(b.Key(), bestMove, best, depth, ply, boundOf(best, origAlpha, beta))
	return best
}

// aspirate searches the root in a window around the last iteration's
// score, which cuts more of the tree, and widens it until the score falls
// inside.
func (e *Engine) aspirate(b *board.Board, depth, previous int) int {
	e.rootDepth = depth
	inCheck := b.InCheck()
	if depth < aspirationDepth || abs(previous) >= mateBound {
		return e.negamax(b, depth, -infinity, infinity, 0, inCheck)
	}
	delta := aspirationWindow
	alpha, beta := previous-delta, previous+delta
	for {
		s := e.negamax(b, depth, alpha, beta, 0, inCheck)
		if e.stopped || (s > alpha && s < beta) {
			return s
		}
		delta *= 2
		if delta > aspirationGiveUp {
			alpha, beta = -infinity, infinity
		} else if s <= alpha {
			alpha = max(s-delta, -infinity)
		} else {
			beta = min(s+delta, infinity)
		}
	}
}

// Aspiration windows start at aspirationDepth, aspirationWindow
// centipawns either side; past aspirationGiveUp the window is the whole range.
const (
	aspirationDepth  = 5
	aspirationWindow = 25
	aspirationGiveUp = 400
)

// stabilityScaled moves the soft time limit with the best move's history:
// a move that just changed deserves another iteration, one that has held
// for several is likely to hold again.
func stabilityScaled(soft time.Duration, stable int) time.Duration {
	switch {
	case stable == 0:
		return soft * 7 / 5
	case stable == 1:
		return soft * 11 / 10
	case stable >= 3:
		return soft * 3 / 4
	}
	return soft
}

// Pruning parameters: the depths (in plies left) and margins (in
// centipawns) of reverse futility, futility and late-move pruning, and
// the depth from which internal iterative reduction applies.
const (
	rfpMaxDepth      = 5
	rfpMargin        = 100
	futilityMaxDepth = 3
	iirMinDepth      = 4
)

// Singular extensions apply from seMinDepth plies left; the other moves
// must stay seMargin centipawns a ply of depth below the table's score.
const (
	seMinDepth = 8
	seMargin   = 2
)

// noEval marks a ply whose side was in check, where no static evaluation is taken.
const noEval = -infinity

// improving tells whether the static evaluation at ply is above the one
// two plies earlier, the same side's last node; when that side was in
// check it looks back four plies, and with nothing to compare it says yes,
// which prunes least.
func (e *Engine) improving(ply int) bool {
	s := e.staticEvals[ply]
	if s == noEval {
		return false
	}
	for back := 2; back <= 4; back += 2 {
		if ply < back {
			return true
		}
		if prev := e.staticEvals[ply-back]; prev != noEval {
			return s > prev
		}
	}
	return true
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func futilityMargin(depth int) int { return 100 + 120*depth }

// lateMovePruning is how many moves a shallow node searches before it
// skips the remaining quiet ones: half as many when the side's evaluation
// fell over its last move.
func lateMovePruning(depth int, improving bool) int {
	n := 3 + depth*depth
	if !improving {
		n /= 2
	}
	return n
}

// nullMoveReduction grows with depth, so deep null-move searches stay
// cheap, and with how far the evaluation stands above beta (margin), up to
// three plies more: the further above, the less a pass can lose.
func nullMoveReduction(depth, margin int) int { return 3 + depth/6 + min(3, margin/200) }

// lmrTable[depth][moveIndex] is the late-move reduction: about
// ln(depth)·ln(index)/2, none for the first lmrFirstMove moves or below depth 3.
var lmrTable = func() (t [MaxPly + 1][256]int8) {
	for d := 3; d <= MaxPly; d++ {
		for i := lmrFirstMove; i < 256; i++ {
			t[d][i] = int8(max(1, math.Round(math.Log(float64(d))*math.Log(float64(i))/2)))
		}
	}
	return t
}()

// lmrFirstMove is how many moves, in search order, are never reduced.
const lmrFirstMove = 3

// lateMoveReduction reduces a ply more when the side's evaluation fell
// over its last move, and keeps at least one ply of the depth left.
func lateMoveReduction(depth, moveIndex int, improving bool) int {
	r := int(lmrTable[min(depth, MaxPly)][min(moveIndex, 255)])
	if r > 0 && !improving {
		r++
	}
	return max(0, min(r, depth-2))
}

// quiesce searches captures and promotions until the position is quiet,
// so the static evaluation is never taken in the middle of an exchange.
// In check every evasion is searched, which also finds mates at the horizon.
func (e *Engine) quiesce(b *board.Board, alpha, beta, ply int) int {
	e.pvLen[ply] = ply
	e.nodes++
	if e.checkStop() {
		return 0
	}
	e.selDepth = max(e.selDepth, ply)
	if b.InsufficientMaterial() {
		return 0
	}
	if ply >= MaxPly {
		return e.evaluate(b)
	}
	// The table answers here as in the full-width search: any stored
	// result is at least as deep as quiescence.
	hashMove := board.NullMove
	if entry, ok := e.tt.probe(b.Key()); ok {
		hashMove = entry.move
		if s, ok := entry.cutoff(ply, alpha, beta); ok {
			return s
		}
	}
	origAlpha := alpha
	inCheck := b.InCheck()
	best, bestMove := -infinity, board.NullMove
	standPat := 0
	if !inCheck {
		// Standing pat before generating moves saves the generation at
		// most quiescence nodes; the price is that a stalemate with the
		// score already at beta goes unnoticed, as in most engines.
		standPat = e.evaluate(b)
		if standPat >= beta {
			return standPat
		}
		best = standPat
		alpha = max(alpha, standPat)
	}
	moves := b.LegalMoves()
	if len(moves) == 0 {
		if inCheck {
			return -MateScore + ply
		}
		return 0
	}
	scores := e.scores[ply][:len(moves)]
	n := e.scoreTactical(b, moves, scores, inCheck, standPat, alpha, hashMove)
	for i := 0; i < n; i++ {
		pickMove(moves[:n], scores[:n], i)
		m := moves[i]
		e.make(b, m)
		s := -e.quiesce(b, -beta, -alpha, ply+1)
		e.unmake(b)
		if e.stopped {
			return 0
		}
		if s <= best {
			continue
		}
		best, bestMove = s, m
		if s <= alpha {
			continue
		}
		alpha = s
		e.updatePV(ply, m)
		if s >= beta {
			break
		}
	}
	e.storeTT(b.Key(), bestMove, best, 0, ply, boundOf(best, origAlpha, beta))
	return best
}

func (e *Engine) updatePV(ply int, m board.Move) {
	e.pv[ply][ply] = m
	next := ply + 1
	if next <= MaxPly {
		n := copy(e.pv[ply][next:], e.pv[next][next:e.pvLen[next]])
		e.pvLen[ply] = next + n
	} else {
		e.pvLen[ply] = next
	}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
