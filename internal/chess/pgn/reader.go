package pgn

import (
	"io"
)

// Reader reads games one after another; Next never reads a whole file.
type Reader struct {
	split *Splitter
	buf   []byte
}

// NewReader returns a Reader over r.
func NewReader(r io.Reader) *Reader {
	return &Reader{split: NewSplitter(r)}
}

// Next returns the next game. At the end of the stream it returns io.EOF.
// A malformed game, or one of another variant than standard chess (its
// *Error wraps ErrNotStandardChess), gives a nil game and an *Error; the
// next call goes on with the following game. A sound game followed by stray text gives the
// game and an *Error. Any other error comes from the underlying reader.
func (r *Reader) Next() (*Game, error) {
	var raw RawGame
	var err error
	r.buf, raw, err = r.split.Next(r.buf[:0])
	if err != nil {
		return nil, err
	}
	if raw.TooLong {
		return nil, &Error{Game: raw.Number, Line: raw.Line, Reason: ErrTooLong.Error()}
	}
	return Parse(r.buf[raw.Start:raw.End], raw.Number, raw.Line)
}
