package play

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dchess/dchess/internal/chess/board"
)

func TestUnicodeBoardFromBlacksSide(t *testing.T) {
	_, out := run(t, Options{Human: board.Black, Pieces: Unicode, Width: 24}, map[string]string{"": "e2e4"}, "moves\nquit\n")
	want := `scripted plays e4

  White (♔ ♕ ♖): scripted
1 ♖ ♘ ♗ ♔ ♕ ♗ ♘ ♖ 
2 ♙ ♙ ♙ · ♙ ♙ ♙ ♙ 
3 · · · · · · · · 
4 · · · ♙ · · · · 
5 · · · · · · · · 
6 · · · · · · · · 
7 ♟ ♟ ♟ ♟ ♟ ♟ ♟ ♟ 
8 ♜ ♞ ♝ ♚ ♛ ♝ ♞ ♜ 
  h g f e d c b a
  Black (♚ ♛ ♜): Tester
Last move: e4
Your move (black): Legal moves: a6 b6 c6 d6
  e6 f6 g6 h6 a5 b5 c5
  d5 e5 f5 g5 h5 Na6 Nc6
  Nf6 Nh6
`
	if !strings.Contains(out, want) {
		t.Errorf("output:\n%s\nwant it to hold:\n%s", out, want)
	}
}

func TestWrapMovesBreaksBetweenMoves(t *testing.T) {
	moves := []string{"a3", "Nf3", "exd8=Q+", "O-O-O", "Qxe7#", "b4"}
	got := wrapMoves("Legal moves: ", moves, 20)
	want := "Legal moves: a3 Nf3\n  exd8=Q+ O-O-O\n  Qxe7# b4\n"
	if got != want {
		t.Errorf("width 20:\n%s\nwant:\n%s", got, want)
	}
	// A prefix longer than the width starts the moves on the next line, and
	// a move longer than a line still stays whole.
	got = wrapMoves("a long prefix of many words: ", []string{"exd8=Q+", "b4"}, 6)
	if got != "a long prefix of many words: \n  exd8=Q+\n  b4\n" {
		t.Errorf("width 6: %q", got)
	}
	for width := 8; width <= 40; width++ {
		text := wrapMoves("Legal moves: ", moves, width)
		var seen []string
		for i, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
			if i > 0 && len(line) > width && len(strings.Fields(line)) > 1 {
				t.Errorf("width %d: line %q is too long", width, line)
			}
			fields := strings.Fields(line)
			if i == 0 {
				fields = fields[2:]
			}
			seen = append(seen, fields...)
		}
		if strings.Join(seen, " ") != strings.Join(moves, " ") {
			t.Errorf("width %d: a move was split or lost:\n%s", width, text)
		}
	}
}

// TestTerminalWidthOfNoTerminal: a buffer or a file is no terminal, so
// lists wrap at 80 columns.
func TestTerminalWidthOfNoTerminal(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if got := TerminalWidth(f); got != 80 {
		t.Errorf("a file: %d columns", got)
	}
	if got := TerminalWidth(&bytes.Buffer{}); got != 80 {
		t.Errorf("a buffer: %d columns", got)
	}
}
