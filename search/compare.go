package search

import (
	"context"
	"strings"
	"time"

	"github.com/dchess/dchess/internal/chess/board"
	"github.com/dchess/dchess/internal/chess/winprob"
)

// SeenComparator is a Comparator that remembers the positions it is shown,
// so the comparison search can weigh a new position against leaves it
// left long ago without keeping their boards. DeepChess's siamese network
// implements it and keeps each position's embedding, so a comparison runs
// only the network's head; RememberBoards adapts any other Comparator.
type SeenComparator interface {
	Comparator
	// See remembers b and returns its key (b.Key()).
	See(b *board.Board) uint64
	// CompareSeen is Compare for two positions shown to See.
	CompareSeen(a, b uint64) float64
	// CompareDraw is the probability that a (shown to See) is better for
	// White than a draw.
	CompareDraw(a uint64) float64
	// NewSearch says no position shown before will be compared again.
	NewSearch()
}

// RememberBoards makes a SeenComparator of c by keeping a copy of every
// board it is shown; a c that already is one is returned as it is. Draws
// are weighed by comparing a position with its colour-swapped mirror:
// a position is better for White than a draw exactly when White would
// rather have it than Black would.
func RememberBoards(c Comparator) SeenComparator {
	if s, ok := c.(SeenComparator); ok {
		return s
	}
	return &boardMemory{cmp: c, boards: map[uint64]*board.Board{}}
}

type boardMemory struct {
	cmp    Comparator
	boards map[uint64]*board.Board
}

func (m *boardMemory) Compare(a, b *board.Board) float64 { return m.cmp.Compare(a, b) }

func (m *boardMemory) See(b *board.Board) uint64 {
	key := b.Key()
	if _, ok := m.boards[key]; !ok {
		c := b.Clone()
		c.ResetHistory()
		m.boards[key] = c
	}
	return key
}

func (m *boardMemory) CompareSeen(a, b uint64) float64 {
	return m.cmp.Compare(m.boards[a], m.boards[b])
}

func (m *boardMemory) CompareDraw(a uint64) float64 {
	b := m.boards[a]
	mirror, err := board.FromFEN(MirrorFEN(b.FEN()))
	if err != nil {
		return 0.5 // cannot happen for a legal position; a draw is then as good as a
	}
	return m.cmp.Compare(b, mirror)
}

func (m *boardMemory) NewSearch() { clear(m.boards) }

// MirrorFEN returns the colour-swapped position: ranks in reverse order,
// White's pieces made Black's and the reverse, the other side to move, the
// castling rights and the en-passant square exchanged.
func MirrorFEN(fen string) string {
	f := strings.Fields(fen)
	if len(f) < 4 {
		return fen
	}
	ranks := strings.Split(f[0], "/")
	for i, j := 0, len(ranks)-1; i < j; i, j = i+1, j-1 {
		ranks[i], ranks[j] = ranks[j], ranks[i]
	}
	f[0] = swapCase(strings.Join(ranks, "/"))
	f[1] = map[string]string{"w": "b", "b": "w"}[f[1]]
	if f[2] != "-" {
		swapped := swapCase(f[2])
		var upper, lower strings.Builder
		for _, r := range swapped {
			if r >= 'A' && r <= 'Z' {
				upper.WriteRune(r)
			} else {
				lower.WriteRune(r)
			}
		}
		f[2] = upper.String() + lower.String()
	}
	if len(f[3]) == 2 {
		f[3] = f[3][:1] + map[byte]string{'3': "6", '6': "3"}[f[3][1]]
	}
	return strings.Join(f, " ")
}

func swapCase(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z':
			return r - 'a' + 'A'
		case r >= 'A' && r <= 'Z':
			return r - 'A' + 'a'
		}
		return r
	}, s)
}

// DefaultQuiesceDepth is how many plies of captures the comparison search
// follows past its depth unless told otherwise.
const DefaultQuiesceDepth = 4

// CompareOptions configure a CompareEngine.
type CompareOptions struct {
	HashMB int // table of best moves, for move ordering; 0 means DefaultHashMB
	// QuiesceDepth bounds the captures searched past the depth, so leaves
	// are quiet positions like the ones DeepChess trains on: 0 means
	// DefaultQuiesceDepth, negative searches none.
	QuiesceDepth int
}

// CompareEngine is DeepChess's search: alpha-beta in which alpha, beta and
// every node's value are positions (or a mate or a draw), not numbers, and
// a position is weighed against them by asking the comparator which is
// better for White. White's nodes keep the child that is best for White,
// Black's the worst. It shares Engine's move ordering (best move from
// the previous iteration, captures, killers, history), iterative deepening,
// limits and PV. Like Engine it is not safe for concurrent use.
type CompareEngine struct {
	e           *Engine
	cmp         SeenComparator
	qDepth      int
	comparisons int64
}

// NewCompare returns a comparison search over c (see RememberBoards).
func NewCompare(c Comparator, opts CompareOptions) *CompareEngine {
	q := opts.QuiesceDepth
	switch {
	case q == 0:
		q = DefaultQuiesceDepth
	case q < 0:
		q = 0
	}
	return &CompareEngine{e: New(nil, Options{HashMB: opts.HashMB}), cmp: RememberBoards(c), qDepth: q}
}

// NewGame forgets the move-ordering tables of earlier searches.
func (c *CompareEngine) NewGame() { c.e.NewGame() }

// Comparisons returns how many comparisons the last search asked for.
func (c *CompareEngine) Comparisons() int64 { return c.comparisons }

// valueKind orders what a node can be worth to White. Positions and draws
// share a rank and are told apart by the comparator.
type valueKind int8

const (
	minusInf   valueKind = iota // the initial alpha, below everything
	blackMates                  // White is mated; ply says when
	drawn
	position // a leaf position, compared by the network
	whiteMates
	plusInf // the initial beta
)

type value struct {
	kind valueKind
	ply  int    // plies from the root to the mate
	key  uint64 // the position, for kind position
}

func (k valueKind) rank() int {
	switch k {
	case minusInf:
		return 0
	case blackMates:
		return 1
	case drawn, position:
		return 2
	case whiteMates:
		return 3
	}
	return 4
}

// better says whether a is strictly better for White than b.
func (c *CompareEngine) better(a, b value) bool {
	if ra, rb := a.kind.rank(), b.kind.rank(); ra != rb {
		return ra > rb
	}
	switch {
	case a.kind == blackMates:
		return a.ply > b.ply // being mated later is better
	case a.kind == whiteMates:
		return a.ply < b.ply
	case a.kind == position && b.kind == position:
		if a.key == b.key {
			return false
		}
		c.comparisons++
		return c.cmp.CompareSeen(a.key, b.key) > 0.5
	case a.kind == position && b.kind == drawn:
		c.comparisons++
		return c.cmp.CompareDraw(a.key) > 0.5
	case a.kind == drawn && b.kind == position:
		c.comparisons++
		return c.cmp.CompareDraw(b.key) < 0.5
	}
	return false // two draws, or two infinities
}

// prefer says whether the side to move would rather have v than best.
func (c *CompareEngine) prefer(white bool, v, best value) bool {
	if white {
		return c.better(v, best)
	}
	return c.better(best, v)
}

// narrow raises alpha (White) or lowers beta (Black) to best when best is
// beyond it, and says whether it did; only then can the window close.
func (c *CompareEngine) narrow(white bool, best value, alpha, beta *value) bool {
	if white {
		if c.better(best, *alpha) {
			*alpha = best
			return true
		}
		return false
	}
	if c.better(*beta, best) {
		*beta = best
		return true
	}
	return false
}

// closed says the window is empty: beta is not better for White than alpha.
func (c *CompareEngine) closed(alpha, beta value) bool { return !c.better(beta, alpha) }

func worst(white bool) value {
	if white {
		return value{kind: minusInf}
	}
	return value{kind: plusInf}
}

func (c *CompareEngine) leaf(b *board.Board) value {
	return value{kind: position, key: c.cmp.See(b)}
}

// terminal is the value of a position without legal moves.
func terminal(b *board.Board, ply int) value {
	if !b.InCheck() {
		return value{kind: drawn}
	}
	if b.SideToMove() == board.White {
		return value{kind: blackMates, ply: ply}
	}
	return value{kind: whiteMates, ply: ply}
}

// Search finds a move for the side to move, as Engine.Search does. A
// comparison search has no evaluation of its own; Result.Score is the
// root value's on the centipawn scale (see score): a mate's score, 0 for a
// draw, else the comparator's verdict on the principal variation's leaf.
func (c *CompareEngine) Search(ctx context.Context, b *board.Board, lim Limits, onInfo func(Info)) Result {
	c.comparisons = 0
	c.cmp.NewSearch()
	e := c.e
	res, soft, timed, ok := e.begin(ctx, b, lim)
	if !ok {
		return res
	}
	e.deepen(lim, soft, timed, &res, onInfo, func(depth int) int {
		return c.score(c.alphabeta(b, depth, 0, value{kind: minusInf}, value{kind: plusInf}), b.SideToMove())
	})
	res.Nodes = e.nodes
	res.Elapsed = time.Since(e.start)
	return res
}

// score puts a root value on the centipawn scale from side's view. A mate
// is its mate score and a draw 0. A position, the leaf the principal
// variation ends in, is scored by p, the comparator's probability that it
// is better for side than a draw (for White, CompareDraw: than its own
// colour-mirror; for Black, 1 minus that), mapped through the inverse of
// dchess's centipawn logistic, ln(p/(1-p))/0.00368208, clamped to ±2000
// (winprob.Centipawns). The comparator was not trained on that logistic,
// so the figure is the network's confidence on a centipawn-like scale: 0
// when it cannot tell the leaf from equality, large when it is sure; it is
// what lets a match runner adjudicate a comparison player's games.
func (c *CompareEngine) score(v value, side board.Color) int {
	if v.kind != position {
		return mateScore(v, side)
	}
	c.comparisons++
	p := c.cmp.CompareDraw(v.key)
	if side == board.Black {
		p = 1 - p
	}
	return winprob.Centipawns(p)
}

// mateScore is a mate's score from the side to move's view, 0 otherwise.
func mateScore(v value, side board.Color) int {
	s := 0
	switch v.kind {
	case whiteMates:
		s = MateScore - v.ply
	case blackMates:
		s = -(MateScore - v.ply)
	}
	if side == board.Black {
		s = -s
	}
	return s
}

func (c *CompareEngine) alphabeta(b *board.Board, depth, ply int, alpha, beta value) value {
	if depth <= 0 {
		return c.quiesce(b, ply, 0, alpha, beta)
	}
	e := c.e
	e.pvLen[ply] = ply
	e.nodes++
	if e.checkStop() {
		return value{}
	}
	if ply > 0 && (b.IsRepeated() || b.InsufficientMaterial()) {
		return value{kind: drawn}
	}
	moves := b.LegalMoves()
	if len(moves) == 0 {
		return terminal(b, ply)
	}
	moves = e.atRoot(moves, ply)
	if ply > 0 && b.HalfmoveClock() >= 100 {
		return value{kind: drawn}
	}
	if ply >= MaxPly {
		return c.leaf(b)
	}
	hashMove := board.NullMove
	if entry, ok := e.tt.probe(b.Key()); ok {
		hashMove = entry.move
	}
	scores := e.scores[ply][:len(moves)]
	e.scoreMoves(b, moves, scores, hashMove, ply)
	side := b.SideToMove()
	white := side == board.White
	best, bestMove := worst(white), board.NullMove
	for i := range moves {
		pickMove(moves, scores, i)
		m := moves[i]
		quiet := m.Promote() == 0 && !b.IsCapture(m)
		b.Make(m)
		v := c.alphabeta(b, depth-1, ply+1, alpha, beta)
		b.Unmake()
		if e.stopped {
			return value{}
		}
		if !c.prefer(white, v, best) {
			continue
		}
		best, bestMove = v, m
		e.updatePV(ply, m)
		if ply == 0 {
			e.rootScore = c.score(v, side)
		}
		if c.narrow(white, best, &alpha, &beta) && c.closed(alpha, beta) {
			if quiet {
				e.rewardQuiet(side, m, nil, depth, ply)
			}
			break
		}
	}
	if ply == 0 && e.rootMoves != nil {
		return best
	}
	// Only the move is of use: values are positions, not scores.
	e.storeTT(b.Key(), bestMove, 0, depth, ply, boundUpper)
	return best
}

// quiesce follows captures (every move when in check) until the position
// is quiet or qDepth plies are used, standing pat on the position itself.
func (c *CompareEngine) quiesce(b *board.Board, ply, qply int, alpha, beta value) value {
	e := c.e
	e.pvLen[ply] = ply
	e.nodes++
	if e.checkStop() {
		return value{}
	}
	e.selDepth = max(e.selDepth, ply)
	if b.InsufficientMaterial() {
		return value{kind: drawn}
	}
	moves := b.LegalMoves()
	if len(moves) == 0 {
		return terminal(b, ply)
	}
	if ply >= MaxPly || qply >= c.qDepth {
		return c.leaf(b)
	}
	inCheck := b.InCheck()
	white := b.SideToMove() == board.White
	best := worst(white)
	if !inCheck {
		best = c.leaf(b)
		if c.narrow(white, best, &alpha, &beta) && c.closed(alpha, beta) {
			return best
		}
	}
	scores := e.scores[ply][:len(moves)]
	// A stand-pat of 0 against an alpha of -infinity turns delta pruning off:
	// there are no centipawns to prune with.
	n := e.scoreTactical(b, moves, scores, inCheck, 0, -infinity, board.NullMove)
	for i := 0; i < n; i++ {
		pickMove(moves[:n], scores[:n], i)
		m := moves[i]
		b.Make(m)
		v := c.quiesce(b, ply+1, qply+1, alpha, beta)
		b.Unmake()
		if e.stopped {
			return value{}
		}
		if !c.prefer(white, v, best) {
			continue
		}
		best = v
		e.updatePV(ply, m)
		if c.narrow(white, best, &alpha, &beta) && c.closed(alpha, beta) {
			break
		}
	}
	return best
}
