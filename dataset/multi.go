package dataset

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// OpenList opens one dataset, or several named in a comma-separated list
// ("chunk-1,chunk-2") as one: their shards in turn, their counts added.
// The parts must be split alike (the same val and test fractions and seed,
// or all unsplit), so every game keeps the split it has in its own part.
// Records are not deduplicated across parts.
func OpenList(list string) (*Dataset, error) {
	dirs := strings.Split(list, ",")
	if len(dirs) == 1 {
		return Open(list)
	}
	all := &Dataset{manifest: &Manifest{}}
	for i, dir := range dirs {
		if dir == "" {
			return nil, errors.New("dataset list: an empty name (two commas in a row?)")
		}
		d, err := Open(dir)
		if err != nil {
			return nil, err
		}
		m := d.Manifest()
		if i == 0 {
			first := *m
			first.Shards, first.Sources, first.Split = nil, nil, nil
			*all.manifest = first
			all.manifest.Counts = Counts{}
			if m.Split != nil {
				s := *m.Split
				s.Records, s.Games = SplitCounts{}, SplitCounts{}
				all.manifest.Split = &s
			}
		} else if err := sameSplit(all.manifest.Split, m.Split); err != nil {
			return nil, fmt.Errorf("dataset list: %s is split unlike %s: %w", dir, dirs[0], err)
		}
		c := &all.manifest.Counts
		c.Records += m.Counts.Records
		c.Games += m.Counts.Games
		c.Labelled += m.Counts.Labelled
		c.Failed += m.Counts.Failed
		c.Duplicates += m.Counts.Duplicates
		if s := all.manifest.Split; s != nil {
			for _, sp := range []Split{Train, Val, Test} {
				s.Records.add(sp, m.Split.Records.Of(sp))
				s.Games.add(sp, m.Split.Games.Of(sp))
			}
		}
		all.manifest.Sources = append(all.manifest.Sources, m.Sources...)
		for _, sh := range m.Shards {
			// The combined dataset has no folder of its own: each shard
			// names its file with its part's folder.
			sh.File = filepath.Join(dir, sh.File)
			all.manifest.Shards = append(all.manifest.Shards, sh)
		}
	}
	return all, nil
}

func sameSplit(a, b *SplitInfo) error {
	switch {
	case a == nil && b == nil:
		return nil
	case a == nil || b == nil:
		return errors.New("one is split and the other is not (run `dchess dataset split` on both alike)")
	case a.Seed != b.Seed || a.Val != b.Val || a.Test != b.Test:
		return fmt.Errorf("val %g test %g seed %d against val %g test %g seed %d", b.Val, b.Test, b.Seed, a.Val, a.Test, a.Seed)
	}
	return nil
}
