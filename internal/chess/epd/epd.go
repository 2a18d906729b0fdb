// Package epd reads EPD (Extended Position Description) lines: the four FEN
// fields of a position, then operations such as `bm Nf3; id "WAC.001";`.
// It is the one EPD reader: opening books (search/match), test suites
// (`dchess eval --epd`) and scored positions (`dchess ingest --format epd`)
// all go through it. It lives under search, beside the board it parses
// into, because search may not import dataset; dataset and pipeline import
// it from here.
package epd

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/dchess/dchess/internal/chess/board"
)

// Line is one parsed EPD line.
type Line struct {
	// FEN is the line's FEN fields as written (four, or six with counters).
	FEN   string
	Board *board.Board
	// Ops maps each opcode to its operands, quotes removed; a repeated
	// opcode keeps its last operands.
	Ops map[string][]string
}

// Parse reads one EPD line. When the two fields after the FEN fields are
// numbers, they are taken as the move counters of a full FEN line.
func Parse(line string) (*Line, error) {
	fields := strings.Fields(line)
	if len(fields) < 4 {
		return nil, errors.New("want the four FEN fields (pieces, side to move, castling, en passant) first")
	}
	n := 4
	for n < 6 && n < len(fields) {
		if _, err := strconv.Atoi(strings.TrimSuffix(fields[n], ";")); err != nil {
			break
		}
		n++
	}
	if n == 5 { // a lone number is an opcode operand, not a halfmove clock
		n = 4
	}
	fen := strings.TrimSuffix(strings.Join(fields[:n], " "), ";")
	b, err := board.FromFEN(fen)
	if err != nil {
		return nil, err
	}
	rest := line
	for range n {
		rest = strings.TrimLeft(rest, " \t")
		rest = rest[strings.IndexAny(rest+" ", " \t"):]
	}
	ops, err := operations(rest)
	if err != nil {
		return nil, err
	}
	return &Line{FEN: fen, Board: b, Ops: ops}, nil
}

// Has says whether the line has the opcode with at least one operand.
func (l *Line) Has(op string) bool { return len(l.Ops[op]) > 0 }

// Moves parses op's operands as SAN moves, each from the line's position
// (bm and am list alternatives). A move that is not legal there is an
// error that names it and the side to move.
func (l *Line) Moves(op string) ([]board.Move, error) {
	var out []board.Move
	for _, san := range l.Ops[op] {
		m, err := l.Board.ParseSAN(san)
		if err != nil {
			return nil, illegal(op, san, l.Board, err)
		}
		out = append(out, m)
	}
	return out, nil
}

// Variation parses op's operands as SAN moves played one after the other
// (pv), and returns them as UCI.
func (l *Line) Variation(op string) ([]string, error) {
	play := l.Board.Clone()
	var out []string
	for i, san := range l.Ops[op] {
		m, err := play.ParseSAN(san)
		if err != nil {
			e := illegal(op, san, play, err)
			if i > 0 {
				e = fmt.Errorf("%v, after %s", e, strings.Join(l.Ops[op][:i], " "))
			}
			return nil, e
		}
		out = append(out, board.UCI(m))
		play.Make(m)
	}
	return out, nil
}

// illegal says in a player's words why san is not a move of b.
func illegal(op, san string, b *board.Board, err error) error {
	side := "White"
	if b.SideToMove() == board.Black {
		side = "Black"
	}
	if strings.HasSuffix(err.Error(), "is ambiguous") {
		return fmt.Errorf("%s %s is ambiguous: more than one %s piece can play it (add the file or rank it comes from)", op, san, strings.ToLower(side))
	}
	return fmt.Errorf("%s %s is not a legal move for %s in this position", op, san, side)
}

// Int is op's first operand as an integer; ok is false when op is absent.
func (l *Line) Int(op string) (v int64, ok bool, err error) {
	args := l.Ops[op]
	if len(args) == 0 {
		return 0, false, nil
	}
	v, err = strconv.ParseInt(args[0], 10, 64)
	if err != nil {
		return 0, true, fmt.Errorf("%s %q is not a whole number", op, strings.Join(args, " "))
	}
	return v, true, nil
}

// Scan calls fn with every line of r that is not blank or a # comment,
// trimmed, and its 1-based line number; it stops at fn's first error.
// Lines may be up to 1 MiB long.
func Scan(r io.Reader, fn func(lineNo int, line string) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for lineNo := 1; sc.Scan(); lineNo++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if err := fn(lineNo, line); err != nil {
			return err
		}
	}
	return sc.Err()
}

// operations splits `op arg arg; op "quoted; arg";` into a map.
func operations(s string) (map[string][]string, error) {
	ops := map[string][]string{}
	for {
		s = strings.TrimLeft(s, " \t")
		if s == "" {
			return ops, nil
		}
		var args []string
		var cur strings.Builder
		inQuote, ended := false, false
		i := 0
		for ; i < len(s); i++ {
			c := s[i]
			switch {
			case inQuote && c == '"':
				inQuote = false
				args = append(args, cur.String())
				cur.Reset()
			case inQuote:
				cur.WriteByte(c)
			case c == '"':
				inQuote = true
			case c == ';':
				ended = true
			case c == ' ' || c == '\t':
				if cur.Len() > 0 {
					args = append(args, cur.String())
					cur.Reset()
				}
			default:
				cur.WriteByte(c)
			}
			if ended {
				break
			}
		}
		if inQuote {
			return nil, errors.New("a quoted operand is not closed")
		}
		if cur.Len() > 0 {
			args = append(args, cur.String())
		}
		if len(args) > 0 {
			ops[args[0]] = args[1:]
		}
		if i >= len(s) {
			return ops, nil
		}
		s = s[i+1:]
	}
}
