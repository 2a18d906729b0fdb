package play

import (
	"errors"
	"io"
	"os"

	"github.com/dchess/dchess/search/match"
)

// WritePGN writes the game as match.WritePGN does, with "dchess play" as
// its Event.
func (r Result) WritePGN(w io.Writer) error {
	return match.WritePGN(w, match.GameResult{Number: 1, Opening: match.Opening{FEN: r.FEN},
		White: r.White, Black: r.Black, Result: r.Outcome, Termination: r.Termination,
		Reason: r.Reason, Moves: r.Moves, Start: r.Started}, "dchess play", "-")
}

// AppendPGN adds the game to the end of the PGN file at path, creating it
// when missing.
func AppendPGN(path string, r Result) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if err := r.WritePGN(f); err != nil {
		return errors.Join(err, f.Close())
	}
	return f.Close()
}
