package match

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/dchess/dchess/internal/jobarray"
	"github.com/dchess/dchess/search/elo"
)

// PartialMatch is a sharded match read while its tasks still run (or
// after some were stopped): what the finished tasks recorded and what the
// others have journalled so far.
type PartialMatch struct {
	// Report counts the games of complete pairs only, in game order, so
	// the pentanomial and the SPRT read whole pairs as a full merge does.
	Report     *Report `json:"report"`
	Tasks      int     `json:"tasks"`       // the job's task count
	Finished   int     `json:"finished"`    // tasks with a manifest
	Running    int     `json:"running"`     // tasks with a journal and no manifest
	NotStarted int     `json:"not_started"` // task folders not there yet
	// Dropped counts played games whose pair partner is not played yet.
	Dropped int `json:"waiting_for_pair"`

	games []ShardGame // the games Report counts, for MergePartialSeries
	test  *elo.SPRT
}

// MergePartial is MergeShards for a match still being played: finished
// tasks count in full, unfinished ones with the games their journals hold,
// missing ones not at all. It only reads (a running task's journal is not
// touched) and checks that every task played with the same settings and
// players. sprt, when not nil, replaces the test the tasks recorded; an
// SPRT on part of a match shows where the test stands, not a decision.
func MergePartial(base string, sprt *elo.SPRT) (*PartialMatch, error) {
	found, err := jobarray.Find(base)
	if err != nil {
		return nil, err
	}
	if len(found) == 0 {
		return nil, fmt.Errorf("no shards named %s-NNNN-of-NNNN in %s", filepath.Base(base), filepath.Dir(base))
	}
	pm := &PartialMatch{Tasks: found[0].Spec.Count}
	var hash, a, b, test string
	agree := func(name, h, pa, pb string) error {
		if hash == "" {
			hash, a, b = h, pa, pb
			return nil
		}
		if h != hash || pa != a || pb != b {
			return fmt.Errorf("%s was played with other settings or players (%s vs %s) than %s", name, pa, pb, filepath.Base(found[0].Path))
		}
		return nil
	}
	byNumber := map[int]ShardGame{}
	for _, f := range found {
		name := filepath.Base(f.Path)
		if f.Spec.Count != pm.Tasks {
			return nil, fmt.Errorf("shards of different jobs: %s is one of %d, %s one of %d; move one set away",
				filepath.Base(found[0].Path), pm.Tasks, name, f.Spec.Count)
		}
		m, err := readShardManifest(f.Path)
		switch {
		case err == nil:
			if err := agree(name, m.Shard.SettingsHash, m.A, m.B); err != nil {
				return nil, err
			}
			pm.Finished++
			test = m.SPRT
			for _, g := range m.Results {
				byNumber[g.Number] = g
			}
		case errors.Is(err, fs.ErrNotExist):
			lines, err := readJournal(filepath.Join(f.Path, shardJournalFile))
			if err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			pm.Running++
			for _, l := range lines {
				if err := agree(name, l.SettingsHash, l.A, l.B); err != nil {
					return nil, err
				}
				byNumber[l.Game.Number] = l.shardGame()
			}
		default:
			return nil, err
		}
	}
	pm.NotStarted = pm.Tasks - pm.Finished - pm.Running
	// Game 2p+1 and 2p+2 are one opening with colours swapped.
	var games []ShardGame
	for n, g := range byNumber {
		partner := n + 1
		if n%2 == 0 {
			partner = n - 1
		}
		if _, ok := byNumber[partner]; ok {
			games = append(games, g)
		} else {
			pm.Dropped++
		}
	}
	if sprt == nil && test != "" {
		t, err := elo.ParseSPRT(test)
		if err != nil {
			return nil, err
		}
		sprt = &t
	}
	pm.Report, pm.games, pm.test = replay(a, b, sprt, games), games, sprt
	return pm, nil
}
