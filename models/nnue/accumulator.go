package nnue

import (
	"math"

	"github.com/dchess/dchess/internal/chess/board"
	"github.com/dchess/dchess/search/endgame"
)

// Evaluator scores positions with a Net. It implements search.Evaluator
// and search.MoveObserver: it keeps one accumulator pair (White's view,
// Black's view) per ply of the line the search plays, updated from the
// parent's by the rows of the pieces a move moved, captured or promoted,
// and only when a position is evaluated (a position the search leaves
// unevaluated costs two pushes and a pop). It holds that state and
// scratch buffers, so it is not safe for concurrent use: give each player
// and goroutine its own (Clone shares the weights).
type Evaluator struct {
	net    *Net
	frames []frame // frames[0] is the search's root
	top    int
	// rootKey is frames[0]'s position; a position evaluated outside a
	// search (no move played since Root) is checked against it.
	rootKey uint64
	rooted  bool
	scratch scratch
	idx     [Slots + 1]int
}

// pieceChange is one piece put on or taken off a square.
type pieceChange struct {
	color board.Color
	piece board.Piece
	sq    uint8
}

// frame is one ply: its accumulators by viewing colour and what the move
// into it changed (at most two pieces removed and two placed: castling's
// king and rook, or a capture with a promotion).
type frame struct {
	acc        [2][]int16
	computed   bool
	add, sub   [2]pieceChange
	nAdd, nSub int
}

// NewEvaluator returns an evaluator over n's weights.
func NewEvaluator(n *Net) *Evaluator {
	e := &Evaluator{net: n, scratch: newScratch(n.cfg)}
	e.grow()
	return e
}

func maxOf(v []int) int {
	m := 0
	for _, x := range v {
		m = max(m, x)
	}
	return m
}

// Clone returns an evaluator sharing the weights with state of its own.
func (e *Evaluator) Clone() *Evaluator { return NewEvaluator(e.net) }

// Net returns the weights the evaluator plays with.
func (e *Evaluator) Net() *Net { return e.net }

func (e *Evaluator) grow() {
	n := e.net.cfg.Accumulator
	buf := make([]int16, 2*n)
	e.frames = append(e.frames, frame{acc: [2][]int16{buf[:n], buf[n:]}})
}

// Root starts a line at b: its accumulators are computed in full.
func (e *Evaluator) Root(b *board.Board) {
	e.top, e.rooted, e.rootKey = 0, true, b.Key()
	e.refresh(&e.frames[0], b)
}

// MakeMove records what m changes; b is the position before m.
func (e *Evaluator) MakeMove(b *board.Board, m board.Move) {
	f := e.push()
	from, to := m.From(), m.To()
	us := b.SideToMove()
	piece, _ := b.PieceAt(from)
	f.sub[0] = pieceChange{us, piece, from}
	f.nSub = 1
	placed := piece
	if promo := board.Piece(m.Promote()); promo != board.NoPiece {
		placed = promo
	}
	f.add[0] = pieceChange{us, placed, to}
	f.nAdd = 1
	if victim, color := b.PieceAt(to); victim != board.NoPiece && color != us {
		f.sub[1] = pieceChange{color, victim, to}
		f.nSub = 2
	} else if ep, ok := b.EnPassant(); ok && piece == board.Pawn && to == ep {
		sq := to - 8
		if us == board.Black {
			sq = to + 8
		}
		f.sub[1] = pieceChange{us.Other(), board.Pawn, sq}
		f.nSub = 2
	} else if piece == board.King && (to == from+2 || from == to+2) {
		rookFrom, rookTo := from+3, from+1 // king side
		if to < from {
			rookFrom, rookTo = from-4, from-1
		}
		f.sub[1] = pieceChange{us, board.Rook, rookFrom}
		f.add[1] = pieceChange{us, board.Rook, rookTo}
		f.nSub, f.nAdd = 2, 2
	}
}

// MakeNull records a passed turn: the pieces stay, so do the accumulators.
func (e *Evaluator) MakeNull(*board.Board) {
	f := e.push()
	f.nAdd, f.nSub = 0, 0
}

// Unmake returns to the parent ply, whose accumulators are kept.
func (e *Evaluator) Unmake() {
	if e.top > 0 {
		e.top--
	}
}

func (e *Evaluator) push() *frame {
	e.top++
	if e.top == len(e.frames) {
		e.grow()
	}
	f := &e.frames[e.top]
	f.computed = false
	return f
}

// Evaluate scores b in centipawns from the side to move's view: the
// network's score (Network), plus the lead past a rook once a side has
// nothing but pawns (endgame.Decisive); a lone king against mating
// material or against king and pawn is scored as the known win or draw
// it is (endgame.Known). Fitted to win probabilities that are all about 1
// there, the network does not rank won positions, and a search with it
// alone did not promote or convert them (docs/nnue.md, "Decisive
// material").
func (e *Evaluator) Evaluate(b *board.Board) int {
	if s, ok := endgame.Known(b); ok {
		return s
	}
	return e.Network(b) + endgame.Decisive(b)
}

// Network is the network's score of b in centipawns from the side to
// move's view, what the training graph computes. Inside a search b is the
// position the observed moves lead to; outside one (no move observed
// since Root, or never rooted) a different position starts a new line.
func (e *Evaluator) Network(b *board.Board) int {
	if !e.rooted || (e.top == 0 && b.Key() != e.rootKey) {
		e.Root(b)
	}
	f := e.accumulate(b)
	stm := b.SideToMove()
	bucket := e.net.cfg.bucket(popcount(b.Occupied()))
	return int(math.Round(float64(e.net.score(f.acc[stm], f.acc[stm.Other()], bucket, &e.scratch))))
}

// accumulate brings the top frame's accumulators up to date: from the
// nearest computed ancestor by the moves' changes, or by a full refresh
// from b when that is cheaper (a long unevaluated line: each ply costs
// two to four rows per view, a refresh one row per piece).
func (e *Evaluator) accumulate(b *board.Board) *frame {
	top := &e.frames[e.top]
	if top.computed {
		return top
	}
	j := e.top - 1
	for !e.frames[j].computed {
		j--
	}
	if 3*(e.top-j) >= popcount(b.Occupied()) {
		e.refresh(top, b)
		return top
	}
	for k := j + 1; k <= e.top; k++ {
		e.net.update(&e.frames[k-1], &e.frames[k])
	}
	return top
}

// refresh computes f's accumulators from b's pieces.
func (e *Evaluator) refresh(f *frame, b *board.Board) {
	for _, view := range [2]board.Color{board.White, board.Black} {
		n := activeFeatures(b, view, e.idx[:])
		e.net.refresh(f.acc[view], e.idx[:min(n, Slots)])
	}
	f.computed = true
}
