// Package player gives every kind of chess player one interface, so the
// match runner, tournaments, `dchess eval` and UCI engine mode drive a
// random mover, an alpha-beta searcher over a learned evaluator or an
// external UCI engine the same way. This package holds only random,
// heuristic and uci, registered by RegisterBuiltins, and imports no model:
// a model family's player is registered (RegisterModel) with its
// family.Family by its package's Register (models/<name>/family.go), and a
// player family that is not trained, such as Deep Red's experience tree
// (models/experience), registers itself (Register) from its own package's
// Register; a binary calls all three through families.RegisterAll, and
// nothing registers on import.
package player

import (
	"context"
	"time"
)

// Position is a game as the UCI "position" command sends it: a start FEN
// ("" for the initial position) and the moves played since, in UCI notation.
// Players that search need the moves, not just the final FEN, to see
// repetitions.
type Position struct {
	StartFEN string
	Moves    []string
}

// Limits bound one move. Zero fields are unset; with none set a player uses
// its own default (a searching player its default depth), except that
// Infinite asks for a search that runs until ctx ends.
type Limits struct {
	Depth    int
	Nodes    int64
	MoveTime time.Duration
	// Clocks and increments of both sides; the side to move's are used.
	WTime, BTime, WInc, BInc time.Duration
	MovesToGo                int
	Infinite                 bool
	// DefaultDepth, when set, is the depth of a search that nothing else
	// bounds: none of the limits above and none of the player's own
	// settings (depth=, nodes=). Unlike Depth it caps no player that has
	// a limit of its own. Zero leaves the depth to the player's default.
	DefaultDepth int
	// SearchMoves, when not empty, are the only moves the player may
	// play (UCI "go searchmoves"), in UCI notation. Searching players,
	// policies, random movers and UCI engines honour it; a player that
	// cannot (the experience player) plays as if it were empty, which the
	// UCI engine reports.
	SearchMoves []string
	// MoveOverhead, when positive, is kept back from a clock budget for
	// the time a move takes to reach the clock (UCI "Move Overhead");
	// searching players honour it, 0 leaves their default.
	MoveOverhead time.Duration
	// MultiPV asks for the best k moves' lines in every progress report
	// (UCI MultiPV); 0 and 1 mean one. Only players that say so
	// (LinesReporter) report more; it never changes the move played.
	MultiPV int
	// OnInfo, if not nil, receives progress reports (one per finished
	// iteration for a searching player, one per line with MultiPV), for
	// UCI "info" lines.
	OnInfo func(Info)
}

// Info is a progress report of a running search.
type Info struct {
	Depth, SelDepth int
	Score, Mate     int
	Nodes           int64
	Time            time.Duration
	PV              []string
	// HashFull is the per-mille of the hash table used, 0 when unknown.
	HashFull int
	// MultiPV is the line's rank from 1 in a report of several lines
	// (Limits.MultiPV above 1), 0 in a report of one.
	MultiPV int
}

// LinesReporter is a Player that can report several lines an iteration
// (Limits.MultiPV). Other players report one line whatever it says.
type LinesReporter interface {
	ReportsLines() bool
}

// MoveInfo is a player's move and what it thinks of the position.
type MoveInfo struct {
	Move string // UCI notation
	// HasScore says whether Score and Mate are an evaluation; a random
	// mover or a policy without search has none, and adjudication must not
	// read its zero as "equal".
	HasScore bool
	// Score is in centipawns from the side to move's view; Mate is the
	// signed number of moves to mate (positive: the side to move mates), 0
	// when no mate was found.
	Score, Mate int
	Depth       int
	Nodes       int64
	PV          []string
}

// Player plays moves. A Player is used by one goroutine at a time; the
// match runner gives every concurrent game its own instances.
type Player interface {
	// Name is the display name used in reports and PGN.
	Name() string
	// NewGame forgets what earlier games taught the player (hash tables),
	// so a game's moves do not depend on which games came before it.
	NewGame(ctx context.Context) error
	// Move returns the move to play in pos. When ctx ends the player
	// should return its best move so far promptly.
	Move(ctx context.Context, pos Position, lim Limits) (MoveInfo, error)
	// Close releases the player's resources (an engine process).
	Close() error
}

// GameSeeder is implemented by players whose moves depend on a random
// source. The match runner calls SeedGame before each game with a seed
// derived from the match seed and the game number, so a game's moves do not
// depend on which worker played it or which games came before.
type GameSeeder interface {
	SeedGame(seed uint64)
}
