// Package dataset holds everything dchess trains on: the record and label
// types and the on-disk dataset format; its subpackages read games and
// labelled files (ingest), label with Stockfish (label) and encode boards
// for the models (encode). The chess rules and PGN are internal/chess's.
package dataset

import (
	"hash/fnv"
	"strings"

	"github.com/dchess/dchess/internal/chess/pgn"
	"github.com/dchess/dchess/internal/chess/winprob"
)

// Record is one position kept from a game or a labelled file.
type Record struct {
	FEN string
	// Key identifies the position for deduplication and sharding; see PositionKey.
	Key uint64
	// Move is the move played from the position in UCI notation, "" when unknown.
	Move string
	// Next holds the moves actually played after Move (the action-state-action
	// targets when no engine PV is used), at most the ingest horizon.
	Next   []string
	Result pgn.Result
	// Ply counts half-moves from the start of the game (0 = before White's first move).
	Ply      uint16
	WhiteElo uint16
	BlackElo uint16
	// GameID groups positions of one game; splits are made by it.
	GameID uint64
	// Label is nil until the position has been labelled (or imported labelled).
	Label *Label
	// ClockMS is the mover's clock after Move, in milliseconds, as the
	// game's [%clk] comment gave it; 0 when unknown. A clock shown as
	// 0:00:00 (less than a second left) is kept as 1, so it stays known.
	ClockMS uint32
	// Notes keeps what the input said about the position that no other
	// field holds, written as EPD operations (`id "WAC.001"; bm Qg6;`):
	// an EPD line's operations other than ce, dm, acd, acn and pv, a
	// puzzle's id, rating, themes and game. "" when there is nothing.
	Notes string
}

// LabelStatus says whether labelling a position succeeded.
type LabelStatus uint8

const (
	LabelOK     LabelStatus = 1
	LabelFailed LabelStatus = 2
)

// Label is an engine's verdict on a position, always from the side to move.
type Label struct {
	Status LabelStatus
	// Mate is the signed number of moves to mate (positive: the side to move
	// mates); 0 means CP holds a centipawn score.
	Mate int32
	CP   int32
	// WinProb is the side to move's win probability, see WinProbability.
	WinProb  float32
	BestMove string
	PV       []string
	// Depth is the depth of the score: the deepest exact one the engine
	// reported (a last iteration ending on a bound leaves it a ply short of
	// the depth asked).
	Depth  uint16
	Nodes  uint64
	Engine string
	// MultiPV holds the engine's further lines (2..K) when labelled with --multipv K.
	MultiPV []PVLine
	// Error explains a LabelFailed status.
	Error string
}

// PVLine is one of an engine's alternative lines, scored like Label.
type PVLine struct {
	Mate int32
	CP   int32
	PV   []string
}

// WinProbCoefficient is the logistic slope that maps centipawns to win
// probability (internal/chess/winprob, which the UCI engine shares).
const WinProbCoefficient = winprob.Coefficient

// WinProbability maps a score from the side to move to its win probability:
// 1/(1+exp(-0.00368208*cp)); mate for the side to move is 1, mated is 0.
func WinProbability(cp, mate int32) float32 {
	return float32(winprob.Of(int(cp), int(mate)))
}

// PositionKey hashes the placement, side to move, castling rights and
// en-passant fields of a FEN (not the move counters), so transpositions
// reached at different move numbers deduplicate.
func PositionKey(fen string) uint64 {
	fields := strings.Fields(fen)
	if len(fields) > 4 {
		fields = fields[:4]
	}
	h := fnv.New64a()
	for i, f := range fields {
		if i > 0 {
			h.Write([]byte{' '})
		}
		h.Write([]byte(f))
	}
	return h.Sum64()
}
