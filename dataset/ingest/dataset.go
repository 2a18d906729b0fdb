package ingest

import (
	"context"
	"io"

	"github.com/dchess/dchess/dataset"
)

// Destination is the dataset an ingest writes and what its manifest
// records beside the settings.
type Destination struct {
	Out string
	// Replace replaces an existing dataset at Out (--force).
	Replace bool
	// Command is the command line the manifest records.
	Command []string
	// Sources are the inputs' hashes when the caller has them already
	// (dchess ingest hashes them first to size its progress bar); nil
	// hashes them here.
	Sources []dataset.Source
}

// Settings is what the manifest records of opts: enough to redo the run.
// The newer filters are recorded only when used, so the settings of a run
// without them read as they always did.
func (o Options) Settings() map[string]any {
	settings := map[string]any{
		"format": string(o.Format), "score_view": string(o.ScoreView), "horizon": o.Horizon,
		"min_ply": o.MinPly, "max_ply": o.MaxPly, "positions_per_game": o.PositionsPerGame,
		"skip_captures": o.SkipCaptures, "min_elo": o.MinElo, "max_games": o.MaxGames, "seed": o.Seed,
	}
	for name, v := range map[string]any{"max_elo": o.MaxElo, "time_control": o.TimeControl, "termination": o.Termination} {
		if v != 0 && v != "" {
			settings[name] = v
		}
	}
	return settings
}

// ToDataset ingests inputs (and stdin for "-") into a new dataset at
// dst.Out, deduplicated: the one way games and scored positions become a
// dataset, so dchess ingest and pipeline run write the same manifest. The
// summary's Duplicates counts the repeats dropped before the writer and by
// it; on failure nothing is left at dst.Out.
func ToDataset(ctx context.Context, inputs []string, stdin io.Reader, opts Options, dst Destination) (*Summary, dataset.WriteStats, error) {
	sources := dst.Sources
	if sources == nil {
		var err error
		if sources, err = HashSources(inputs); err != nil {
			return nil, dataset.WriteStats{}, err
		}
	}
	opts.Dedupe = true
	w, err := dataset.Create(dst.Out, dataset.WriteOptions{
		Command: dst.Command, Sources: sources, Dedupe: true, Replace: dst.Replace, Settings: opts.Settings(),
	})
	if err != nil {
		return nil, dataset.WriteStats{}, err
	}
	sum, err := Run(ctx, inputs, stdin, opts, w)
	if err != nil {
		w.Abort()
		return sum, dataset.WriteStats{}, err
	}
	if err := w.Close(); err != nil {
		return sum, dataset.WriteStats{}, err
	}
	st := w.Stats()
	sum.Duplicates += st.Duplicates
	return sum, st, nil
}
