package dataset

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
)

// splitScratchPrefix names WriteSplit's scratch folder inside the dataset.
const splitScratchPrefix = ".split-"

// WriteSplit divides the dataset at dir by game into train, val and test
// (fractions val and test of the games, the rest train) and records the
// split with its counts in the manifest, replacing the manifest atomically.
// Records are not moved: readers assign them with SplitOf.
func WriteSplit(dir string, val, test float64, seed uint64) (*Manifest, error) {
	return WriteSplitContext(context.Background(), dir, val, test, seed)
}

// WriteSplitContext is WriteSplit with a context that can cancel the count.
func WriteSplitContext(ctx context.Context, dir string, val, test float64, seed uint64) (*Manifest, error) {
	if !(val >= 0 && val <= 1) || !(test >= 0 && test <= 1) || val+test > 1 || math.IsNaN(val+test) {
		return nil, fmt.Errorf("split fractions val %v and test %v must be in [0,1] with val+test <= 1", val, test)
	}
	d, err := Open(dir)
	if err != nil {
		return nil, err
	}
	m := *d.manifest
	split := &SplitInfo{Seed: seed, Val: val, Test: test}
	m.Split = split
	// The game spill is scratch space beside the manifest; records are only read.
	scratch, err := os.MkdirTemp(dir, splitScratchPrefix)
	if err != nil {
		return nil, fmt.Errorf("dataset %s: %w", dir, err)
	}
	defer os.RemoveAll(scratch)
	games, err := newKeySpill(filepath.Join(scratch, "games"), gamePartitions, 4<<10)
	if err != nil {
		return nil, fmt.Errorf("dataset %s: %w", dir, err)
	}
	defer games.close()
	var last uint64
	first := true
	err = d.Scan(ctx, AllSplits, func(r *Record) error {
		split.Records.add(splitOf(r.GameID, split), 1)
		if first || r.GameID != last {
			first, last = false, r.GameID
			return games.add(r.GameID, 0)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if _, err := games.countDistinct(func(game uint64) { split.Games.add(splitOf(game, split), 1) }); err != nil {
		return nil, fmt.Errorf("dataset %s: counting games: %w", dir, err)
	}
	if err := writeManifest(dir, &m); err != nil {
		return nil, err
	}
	d.manifest = &m
	return &m, nil
}
