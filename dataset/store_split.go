package dataset

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
)

// splitScratchPrefix names WriteSplit's scratch folder inside the dataset
// and, with lockSuffix, the lock file beside it.
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
	// The game spill is scratch space beside the manifest; records are only
	// read. A split killed earlier left its scratch: it goes now, while a
	// running split's is locked and stays.
	if _, err := removeStaleScratch(dir, splitScratchPrefix); err != nil {
		return nil, fmt.Errorf("dataset %s: %w", dir, err)
	}
	scratch, unlock, err := makeLockedTempDir(dir, splitScratchPrefix)
	if err != nil {
		return nil, fmt.Errorf("dataset %s: %w", dir, err)
	}
	defer func() {
		os.RemoveAll(scratch)
		unlock()
	}()
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
	// The train games with the lowest draws stand by for an empty split.
	var spare []uint64
	if _, err := games.countDistinct(func(game uint64) {
		sp := splitOf(game, split)
		split.Games.add(sp, 1)
		if sp == Train {
			spare = lowestDraws(spare, game, split.Seed)
		}
	}); err != nil {
		return nil, fmt.Errorf("dataset %s: counting games: %w", dir, err)
	}
	if placeEmptySplits(split, spare) {
		// Few games, few records: count them again under the placements.
		split.Records = SplitCounts{}
		if err := d.Scan(ctx, AllSplits, func(r *Record) error {
			split.Records.add(splitOf(r.GameID, split), 1)
			return nil
		}); err != nil {
			return nil, err
		}
		m.FormatVersion = max(m.FormatVersion, 2)
	}
	if err := writeManifest(dir, &m); err != nil {
		return nil, err
	}
	d.manifest = &m
	return &m, nil
}

// lowestDraws keeps the two games of the lowest draws, lowest first.
func lowestDraws(kept []uint64, game, seed uint64) []uint64 {
	kept = append(kept, game)
	sort.Slice(kept, func(i, j int) bool { return drawOf(kept[i], seed) < drawOf(kept[j], seed) })
	return kept[:min(len(kept), 2)]
}

// placeEmptySplits moves a spare train game into each requested split the
// draw left without one, test first, as long as train keeps a game, and
// says whether it moved any. A draw of a few games can leave the test
// split empty (the README tour did, on the day its PGN date drew so);
// evaluation on it would then have nothing to read.
func placeEmptySplits(s *SplitInfo, spare []uint64) bool {
	for _, want := range []struct {
		split Split
		frac  float64
	}{{Test, s.Test}, {Val, s.Val}} {
		if want.frac == 0 || s.Games.Of(want.split) > 0 || len(spare) == 0 || s.Games.Train < 2 {
			continue
		}
		s.Placed = append(s.Placed, PlacedGame{Game: spare[0], Split: want.split})
		spare = spare[1:]
		s.Games.Train--
		s.Games.add(want.split, 1)
	}
	return len(s.Placed) > 0
}
