package pgn

import (
	"fmt"
	"io"
	"strings"
	"unicode"

	"github.com/dchess/dchess/internal/chess/board"
)

// Export is one game to write in the PGN standard's export format: its
// tags in order (Write makes each value a legal string), the position its
// moves start from, the moves in SAN with a comment each may carry, and
// the result token.
type Export struct {
	Tags   []Tag
	FEN    string
	Moves  []ExportMove
	Result string
}

// ExportMove is a move in SAN and the comment after it, without braces
// ("" for none).
type ExportMove struct{ SAN, Comment string }

// Write writes g: the tags, a blank line, the move text numbered from the
// start position with each comment in braces, the result, and a blank line.
// Lines stay under 80 characters, as the PGN standard asks.
func Write(w io.Writer, g Export) error {
	var b strings.Builder
	for _, t := range g.Tags {
		fmt.Fprintf(&b, "[%s \"%s\"]\n", t.Name, TagValue(t.Value))
	}
	b.WriteByte('\n')
	start, err := board.FromFEN(g.FEN)
	if err != nil {
		return err
	}
	var tokens []string
	moveNo, side := start.FullmoveNumber(), start.SideToMove()
	for i, m := range g.Moves {
		switch {
		case side == board.White:
			tokens = append(tokens, fmt.Sprintf("%d.", moveNo))
		case i == 0:
			tokens = append(tokens, fmt.Sprintf("%d...", moveNo))
		}
		tokens = append(tokens, m.SAN)
		if m.Comment != "" {
			tokens = append(tokens, "{"+commentText(m.Comment)+"}")
		}
		if side == board.Black {
			moveNo++
		}
		side = side.Other()
	}
	tokens = append(tokens, g.Result)
	lineLen := 0
	for _, t := range tokens {
		if lineLen > 0 && lineLen+1+len(t) > 79 {
			b.WriteByte('\n')
			lineLen = 0
		} else if lineLen > 0 {
			b.WriteByte(' ')
			lineLen++
		}
		b.WriteString(t)
		lineLen += len(t)
	}
	b.WriteString("\n\n")
	_, err = io.WriteString(w, b.String())
	return err
}

// TagValue is value as a legal PGN string token: \ and " escaped, and each
// control character (newline, tab...), which the standard does not allow in
// a string, replaced by a space. A name from an engine's "id name" or a
// player SPEC would otherwise end a tag line in the middle. Spaces around
// the value are dropped, as a reader would.
func TagValue(value string) string {
	value = strings.TrimSpace(strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, value))
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(value)
}

// commentText keeps a comment inside its braces: a brace in it would end
// the comment early.
func commentText(c string) string {
	return strings.NewReplacer("{", "(", "}", ")").Replace(c)
}
