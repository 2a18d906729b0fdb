// Package search plays chess: alpha-beta (and plain minimax) over
// search/board, talking to evaluation only through the small interfaces
// below, so a new model family plugs in without touching the search.
package search

import (
	"github.com/dchess/dchess/internal/chess/board"
)

// Evaluator scores a position in centipawns from the side to move's view.
// Model families (heuristic, ann, cnn, ...) implement it.
type Evaluator interface {
	Evaluate(b *board.Board) int
}

// MoveObserver is an optional addition to an Evaluator whose evaluation
// keeps state along the line the search plays, as NNUE's accumulators do:
// updated from the move just made instead of recomputed from the whole
// board. The engine checks for it once, in New; an evaluator without it
// costs the search nothing and sees the same tree.
//
// The calls follow the board exactly: Root when a search starts, with the
// position it starts from; MakeMove just before b.Make(m) (b is still the
// position m is played from, so the moved and captured pieces can be read
// off it); MakeNull just before b.MakeNull(); Unmake just after
// b.Unmake(), for either kind of move. Evaluate is then always asked about
// the position the calls lead to.
type MoveObserver interface {
	Root(b *board.Board)
	MakeMove(b *board.Board, m board.Move)
	MakeNull(b *board.Board)
	Unmake()
}

// Comparator tells which of two positions is better, as DeepChess's
// siamese network does: the probability that a is better for White than b.
type Comparator interface {
	Compare(a, b *board.Board) float64
}

// MoveProposer ranks the legal moves of a position, for policy models that
// play without search. Scores are higher for better moves; the slices are
// parallel and cover only legal moves.
type MoveProposer interface {
	Propose(b *board.Board) (moves []board.Move, scores []float64, err error)
}
