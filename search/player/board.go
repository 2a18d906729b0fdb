package player

import (
	"fmt"

	"github.com/dchess/dchess/internal/chess/board"
)

// Board replays pos on a fresh board. An illegal move is an error that
// names it and its ply, so a bad position from a GUI is easy to find.
func Board(pos Position) (*board.Board, error) {
	fen := pos.StartFEN
	if fen == "" || fen == "startpos" {
		fen = board.StartFEN
	}
	b, err := board.FromFEN(fen)
	if err != nil {
		return nil, err
	}
	for i, s := range pos.Moves {
		m, err := b.ParseUCI(s)
		if err != nil {
			return nil, fmt.Errorf("move %d (%s): %w", i+1, s, err)
		}
		b.Make(m)
	}
	return b, nil
}

func uciMoves(moves []board.Move) []string {
	out := make([]string, len(moves))
	for i, m := range moves {
		out[i] = board.UCI(m)
	}
	return out
}

// hasLimit says whether lim bounds a search at all.
func hasLimit(lim Limits) bool {
	return lim.Depth > 0 || lim.Nodes > 0 || lim.MoveTime > 0 || lim.WTime > 0 || lim.BTime > 0 || lim.Infinite
}
