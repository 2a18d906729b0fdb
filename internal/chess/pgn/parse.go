package pgn

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// Tag is one tag pair, value unescaped.
type Tag struct {
	Name, Value string
}

// Game is one parsed game: its tags in file order, the SAN tokens of its
// main line (variations, comments, NAGs and move numbers removed) and its
// result.
type Game struct {
	// Number counts games from 1 in the stream; Line is where the game starts.
	Number int
	Line   int
	Tags   []Tag
	// Moves are SAN tokens exactly as written (suffixes like + or ! kept);
	// MoveLines[i] is the line Moves[i] is on.
	Moves     []string
	MoveLines []int32
	// Comments[i] is the text of the comments that follow Moves[i] in
	// the main line, braces removed (two comments after one move are
	// joined by a space), "" when none; nil when no move of the game has
	// one. Comments inside variations and before the first move are not
	// kept. CommentEval and CommentClock read Lichess's [%eval] and [%clk]
	// commands out of them.
	Comments []string
	// Result is the game termination marker.
	Result Result
}

// Tag returns the value of the named tag, "" when absent.
func (g *Game) Tag(name string) string {
	for _, t := range g.Tags {
		if t.Name == name {
			return t.Value
		}
	}
	return ""
}

// StartFEN returns the FEN the game starts from, "" for the standard start.
// A FEN tag is honoured with or without SetUp "1", since many files omit it.
func (g *Game) StartFEN() string {
	if g.Tag("SetUp") == "0" {
		return ""
	}
	return strings.TrimSpace(g.Tag("FEN"))
}

// Error reports a game that cannot be read as chess (or, in files of
// labelled positions, a bad line): the game number, the line and the
// reason.
type Error struct {
	Game   int
	Line   int
	Reason string
	// Err is ErrNotStandardChess for a game of another variant, nil for a
	// malformed one.
	Err error
}

func (e *Error) Error() string {
	return fmt.Sprintf("game %d (line %d): %s", e.Game, e.Line, e.Reason)
}

func (e *Error) Unwrap() error { return e.Err }

// ErrNotStandardChess is wrapped by the *Error of a game whose Variant tag
// names another game than standard chess (Crazyhouse, Chess960...): its
// moves would be misread as chess, so the game is skipped.
var ErrNotStandardChess = errors.New("not standard chess")

// checkVariant refuses a game whose Variant tag is not standard chess.
// Standard chess is the tag's absence, "Standard", "Chess", "From
// Position" (a standard game from a set-up position) and the other names
// python-chess reads as standard ("Classical", "Normal"), in any case and
// spacing ("fromposition", "from_position").
func (p *parser) checkVariant() *Error {
	if p.variantLine == 0 {
		return nil
	}
	variant := p.g.Tag("Variant")
	name := strings.Map(func(r rune) rune {
		if r == ' ' || r == '-' || r == '_' || r == '\t' {
			return -1
		}
		return unicode.ToLower(r)
	}, variant)
	switch name {
	case "", "standard", "chess", "fromposition", "classical", "normal":
		return nil
	case "chess960", "960", "frc", "fischerandom", "fischerrandom", "fischerrandomchess", "freestyle":
		// Its castling puts king and rook on squares standard chess does
		// not, even when the game starts from a FEN.
		return &Error{Game: p.g.Number, Line: p.variantLine, Err: ErrNotStandardChess,
			Reason: fmt.Sprintf("variant %s is not standard chess: Chess960 castling differs", quoteShort(variant))}
	}
	return &Error{Game: p.g.Number, Line: p.variantLine, Err: ErrNotStandardChess,
		Reason: fmt.Sprintf("variant %s is not standard chess", quoteShort(variant))}
}

// Parse reads one game's text as cut by a Splitter. It returns the game, or
// an *Error when the game is malformed or of another variant than standard
// chess (wrapping ErrNotStandardChess) and must be skipped. When the game
// is sound but text follows its result, it returns the game together with
// an *Error describing that text.
func Parse(text []byte, number, line int) (*Game, error) {
	p := parser{s: string(text), line: line, g: &Game{Number: number, Line: line}}
	if err := p.tags(); err != nil {
		return nil, err
	}
	// Before the moves: another variant's moves (Crazyhouse drops) would
	// only be reported as malformed.
	if err := p.checkVariant(); err != nil {
		return nil, err
	}
	// About one SAN move per 7 bytes of movetext in typical files: sizing
	// the slices once saves their regrowth on every game.
	guess := (len(p.s) - p.pos) / 7
	p.g.Moves = make([]string, 0, guess)
	p.g.MoveLines = make([]int32, 0, guess)
	warn, err := p.movetext()
	if err != nil {
		return nil, err
	}
	// One comment entry a move, whichever way the movetext ended (text
	// after the result included).
	if c := p.g.Comments; c != nil {
		for len(c) < len(p.g.Moves) {
			c = append(c, "")
		}
		p.g.Comments = c
	}
	if warn != nil {
		return p.g, warn
	}
	return p.g, nil
}

type parser struct {
	s    string
	pos  int
	line int
	// lastLine is the line of the last tag or token read; a missing result
	// is reported there rather than after trailing blank lines.
	lastLine int
	// variantLine is the line of the Variant tag, 0 without one.
	variantLine int
	g           *Game
}

func (p *parser) fail(line int, format string, args ...any) *Error {
	return &Error{Game: p.g.Number, Line: line, Reason: fmt.Sprintf(format, args...)}
}

// tags reads the tag section: the lines that start with '['. Movetext may
// follow the last tag on its line (PGN's import format allows it).
func (p *parser) tags() *Error {
	for p.pos < len(p.s) {
		end := strings.IndexByte(p.s[p.pos:], '\n')
		if end < 0 {
			end = len(p.s)
		} else {
			end += p.pos
		}
		line := strings.TrimLeft(p.s[p.pos:end], " \t")
		lineStart := end - len(line)
		line = strings.TrimRight(line, " \t\r")
		switch {
		case line == "" || line[0] == '%':
		case line[0] == '[':
			movetext, err := p.tagLine(line)
			if err != nil {
				return err
			}
			p.lastLine = p.line
			if movetext < len(line) {
				p.pos = lineStart + movetext
				return nil
			}
		default:
			return nil // movetext starts here
		}
		p.pos = end + 1
		p.line++
	}
	p.pos = len(p.s)
	return nil
}

// tagLine parses one or more `[Name "value"]` pairs on a line and returns
// where movetext after them starts (len(line) when none does).
func (p *parser) tagLine(line string) (int, *Error) {
	orig := line
	for line != "" {
		if line[0] != '[' {
			return len(orig) - len(line), nil
		}
		i := 1
		for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
			i++
		}
		nameStart := i
		for i < len(line) && isNameChar(line[i]) {
			i++
		}
		name := line[nameStart:i]
		for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
			i++
		}
		if name == "" || i >= len(line) || line[i] != '"' {
			return 0, p.fail(p.line, "bad tag line %s", quoteShort(orig))
		}
		i++
		value, n, ok := unescape(line[i:])
		if !ok {
			return 0, p.fail(p.line, "unterminated tag value in %s", quoteShort(orig))
		}
		i += n
		for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
			i++
		}
		if i >= len(line) || line[i] != ']' {
			return 0, p.fail(p.line, "bad tag line %s", quoteShort(orig))
		}
		p.g.Tags = append(p.g.Tags, Tag{Name: name, Value: value})
		if name == "Variant" && p.variantLine == 0 {
			p.variantLine = p.line
		}
		line = strings.TrimLeft(line[i+1:], " \t")
	}
	return len(orig), nil
}

func isNameChar(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '+' || c == '#' || c == '=' || c == ':' || c == '-'
}

// unescape reads a tag value up to its closing quote, resolving \" and \\;
// it returns the value and the bytes consumed including the quote.
func unescape(s string) (string, int, bool) {
	i := 0
	for i < len(s) && s[i] != '"' && s[i] != '\\' {
		i++
	}
	if i < len(s) && s[i] == '"' {
		return s[:i], i + 1, true // the common case: no escapes, no copy
	}
	var b strings.Builder
	b.WriteString(s[:i])
	for i < len(s) {
		c := s[i]
		switch {
		case c == '"':
			return b.String(), i + 1, true
		case c == '\\' && i+1 < len(s) && (s[i+1] == '"' || s[i+1] == '\\'):
			b.WriteByte(s[i+1])
			i += 2
		default:
			b.WriteByte(c)
			i++
		}
	}
	return "", 0, false
}

// movetext reads moves up to the result. It returns a warning when text
// follows the result, and an error when the game is malformed.
func (p *parser) movetext() (warn, err *Error) {
	s := p.s
	depth, varLine := 0, 0
	resultSeen := false
	lineStart := true
	for p.pos < len(s) {
		c := s[p.pos]
		switch c {
		case '\n':
			p.line++
			p.pos++
			lineStart = true
			continue
		case ' ', '\t', '\r', '\f', '\v':
			p.pos++
			continue
		}
		atLineStart := lineStart
		lineStart = false
		p.lastLine = p.line
		if c == '%' && atLineStart {
			p.skipToEOL()
			continue
		}
		switch c {
		case '{':
			start := p.line
			end := strings.IndexByte(s[p.pos:], '}')
			if end < 0 {
				e := p.fail(start, "unterminated comment")
				if resultSeen {
					return e, nil
				}
				return nil, e
			}
			if depth == 0 && !resultSeen && len(p.g.Moves) > 0 {
				p.addComment(s[p.pos+1 : p.pos+end])
			}
			p.line += strings.Count(s[p.pos:p.pos+end], "\n")
			p.pos += end + 1
			continue
		case ';':
			p.skipToEOL()
			continue
		}
		if resultSeen {
			tok := s[p.pos:p.tokenEnd(p.pos)]
			if tok == "" {
				tok = s[p.pos : p.pos+1]
			}
			return p.fail(p.line, "text after the game result: %s", quoteShort(tok)), nil
		}
		switch {
		case c == '(':
			if depth == 0 {
				varLine = p.line
			}
			depth++
			p.pos++
		case c == ')':
			if depth == 0 {
				return nil, p.fail(p.line, "unmatched ')'")
			}
			depth--
			p.pos++
		case c == '$':
			p.pos++
			n := p.pos
			for p.pos < len(s) && s[p.pos] >= '0' && s[p.pos] <= '9' {
				p.pos++
			}
			if p.pos == n {
				return nil, p.fail(p.line, "bad NAG: '$' without a number")
			}
		case c == '!' || c == '?' || c == '.':
			p.pos++ // a detached annotation glyph or the dots of "12. ..."
		case c == '*':
			p.pos++
			if depth == 0 {
				p.g.Result, resultSeen = ResultUnknown, true
			}
		case c >= '0' && c <= '9':
			n := p.pos
			for p.pos < len(s) && s[p.pos] >= '0' && s[p.pos] <= '9' {
				p.pos++
			}
			if p.pos < len(s) && s[p.pos] == '.' {
				for p.pos < len(s) && s[p.pos] == '.' {
					p.pos++
				}
				continue // a move number
			}
			p.pos = p.tokenEnd(n)
			tok := s[n:p.pos]
			switch strings.TrimRight(tok, "+#!?") {
			case "1-0", "0-1", "1/2-1/2":
				if depth == 0 {
					p.g.Result, resultSeen = ParseResult(tok), true
				}
			case "0-0", "0-0-0":
				if depth == 0 {
					p.addMove(tok)
				}
			default:
				if depth == 0 {
					return nil, p.fail(p.line, "unexpected token %s", quoteShort(tok))
				}
			}
		case isSANStart(c):
			n := p.pos
			p.pos = p.tokenEnd(n)
			if depth == 0 {
				p.addMove(s[n:p.pos])
			}
		default:
			if depth == 0 {
				return nil, p.fail(p.line, "unexpected character %q in movetext", rune(c))
			}
			p.pos++
		}
	}
	if depth > 0 {
		return nil, p.fail(varLine, "unterminated variation")
	}
	if !resultSeen {
		return nil, p.fail(max(p.lastLine, p.g.Line), "no game result (truncated game?)")
	}
	return nil, nil
}

// addComment keeps a comment's text for the last move of the main line.
// The slice is made at the first comment, so games without comments
// (most files) pay nothing.
func (p *parser) addComment(text string) {
	text = strings.TrimSpace(text)
	if text == "" {
		return
	}
	g := p.g
	if g.Comments == nil {
		g.Comments = make([]string, 0, cap(g.Moves))
	}
	for len(g.Comments) < len(g.Moves) {
		g.Comments = append(g.Comments, "")
	}
	i := len(g.Moves) - 1
	if g.Comments[i] == "" {
		g.Comments[i] = text
	} else {
		g.Comments[i] += " " + text
	}
}

func (p *parser) addMove(san string) {
	p.g.Moves = append(p.g.Moves, san)
	p.g.MoveLines = append(p.g.MoveLines, int32(p.line))
}

func (p *parser) skipToEOL() {
	if i := strings.IndexByte(p.s[p.pos:], '\n'); i >= 0 {
		p.pos += i
	} else {
		p.pos = len(p.s)
	}
}

// tokenEnd returns the end of the token starting at i: it runs until
// whitespace or a character with its own meaning in movetext.
func (p *parser) tokenEnd(i int) int {
	s := p.s
	for i < len(s) {
		switch s[i] {
		case ' ', '\t', '\r', '\n', '\f', '\v', '{', '}', '(', ')', ';', '$', '[', ']':
			return i
		}
		i++
	}
	return i
}

// isSANStart says whether c can begin a SAN move (or a null move "--"/"Z0",
// which the board then rejects).
func isSANStart(c byte) bool {
	return c >= 'a' && c <= 'h' || strings.IndexByte("NBRQKOPZ-", c) >= 0
}

func quoteShort(s string) string {
	if len(s) > 40 {
		s = s[:40] + "..."
	}
	return strconv.Quote(s)
}
