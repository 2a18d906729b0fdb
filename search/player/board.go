package player

import (
	"fmt"
	"slices"

	"github.com/dchess/dchess/internal/chess/board"
)

// Board replays pos on a fresh board. An illegal move is an error that
// names it and its ply, so a bad position from a GUI is easy to find.
func Board(pos Position) (*board.Board, error) {
	b, err := startBoard(pos.StartFEN)
	if err != nil {
		return nil, err
	}
	if err := replay(b, pos.Moves, 0); err != nil {
		return nil, err
	}
	return b, nil
}

// startBoard is the position a game starts from: a FEN, or "" or
// "startpos" for the standard one.
func startBoard(fen string) (*board.Board, error) {
	if fen == "" || fen == "startpos" {
		fen = board.StartFEN
	}
	return board.FromFEN(fen)
}

// replay makes moves on b; first is the ply number of moves[0] less one,
// for the error.
func replay(b *board.Board, moves []string, first int) error {
	for i, s := range moves {
		m, err := b.ParseUCI(s)
		if err != nil {
			return fmt.Errorf("move %d (%s): %w", first+i+1, s, err)
		}
		b.Make(m)
	}
	return nil
}

// gameBoard follows the game a player is asked to move in. Each request
// usually repeats the last one's moves and adds the opponent's reply, so
// it keeps the board and makes only the new moves: replaying the whole
// game at every move cost as much as a search of a few hundred nodes,
// which is datagen's budget.
type gameBoard struct {
	start string
	moves []string
	b     *board.Board // nil until a position has been built
}

// board returns pos on a board of the caller's own.
func (g *gameBoard) board(pos Position) (*board.Board, error) {
	n := len(g.moves)
	if g.b == nil || pos.StartFEN != g.start || len(pos.Moves) < n || !slices.Equal(pos.Moves[:n], g.moves) {
		b, err := startBoard(pos.StartFEN)
		if err != nil {
			return nil, err
		}
		g.b, g.start, g.moves, n = b, pos.StartFEN, g.moves[:0], 0
	}
	if err := replay(g.b, pos.Moves[n:], n); err != nil {
		g.b = nil // part of the moves were made
		return nil, err
	}
	g.moves = append(g.moves, pos.Moves[n:]...)
	return g.b.Clone(), nil
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
