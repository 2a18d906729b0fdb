package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/dchess/dchess/dataset"
	"github.com/dchess/dchess/models/deepchess"
	"github.com/dchess/dchess/pipeline"
	"github.com/dchess/dchess/search/player"
)

// pairReport is `eval --data` for a DeepChess comparator: how often it
// names the better position of a pair, one from a game White won and one
// from a game Black won (docs/training.md, Pairs).
type pairReport struct {
	Player   string  `json:"player"`
	Dataset  string  `json:"dataset"`
	Split    string  `json:"split"`
	Pairs    int     `json:"pairs"`
	Correct  int     `json:"correct"`
	Accuracy float64 `json:"pair_accuracy"`
}

// evalPairs scores a siamese player's comparator on the dataset's test
// split with the pairs training validates on, so the figure reads like the
// validation accuracy a run reports.
func evalPairs(ctx context.Context, opts *evalOptions, spec player.Spec, ds *dataset.Dataset, split dataset.Split,
	splitName string, s *IOStreams) error {
	cmp, err := deepchess.Load(spec.Path)
	if err != nil {
		return err
	}
	cfg, err := pairConfig(spec.Path)
	if err != nil {
		return err
	}
	rep := pairReport{Player: spec.Raw, Dataset: opts.Data, Split: splitName}
	if spec.Name != "" {
		rep.Player = spec.Name
	}
	tally := newScanTally(s, -1, "pairs", opts.Limit)
	err = tally.done(pipeline.ComparisonPairs(ctx, ds, split, cfg, func(first, second *deepchess.Packed, whiteFirst bool) error {
		if (cmp.ComparePacked(first, second) > 0.5) == whiteFirst {
			rep.Correct++
		}
		rep.Pairs++
		return tally.tick()
	}))
	if err != nil {
		return err
	}
	if rep.Pairs == 0 {
		return fmt.Errorf("--data %s: no pair in the %s split (it needs positions from ply 10 on of games each side won)", opts.Data, splitName)
	}
	rep.Accuracy = ratio(rep.Correct, rep.Pairs)
	if opts.JSON {
		return writeJSON(s.Out, rep)
	}
	fmt.Fprintf(s.Out, "%s: pair accuracy %.1f%% (%d of %d %s pairs: one position from a game White won, one from a game Black won)\n",
		rep.Player, 100*rep.Accuracy, rep.Correct, rep.Pairs, splitName)
	return nil
}

// pairConfig is the config whose data filters, shuffle buffer and seed
// draw the pairs: the training run's, when the weights sit in its run
// folder beside config.yaml, else the siamese defaults (ply 10 on, no
// captures, seed 1).
func pairConfig(weights string) (*pipeline.Config, error) {
	path := filepath.Join(filepath.Dir(weights), "config.yaml")
	if _, err := os.Stat(path); err != nil {
		return pipeline.DefaultConfig(deepchess.SiameseFamily)
	}
	return pipeline.LoadConfig(path, deepchess.SiameseFamily)
}
