package play

import (
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf8"

	"golang.org/x/term"

	"github.com/dchess/dchess/internal/chess/board"
	"github.com/dchess/dchess/search/match"
)

// letterPieces are FEN's letters of [colour][piece]: capitals for White.
var letterPieces = [2][7]string{
	board.White: {board.Pawn: "P", board.Knight: "N", board.Bishop: "B", board.Rook: "R", board.Queen: "Q", board.King: "K"},
	board.Black: {board.Pawn: "p", board.Knight: "n", board.Bishop: "b", board.Rook: "r", board.Queen: "q", board.King: "k"},
}

// unicodePieces are the glyphs of [colour][piece]. On a dark terminal the
// outlined "white" glyphs look darker than the filled "black" ones, so the
// board labels each side.
var unicodePieces = [2][7]string{
	board.White: {board.Pawn: "♙", board.Knight: "♘", board.Bishop: "♗", board.Rook: "♖", board.Queen: "♕", board.King: "♔"},
	board.Black: {board.Pawn: "♟", board.Knight: "♞", board.Bishop: "♝", board.Rook: "♜", board.Queen: "♛", board.King: "♚"},
}

func (p Pieces) glyphs() *[2][7]string {
	if p == Unicode {
		return &unicodePieces
	}
	return &letterPieces
}

// sideLabel names a side and how its pieces are drawn:
// "White (capitals): You", "Black (♚ ♛ ♜): heuristic".
func (s *runState) sideLabel(c board.Color) string {
	who := s.opts.Opponent.Name()
	if c == s.opts.Human {
		who = s.opts.Name
	}
	look := "capitals"
	switch glyphs := s.opts.Pieces.glyphs(); {
	case s.opts.Pieces == Unicode:
		look = strings.Join([]string{glyphs[c][board.King], glyphs[c][board.Queen], glyphs[c][board.Rook]}, " ")
	case c == board.Black:
		look = "lower case"
	}
	return fmt.Sprintf("  %s (%s): %s\n", match.ColorName(c), look, who)
}

// draw prints the board from the human's side, each side labelled, with
// the last move.
func (s *runState) draw() {
	human, glyphs := s.opts.Human, s.opts.Pieces.glyphs()
	var sb strings.Builder
	sb.WriteByte('\n')
	sb.WriteString(s.sideLabel(human.Other()))
	for row := range 8 {
		rank := 7 - row
		if human == board.Black {
			rank = row
		}
		fmt.Fprintf(&sb, "%d ", rank+1)
		for col := range 8 {
			file := col
			if human == board.Black {
				file = 7 - col
			}
			p, c := s.b.PieceAt(uint8(rank*8 + file))
			if p == board.NoPiece {
				sb.WriteString("·")
			} else {
				sb.WriteString(glyphs[c][p])
			}
			sb.WriteByte(' ')
		}
		sb.WriteByte('\n')
	}
	if human == board.White {
		sb.WriteString("  a b c d e f g h\n")
	} else {
		sb.WriteString("  h g f e d c b a\n")
	}
	sb.WriteString(s.sideLabel(human))
	if n := len(s.moves); n > 0 {
		fmt.Fprintf(&sb, "Last move: %s\n", s.moves[n-1].SAN)
	}
	if s.b.InCheck() {
		sb.WriteString("Check!\n")
	}
	io.WriteString(s.out, sb.String())
}

// wrapMoves writes prefix and the moves separated by spaces, breaking lines
// only between moves so that none is longer than width columns (a move
// longer than a line gets a line of its own); continuation lines are
// indented by two spaces.
func wrapMoves(prefix string, moves []string, width int) string {
	var sb strings.Builder
	sb.WriteString(prefix)
	column := utf8.RuneCountInString(prefix)
	for i, m := range moves {
		n, gap := utf8.RuneCountInString(m), min(i, 1)
		if column > 2 && column+gap+n > width {
			sb.WriteString("\n  ")
			column, gap = 2, 0
		}
		sb.WriteString(" "[:gap] + m)
		column += gap + n
	}
	sb.WriteByte('\n')
	return sb.String()
}

// TerminalWidth is w's width in columns when it is a terminal, else 80:
// the Width a game drawn on w wraps its lists of moves at.
func TerminalWidth(w io.Writer) int {
	if f, ok := w.(*os.File); ok {
		if width, _, err := term.GetSize(int(f.Fd())); err == nil && width > 0 {
			return width
		}
	}
	return 80
}
