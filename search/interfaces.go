// Package search plays chess: alpha-beta (and plain minimax) over
// search/board, talking to evaluation only through the small interfaces
// below, so a new model family plugs in without touching the search.
package search

import (
	"github.com/dchess/dchess/search/board"
)

// Evaluator scores a position in centipawns from the side to move's view.
// Model families (heuristic, ann, cnn, ...) implement it.
type Evaluator interface {
	Evaluate(b *board.Board) int
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
