package match

import (
	"context"
	"errors"
	"fmt"

	"github.com/dchess/dchess/internal/safefile"
)

// PlayOptions are a whole match as dchess match plays it.
type PlayOptions struct {
	// Config is the match; its PGN is unused.
	Config Config
	// Run is the match as it was asked for (Settings.ShardRun); with PGN,
	// the settings it makes (ShardSettings) key the journal.
	Run ShardRun
	// PGN, when set, is the file the games go to through a journal beside
	// it (RunResumable); an existing file is replaced only with Restart.
	// Without it no game is kept, and a stopped match starts over.
	PGN string
	// Restart replaces the PGN file and discards the journal of an
	// interrupted run, whatever its settings (the CLI's --force).
	Restart bool
	// OnStart, when not nil, is told the match's games and how many of
	// them a journal holds, before the first game.
	OnStart func(games, resumed int)
}

// Play plays a whole match: into PGN through its journal when PGN is
// set, else with Run. A match that stopped returns the report of its games
// so far with the error, which for a match stopped by ctx says how many
// games it played and, with PGN, how to continue it.
func Play(ctx context.Context, opts PlayOptions) (*Report, error) {
	cfg := opts.Config
	if opts.PGN == "" {
		if opts.OnStart != nil {
			opts.OnStart(cfg.Games, 0)
		}
		rep, err := Run(ctx, cfg)
		if errors.Is(err, context.Canceled) && rep != nil {
			err = fmt.Errorf("match interrupted after %d games", rep.Games)
		}
		return rep, err
	}
	// Before any game: the file may hold someone's games.
	if err := safefile.CheckOutputFile(opts.PGN, opts.Restart); err != nil {
		return nil, err
	}
	settings, _, err := ShardSettings(ctx, opts.Run, cfg, 1)
	if err != nil {
		return nil, err
	}
	started := false
	res, err := RunResumable(ctx, ResumableOptions{Config: cfg, Settings: settings, PGN: opts.PGN, Restart: opts.Restart,
		OnStart: func(games, resumed int) {
			started = true
			if opts.OnStart != nil {
				opts.OnStart(games, resumed)
			}
		}})
	switch {
	case err != nil && !started:
		// It stopped before the first game: at the journal beside the file.
		return nil, fmt.Errorf("--pgn: %w", err)
	case errors.Is(err, context.Canceled) && res.Report != nil:
		err = fmt.Errorf("match interrupted after %d games, kept in %s; %s was not written: run the same command again to continue",
			res.Report.Games, JournalBeside(opts.PGN), opts.PGN)
	}
	return res.Report, err
}
