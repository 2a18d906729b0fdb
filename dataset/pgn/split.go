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
type Splitter struct {
	r        *bufio.Reader
	line     int // lines consumed so far
	number   int
	pending  []byte // a line read ahead that starts the next game
	pendLine int
	err      error
	long     []byte // holds a line longer than the bufio buffer
	first    bool
}

// NewSplitter returns a Splitter reading from r.
func NewSplitter(r io.Reader) *Splitter {
	return &Splitter{r: bufio.NewReaderSize(r, 1<<20), first: true}
}

// readLine returns the next line including its newline; the slice is valid
// until the next call.
func (s *Splitter) readLine() ([]byte, error) {
	line, err := s.r.ReadSlice('\n')
	if err != bufio.ErrBufferFull {
		if s.first {
			s.first = false
			line = bytes.TrimPrefix(line, []byte("\xef\xbb\xbf"))
		}
		return line, err
	}
	s.first = false
	s.long = append(s.long[:0], line...)
	for err == bufio.ErrBufferFull {
		line, err = s.r.ReadSlice('\n')
		if len(s.long) < 2*MaxGameBytes {
			s.long = append(s.long, line...)
		}
	}
	return s.long, err
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
			var err error
			line, err = s.readLine()
			if err != nil {
				if err != io.EOF {
					s.err = err
					if len(line) == 0 {
						break
					}
				} else {
					s.err = io.EOF
					if len(line) == 0 {
						break
					}
				}
			}
			s.line++
			lineNo = s.line
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
