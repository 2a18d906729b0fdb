package match

import (
	"fmt"
	"maps"
	"path/filepath"
	"sort"
	"strings"

	"github.com/dchess/dchess/internal/jobarray"
	"github.com/dchess/dchess/internal/safefile"
	"github.com/dchess/dchess/search/elo"
)

// seriesFree are the settings in which the matches of a series may
// differ: a continuation plays other openings (another seed), as many
// games as it likes, on as many tasks, and the test is the series' own.
var seriesFree = []string{"seed", "games", "tasks", "sprt"}

// MergeSeries reports several sharded matches of the same two players
// under the same conditions (a match continued with another --seed, say)
// as one match: every match is merged and checked as MergeShards does,
// then their games are counted in the order of bases, each pair staying a
// pair, so the pentanomial and an SPRT run over all of them as if one
// match had gone on. Matches that differ in anything but the seed, the
// game and task counts and the test are refused with the difference named,
// and so is a match with a seed an earlier one had (the same openings).
// sprt, when not nil, replaces the test the first match recorded.
func MergeSeries(bases []string, sprt *elo.SPRT) (*Report, []*MergedMatch, error) {
	parts := make([]*MergedMatch, len(bases))
	sets := make([][]ShardGame, len(bases))
	for i, base := range bases {
		mm, err := MergeShards(base, sprt)
		if err != nil {
			return nil, nil, err
		}
		if i > 0 {
			if diffs := seriesDifferences(parts[0].Shards[0], mm.Shards[0]); len(diffs) > 0 {
				return nil, nil, fmt.Errorf("%s cannot continue %s: %s", filepath.Base(base), filepath.Base(bases[0]), strings.Join(diffs, "; "))
			}
			for j, p := range parts[:i] {
				if seed := mm.Shards[0].Shard.Settings["seed"]; fmt.Sprint(seed) == fmt.Sprint(p.Shards[0].Shard.Settings["seed"]) {
					return nil, nil, fmt.Errorf("%s plays the openings of %s again (seed %v): a continuation needs another --seed",
						filepath.Base(base), filepath.Base(bases[j]), seed)
				}
			}
		}
		parts[i], sets[i] = mm, mm.games
	}
	first := parts[0].Shards[0]
	return replay(first.A, first.B, parts[0].test, inSeries(sets)), parts, nil
}

// SeriesTasks is how many tasks played the merged matches of a series.
func SeriesTasks(parts []*MergedMatch) int {
	tasks := 0
	for _, mm := range parts {
		tasks += len(mm.Shards)
	}
	return tasks
}

// MergePartialSeries is MergeSeries for matches still being played, each
// read as MergePartial reads it. A running task's journal names the
// players but not every setting, so the matches are checked by their
// players' names only; MergeSeries checks the rest once they are done.
func MergePartialSeries(bases []string, sprt *elo.SPRT) (*PartialMatch, error) {
	sum := &PartialMatch{}
	sets := make([][]ShardGame, len(bases))
	var test *elo.SPRT
	for i, base := range bases {
		pm, err := MergePartial(base, sprt)
		if err != nil {
			return nil, err
		}
		if i == 0 {
			sum.Report, test = pm.Report, pm.test
		} else if pm.Report.A != sum.Report.A || pm.Report.B != sum.Report.B {
			return nil, fmt.Errorf("%s is %s vs %s, %s is %s vs %s: not one series", filepath.Base(base), pm.Report.A, pm.Report.B,
				filepath.Base(bases[0]), sum.Report.A, sum.Report.B)
		}
		sum.Tasks += pm.Tasks
		sum.Finished += pm.Finished
		sum.Running += pm.Running
		sum.NotStarted += pm.NotStarted
		sum.Dropped += pm.Dropped
		sets[i] = pm.games
	}
	sum.games, sum.test = inSeries(sets), test
	sum.Report = replay(sum.Report.A, sum.Report.B, test, sum.games)
	return sum, nil
}

// inSeries numbers the games of several matches as one: the pairs of the
// first match, in order, then the second's, and so on, a game keeping its
// place (first or second) in its pair.
func inSeries(sets [][]ShardGame) []ShardGame {
	var all []ShardGame
	next := 0
	for _, games := range sets {
		sorted := make([]ShardGame, len(games))
		copy(sorted, games)
		sort.Slice(sorted, func(i, j int) bool { return sorted[i].Number < sorted[j].Number })
		pairs := map[int]int{}
		for _, g := range sorted {
			p, ok := pairs[(g.Number-1)/2]
			if !ok {
				p = next
				pairs[(g.Number-1)/2] = p
				next++
			}
			g.Number = 2*p + 1 + (g.Number-1)%2
			all = append(all, g)
		}
	}
	return all
}

// seriesDifferences lists what two matches' first tasks differ in beyond
// the settings a series may change.
func seriesDifferences(a, b *ShardManifest) []string {
	strip := func(in jobarray.Info) jobarray.Info {
		in.Settings = maps.Clone(in.Settings)
		for _, k := range seriesFree {
			delete(in.Settings, k)
		}
		in.SettingsHash, in.Count = jobarray.Hash(in.Settings), 1
		return in
	}
	return strip(a.Shard).Differences(strip(b.Shard))
}

// WriteSeriesPGN writes the games of the merged matches of a series,
// match after match, each in game order, to the file path, which appears
// whole or not at all (dchess match merge --pgn).
func WriteSeriesPGN(path string, parts []*MergedMatch) error {
	f, err := safefile.Create(path)
	if err != nil {
		return fmt.Errorf("--pgn: %w", err)
	}
	defer f.Discard()
	for _, mm := range parts {
		if err := mm.WritePGN(f); err != nil {
			return fmt.Errorf("writing %s: %w", path, err)
		}
	}
	return f.Commit()
}
