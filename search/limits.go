package search

import (
	"time"

	"github.com/dchess/dchess/internal/chess/board"
)

// Limits bound one search, as the UCI "go" command does. Zero fields are
// unset. With no limit at all the search runs until ctx is cancelled (or
// MaxPly is reached), like "go infinite".
type Limits struct {
	Depth    int           // iterations to complete (alpha-beta) or the fixed depth (minimax)
	Nodes    int64         // stop after about this many nodes
	MoveTime time.Duration // think exactly this long
	// Clocks and increments of both sides; the side to move's are used.
	WTime, BTime, WInc, BInc time.Duration
	MovesToGo                int  // moves until the next time control; 0 means sudden death
	Infinite                 bool // ignore clocks: search until ctx is cancelled or Depth/Nodes are reached
	// SearchMoves, when not empty, are the only root moves searched (UCI
	// "go searchmoves"); moves in it that are not legal are ignored, and
	// when none is legal every move is searched.
	SearchMoves []board.Move
	// MoveOverhead is kept back from a clock budget (not from MoveTime)
	// for the time a move takes to reach the clock; 0 means
	// DefaultMoveOverhead (UCI "Move Overhead").
	MoveOverhead time.Duration
	// MultiPV is how many best root moves every iteration reports, each
	// with its own line and score, best first (UCI MultiPV); 0 and 1 mean
	// one, above the number of root moves it means all of them.
	MultiPV int
}

// defaultMovesToGo is the number of moves a sudden-death clock is spread
// over. Fewer than a game lasts, on purpose: the target shrinks with the
// clock, so the opening and middlegame, where games are decided, get more
// and the endgame lives on the increment, as Stockfish spends its clock.
const defaultMovesToGo = 20

// DefaultMoveOverhead is kept back from every clock budget for the time it
// takes a move to travel through pipes and the match runner, unless
// Limits.MoveOverhead says otherwise.
const DefaultMoveOverhead = 10 * time.Millisecond

// moveOverhead is the default's short name in this package.
const moveOverhead = DefaultMoveOverhead

// timeBudget returns how long to think: soft is when no new iteration
// starts, hard is when a running iteration is abandoned. ok is false when
// no time limit applies. A move takes about the target, its share of the
// clock, on average.
func timeBudget(lim Limits, side board.Color) (soft, hard time.Duration, ok bool) {
	if lim.Infinite {
		return 0, 0, false
	}
	if lim.MoveTime > 0 {
		return lim.MoveTime, lim.MoveTime, true
	}
	left, inc := lim.WTime, lim.WInc
	if side == board.Black {
		left, inc = lim.BTime, lim.BInc
	}
	if left <= 0 {
		return 0, 0, false
	}
	movesToGo := lim.MovesToGo
	if movesToGo <= 0 {
		movesToGo = defaultMovesToGo
	}
	target := left/time.Duration(movesToGo) + inc*3/4
	// Never stake more than a safe share of what is left: the last move
	// before a time control may use more, but not all.
	ceiling := left * 2 / 5
	if movesToGo == 1 {
		ceiling = left * 4 / 5
	}
	// No iteration starts after half the target, as it would rarely finish
	// in time; one that is running may take up to three times the target,
	// so that the depth it was started for is rarely thrown away.
	overhead := moveOverhead
	if lim.MoveOverhead > 0 {
		overhead = lim.MoveOverhead
	}
	soft = max(target/2-overhead, time.Millisecond)
	hard = max(min(3*target, ceiling)-overhead, time.Millisecond)
	return min(soft, hard), hard, true
}
