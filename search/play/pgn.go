package play

import (
	"bytes"
	"errors"
	"io"
	"os"

	"github.com/dchess/dchess/search/match"
)

// WritePGN writes the game as match.WritePGN does (which keeps control
// characters out of the tags), with "dchess play" as its Event.
func (r Result) WritePGN(w io.Writer) error {
	return match.WritePGN(w, match.GameResult{Number: 1, Opening: match.Opening{FEN: r.FEN},
		White: r.White, Black: r.Black, Result: r.Outcome, Termination: r.Termination,
		Reason: r.Reason, Moves: r.Moves, Start: r.Started}, "dchess play", "-")
}

// AppendPGN adds the game to the end of the PGN file at path, creating it
// when missing. The game goes in one write, a blank line after the game
// before it even when that one lacks its final newline, so a reader of the
// file never sees two games run together. When the write fails (a full
// disk) the file is cut back to its old length rather than left with half
// a game.
func AppendPGN(path string, r Result) error {
	var game bytes.Buffer
	if err := r.WritePGN(&game); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	st, err := f.Stat()
	if err != nil {
		return errors.Join(err, f.Close())
	}
	// A pipe or a terminal (a path such as /dev/stdout) has no end to look
	// at, cut back or sync.
	regular, size := st.Mode().IsRegular(), st.Size()
	var tail []byte
	if regular {
		tail = make([]byte, min(size, 4))
		if _, err := f.ReadAt(tail, size-int64(len(tail))); err != nil {
			return errors.Join(err, f.Close())
		}
	}
	data := append([]byte(separator(tail)), game.Bytes()...)
	if n, err := f.Write(data); err != nil {
		// Cut back only when the end of the file is this write's, not another
		// writer's game appended meanwhile.
		if st, statErr := f.Stat(); statErr == nil && regular && n > 0 && st.Size() == size+int64(n) {
			err = errors.Join(err, f.Truncate(size))
		}
		return errors.Join(err, f.Close())
	}
	if regular {
		if err := f.Sync(); err != nil {
			return errors.Join(err, f.Close())
		}
	}
	return f.Close()
}

// separator is what goes between a file ending in tail and a game appended
// to it: nothing in an empty file, else the line ends that make a blank line
// after the file's last text.
func separator(tail []byte) string {
	if len(tail) == 0 {
		return ""
	}
	lineEnds := 0
	for i := len(tail) - 1; i >= 0 && lineEnds < 2; i-- {
		switch tail[i] {
		case '\n':
			lineEnds++
		case '\r':
		default:
			return "\n\n"[lineEnds:]
		}
	}
	return "\n\n"[lineEnds:]
}
