package tournament

import (
	"context"
	"errors"
	"fmt"

	"github.com/dchess/dchess/internal/safefile"
)

// PlayTo plays the tournament as dchess tournament does: keeping its games
// nowhere when pgn is "", else writing them to the file pgn (PlayToFile),
// which must not exist unless replace. When the tournament is stopped and
// its Config.Journal keeps the finished games, the error says where and
// how to continue.
func (t *Tournament) PlayTo(ctx context.Context, pgn string, replace bool) (*Standings, error) {
	if pgn == "" {
		return t.Play(ctx, nil)
	}
	if err := safefile.CheckOutputFile(pgn, replace); err != nil {
		return nil, err
	}
	st, err := t.PlayToFile(ctx, pgn)
	if errors.Is(err, ErrInterrupted) && t.cfg.Journal != "" {
		err = fmt.Errorf("%w; the finished games are kept in %s and %s was not written: run the same command again to continue",
			err, t.cfg.Journal, pgn)
	}
	return st, err
}

// IsAnchorError says whether err is about the anchors given
// (*UnknownAnchorError, *DuplicateAnchorError), not the tournament.
func IsAnchorError(err error) bool {
	unknown, duplicate := (*UnknownAnchorError)(nil), (*DuplicateAnchorError)(nil)
	return errors.As(err, &unknown) || errors.As(err, &duplicate)
}
