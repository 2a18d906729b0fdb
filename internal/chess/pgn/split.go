// Package pgn reads chess games in Portable Game Notation from a stream.
//
// Reading has two stages so that callers can parse on several cores: a
// Splitter cuts the byte stream into the raw text of one game at a time
// (cheap, sequential), and Parse turns one game's text into tags, SAN moves
// and a result (the costly part, safe to run in parallel). Reader combines
// both for sequential use.
//
// Malformed games never stop the stream: Parse reports an *Error naming
// the game number, line and reason, and the Splitter starts the next game
// at the next tag section (always at an [Event tag).
package pgn

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// MaxGameBytes bounds the text of one game; a longer one (usually a file
// that is not PGN at all) is cut, reported as an error and skipped, so
// memory stays flat whatever the input.
const MaxGameBytes = 1 << 20

// RawGame locates one game's text in the buffer the Splitter appended it to.
type RawGame struct {
	// Number counts games from 1 in the stream.
	Number int
	// Line is the line the game's text starts on (1-based).
	Line int
	// Start and End delimit the text in the caller's buffer.
	Start, End int
	// TooLong says the game exceeded MaxGameBytes; only its beginning was kept.
	TooLong bool
}

// Splitter cuts a PGN stream into games without parsing them.
//
// It reads segments rather than lines: a line is cut before each tag pair
// and after the last tag before movetext, so games that follow each other
// on one line (PGN's import format allows any whitespace between tokens)
// are cut apart like games on lines of their own. A line longer than the
// read buffer arrives in pieces; the pieces after the first continue it.
type Splitter struct {
	r        *bufio.Reader
	line     int // lines consumed so far
	number   int
	pending  []byte // a segment read ahead that starts the next game
	pendLine int
	err      error
	first    bool

	rest    []byte // the unread part of the last chunk read
	restErr error  // the read error that came with it
	broken  bool   // the last segment ended inside a line, at the end of a chunk
	midLine bool   // the last segment did not end its line
	// Where the segmenter stands in the PGN syntax.
	inBrace, inSemi, inTag, inString bool
}

// NewSplitter returns a Splitter reading from r.
func NewSplitter(r io.Reader) *Splitter {
	return &Splitter{r: bufio.NewReaderSize(r, 1<<20), first: true}
}

// readSegment returns the next segment, at most a line including its
// newline, and whether it continues a line cut at the end of a chunk; the
// slice is valid until the next call. It returns an error only with no
// bytes left.
func (s *Splitter) readSegment() (seg []byte, continues bool, err error) {
	if len(s.rest) == 0 {
		if s.restErr != nil {
			return nil, false, s.restErr
		}
		chunk, err := s.r.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			err = nil
		}
		if s.first {
			s.first = false
			chunk = bytes.TrimPrefix(chunk, []byte("\xef\xbb\xbf"))
		}
		s.rest, s.restErr = chunk, err
		if len(chunk) == 0 {
			if err == nil {
				err = io.ErrNoProgress
			}
			return nil, false, err
		}
	}
	n := s.cut(s.rest)
	seg, s.rest = s.rest[:n], s.rest[n:]
	continues = s.broken
	s.midLine = seg[n-1] != '\n'
	s.broken = len(s.rest) == 0 && s.midLine
	return seg, continues, nil
}

// plainTagLine says whether b is a whole line holding one tag pair and
// nothing else, the common case, which leaves the state as it was.
func (s *Splitter) plainTagLine(b []byte) bool {
	if s.midLine || s.inBrace || s.inSemi || s.inTag || s.inString || len(b) == 0 || b[0] != '[' || b[len(b)-1] != '\n' {
		return false
	}
	end := bytes.TrimRight(b, " \t\r\n")
	return end[len(end)-1] == ']' && bytes.IndexByte(b[1:], '[') < 0 && bytes.Count(end, []byte{'"'}) == 2
}

// cut returns the length of the next segment at the start of b, a chunk
// that ends at a newline or where the read buffer filled: up to a tag pair
// that follows other text, up to the end of a tag pair that text follows,
// or all of b.
func (s *Splitter) cut(b []byte) int {
	if s.plainTagLine(b) {
		return len(b)
	}
	// Jump from one byte that can change the state to the next.
	i := 0
	for i < len(b) {
		switch {
		case s.inSemi:
			j := bytes.IndexByte(b[i:], '\n')
			if j < 0 {
				return len(b)
			}
			s.inSemi, i = false, i+j+1
		case s.inBrace:
			j := bytes.IndexByte(b[i:], '}')
			if j < 0 {
				return len(b)
			}
			s.inBrace, i = false, i+j+1
		case s.inString:
			j := bytes.IndexAny(b[i:], "\"\\")
			if j < 0 {
				return len(b)
			}
			i += j
			if b[i] == '\\' {
				i += 2 // an escaped character
				continue
			}
			s.inString, i = false, i+1
		case s.inTag:
			j := bytes.IndexAny(b[i:], "\"]")
			if j < 0 {
				return len(b)
			}
			i += j
			if b[i] == '"' {
				s.inString, i = true, i+1
				continue
			}
			s.inTag, i = false, i+1
			if !isBlank(b[i:]) {
				return i
			}
		default:
			if i == 0 && !s.midLine && b[0] == '%' {
				s.inSemi = true
				continue
			}
			j := bytes.IndexAny(b[i:], "[{;")
			if j < 0 {
				return len(b)
			}
			i += j
			switch b[i] {
			case '[':
				if !isBlank(b[:i]) {
					return i
				}
				s.inTag = true
			case '{':
				s.inBrace = true
			case ';':
				s.inSemi = true
			}
			i++
		}
	}
	return len(b)
}

// Next appends the next game's text to buf and returns the extended buffer
// with the game's location in it. At the end of the stream it returns
// io.EOF; other errors come from the underlying reader.
func (s *Splitter) Next(buf []byte) ([]byte, RawGame, error) {
	g := RawGame{Start: len(buf)}
	hasMovetext, inComment, started := false, false, false
	for {
		var line []byte
		var lineNo int
		if s.pending != nil {
			line, lineNo = s.pending, s.pendLine
			s.pending = nil
		} else {
			if s.err != nil {
				break
			}
			var continues bool
			var err error
			line, continues, err = s.readSegment()
			if err != nil {
				s.err = err
				break
			}
			lineNo = s.line + 1
			if line[len(line)-1] == '\n' {
				s.line++
			}
			if continues {
				// The rest of a line too long for the buffer: it belongs
				// to whatever its beginning did.
				if started {
					if hasMovetext {
						inComment = commentStateAfter(line, inComment)
					}
					if len(buf)-g.Start+len(line) > MaxGameBytes {
						g.TooLong = true
						continue
					}
					buf = append(buf, line...)
				}
				continue
			}
		}
		trimmed := trimLeftSpace(line)
		if len(trimmed) > 0 && trimmed[0] == '[' && started {
			// A tag line after movetext starts the next game; an [Event tag
			// always does, so an unterminated comment cannot swallow the
			// rest of the file.
			if isEventTag(trimmed) || (hasMovetext && !inComment && isTagStart(trimmed)) {
				s.pending = append(s.pending[:0:0], line...)
				s.pendLine = lineNo
				break
			}
		}
		if !started {
			if len(trimmed) == 0 || isBlank(trimmed) || trimmed[0] == '%' {
				continue // blank and escape lines between games belong to no game
			}
			started = true
			g.Line = lineNo
		}
		if len(trimmed) > 0 && trimmed[0] != '[' && trimmed[0] != '%' && !isBlank(trimmed) {
			hasMovetext = true
			inComment = commentStateAfter(trimmed, inComment)
		} else if inComment {
			inComment = commentStateAfter(trimmed, inComment)
		}
		if len(buf)-g.Start+len(line) > MaxGameBytes {
			g.TooLong = true
			continue
		}
		buf = append(buf, line...)
	}
	if !started {
		if s.err == io.EOF || s.err == nil {
			return buf, g, io.EOF
		}
		return buf, g, s.err
	}
	s.number++
	g.Number = s.number
	g.End = len(buf)
	return buf, g, nil
}

// Err returns the first read error other than io.EOF.
func (s *Splitter) Err() error {
	if s.err == io.EOF {
		return nil
	}
	return s.err
}

func trimLeftSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t') {
		b = b[1:]
	}
	return b
}

func isBlank(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' && c != '\f' && c != '\v' {
			return false
		}
	}
	return true
}

func isEventTag(b []byte) bool {
	return len(b) > 7 && string(b[:6]) == "[Event" && (b[6] == ' ' || b[6] == '\t' || b[6] == '"')
}

// isTagStart says whether a line looks like a tag pair ("[Name ...").
func isTagStart(b []byte) bool {
	if len(b) < 2 {
		return false
	}
	c := b[1]
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z'
}

// commentStateAfter tracks whether a movetext line ends inside a {comment}.
func commentStateAfter(line []byte, inComment bool) bool {
	for len(line) > 0 {
		if inComment {
			i := bytes.IndexByte(line, '}')
			if i < 0 {
				return true
			}
			line, inComment = line[i+1:], false
			continue
		}
		i := bytes.IndexAny(line, "{;")
		if i < 0 || line[i] == ';' {
			return false
		}
		line, inComment = line[i+1:], true
	}
	return inComment
}

// ErrTooLong is the reason given for a game longer than MaxGameBytes.
var ErrTooLong = errors.New("game longer than 1 MiB; skipped")
