package play

import (
	"testing"

	"github.com/dchess/dchess/internal/chess/board"
)

func TestParseSideAndPieces(t *testing.T) {
	for s, want := range map[string]board.Color{"white": board.White, "W": board.White, "Black": board.Black, "b": board.Black} {
		if got, err := ParseSide(s); err != nil || got != want {
			t.Errorf("ParseSide(%q) = %v, %v", s, got, err)
		}
	}
	if _, err := ParseSide("green"); err == nil || err.Error() != `must be white or black, got "green"` {
		t.Errorf("ParseSide(green): %v", err)
	}
	for s, want := range map[string]Pieces{"": Letters, "letters": Letters, "Unicode": Unicode} {
		if got, err := ParsePieces(s); err != nil || got != want {
			t.Errorf("ParsePieces(%q) = %v, %v", s, got, err)
		}
	}
	if _, err := ParsePieces("emoji"); err == nil || err.Error() != `must be letters or unicode, got "emoji"` {
		t.Errorf("ParsePieces(emoji): %v", err)
	}
}
