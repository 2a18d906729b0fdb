package match

import (
	"context"
	"errors"
	"fmt"

	"github.com/dchess/dchess/internal/jobarray"
	"github.com/dchess/dchess/internal/safefile"
)

// ResumableOptions describe a match whose games go to a PGN file, kept as
// a tournament's are: every counted game goes first to a journal beside
// the file (JournalBeside), the file is written from the journal, whole,
// when the match ends, and a run stopped or killed before then continues
// from the journal when it is run again with the same settings.
type ResumableOptions struct {
	// Config is the match; its PGN is unused.
	Config Config
	// Settings are what the games depend on (ShardSettings of the match
	// as one task); their hash keys the journal, so only a rerun with the
	// same settings continues it.
	Settings map[string]any
	// PGN is the file the games go to.
	PGN string
	// Restart discards the journal of an interrupted run, whatever its
	// settings, and plays every game again (the CLI's --force).
	Restart bool
	// OnStart, when not nil, is told the match's games and how many of
	// them the journal holds, before the first game.
	OnStart func(games, resumed int)
}

// ResumableResult is what a resumable match did.
type ResumableResult struct {
	// Report counts every game of the match so far, the journal's
	// included. It is nil when the journal or the PGN file could not be
	// written: the games would not be where the report says.
	Report *Report
	// Resumed is how many games came from an interrupted run's journal.
	Resumed int
	// Journal is the file the games are kept in until PGN is written.
	Journal string
}

// RunResumable plays the match into its journal and, when it ends (every
// game played or the SPRT decided), writes the games to the PGN file in
// game order and removes the journal; the file is then the one an
// uninterrupted Run with Config.PGN writes. When ctx ends or a game fails,
// the report of the games so far is returned with the error and the
// journal is kept for the rerun; the PGN file is not written.
func RunResumable(ctx context.Context, opts ResumableOptions) (ResumableResult, error) {
	cfg := opts.Config
	res := ResumableResult{Journal: JournalBeside(opts.PGN)}
	switch {
	case opts.PGN == "":
		return res, errors.New("match: a resumable match needs a PGN file")
	case cfg.Games <= 0:
		return res, fmt.Errorf("match: games must be positive, got %d", cfg.Games)
	}
	j, err := OpenJournal(res.Journal, jobarray.Hash(opts.Settings), opts.Restart)
	if errors.Is(err, ErrJournalSettings) {
		return res, fmt.Errorf("cannot continue: %w, from an interrupted match; rerun with its settings to continue, or delete it or use --force to start over", err)
	}
	if err != nil {
		return res, err
	}
	defer j.Close()
	numbers := make([]int, cfg.Games)
	for i := range numbers {
		numbers[i] = i + 1
	}
	res.Resumed = len(numbers) - len(j.Remaining(numbers))
	if opts.OnStart != nil {
		opts.OnStart(len(numbers), res.Resumed)
	}
	rep, err := playJournalled(ctx, cfg, j, numbers, nil)
	res.Report = rep
	if err != nil {
		return res, err
	}
	if e, found := otherPlayers(j, rep); found {
		res.Report = nil
		return res, fmt.Errorf("%s: game %d was played by %s and %s, this run's players are %s and %s; use --force to start over",
			j.Path(), e.Game.Number, e.A, e.B, rep.A, rep.B)
	}
	if err := writeJournalPGN(opts.PGN, j, numbers); err != nil {
		res.Report = nil
		return res, fmt.Errorf("%w; the games are kept in %s: run the same command again to write it", err, j.Path())
	}
	// The journal goes only once the file holds its games.
	if err := j.Remove(); err != nil {
		return res, fmt.Errorf("match: %w", err)
	}
	return res, nil
}

// writeJournalPGN writes the journalled games among numbers to path in
// game order, whole or not at all.
func writeJournalPGN(path string, j *Journal, numbers []int) error {
	f, err := safefile.Create(path)
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	defer f.Discard()
	for _, n := range numbers {
		if _, ok := j.Game(n); !ok {
			continue // not played: the SPRT stopped the match first
		}
		text, err := j.PGN(n)
		if err != nil {
			return err
		}
		if _, err := f.WriteString(text); err != nil {
			return fmt.Errorf("writing %s: %w", path, err)
		}
	}
	return f.Commit()
}
