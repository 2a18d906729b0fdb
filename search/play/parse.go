package play

import (
	"fmt"
	"strings"

	"github.com/dchess/dchess/internal/chess/board"
)

// ParseSide reads the human's side: white (w) or black (b), in any case.
func ParseSide(s string) (board.Color, error) {
	switch strings.ToLower(s) {
	case "white", "w":
		return board.White, nil
	case "black", "b":
		return board.Black, nil
	}
	return board.White, fmt.Errorf("must be white or black, got %q", s)
}

// ParsePieces reads how the pieces are drawn: letters (also "") or
// unicode, in any case.
func ParsePieces(s string) (Pieces, error) {
	switch strings.ToLower(s) {
	case "letters", "":
		return Letters, nil
	case "unicode":
		return Unicode, nil
	}
	return Letters, fmt.Errorf("must be letters or unicode, got %q", s)
}
