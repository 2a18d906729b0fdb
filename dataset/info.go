package dataset

import (
	"context"
	"fmt"
	"time"

	"github.com/dchess/dchess/internal/chess/board"
)

// Info is what `dchess dataset info` reports of a dataset (its --json
// output): the manifest's counts, splits, score histogram and provenance.
type Info struct {
	Dataset       string           `json:"dataset"`
	FormatVersion int              `json:"format_version"`
	CreatedAt     time.Time        `json:"created_at"`
	Records       int64            `json:"records"`
	Games         int64            `json:"games"`
	Labelled      int64            `json:"labelled"`
	Failed        int64            `json:"failed"`
	Duplicates    int64            `json:"duplicates_dropped"`
	LabelCoverage float64          `json:"label_coverage"`
	Split         *InfoSplit       `json:"split"`
	Splits        map[string]int64 `json:"splits"`
	SplitGames    map[string]int64 `json:"split_games"`
	Histogram     HistogramInfo    `json:"histogram"`
	Sources       []Source         `json:"sources"`
	Command       []string         `json:"command"`
	Settings      map[string]any   `json:"settings"`
	Shards        int              `json:"shards"`
	Bytes         int64            `json:"bytes"`
	// Quiet is set by `dataset info --count-quiet`, which reads every record.
	Quiet *QuietCounts `json:"quiet,omitempty"`
}

// InfoSplit is the manifest's split as info reports it. A placed game is
// named as a jsonl export names it, its game_id in 16 hex digits, and its
// split by name: a 64-bit id written as a JSON number is rounded by every
// reader that keeps numbers as doubles (jq, JavaScript).
type InfoSplit struct {
	Seed    uint64       `json:"seed"`
	Val     float64      `json:"val"`
	Test    float64      `json:"test"`
	Records SplitCounts  `json:"records"`
	Games   SplitCounts  `json:"games"`
	Placed  []InfoPlaced `json:"placed,omitempty"`
}

// InfoPlaced is one game a split placed by hand.
type InfoPlaced struct {
	Game  string `json:"game"`
	Split string `json:"split"`
}

// infoSplit is s as info reports it; nil for an unsplit dataset.
func infoSplit(s *SplitInfo) *InfoSplit {
	if s == nil {
		return nil
	}
	out := &InfoSplit{Seed: s.Seed, Val: s.Val, Test: s.Test, Records: s.Records, Games: s.Games}
	for _, p := range s.Placed {
		out.Placed = append(out.Placed, InfoPlaced{Game: fmt.Sprintf("%016x", p.Game), Split: p.Split.String()})
	}
	return out
}

// HistogramInfo is the manifest's score histogram with its buckets named.
type HistogramInfo struct {
	EdgesCP     []int32          `json:"edges_cp"`
	Buckets     []BucketCount    `json:"buckets"`
	MateFor     int64            `json:"mate_for"`
	MateAgainst int64            `json:"mate_against"`
	Counts      map[string]int64 `json:"counts"`
}

// BucketCount is one named bucket of a histogram.
type BucketCount struct {
	Name  string `json:"name"`
	Count int64  `json:"count"`
}

// Describe sums up d from its manifest alone, without reading a shard.
func Describe(d *Dataset) Info {
	m := d.Manifest()
	c := m.Counts
	info := Info{
		Dataset: d.Dir(), FormatVersion: m.FormatVersion, CreatedAt: m.CreatedAt,
		Records: c.Records, Games: c.Games, Labelled: c.Labelled, Failed: c.Failed, Duplicates: c.Duplicates,
		Split: infoSplit(m.Split), Sources: m.Sources, Command: m.Command, Settings: m.Settings, Shards: len(m.Shards),
	}
	if c.Records > 0 {
		info.LabelCoverage = float64(c.Labelled) / float64(c.Records)
	}
	// An unsplit dataset is all train, as SplitOf says.
	records, games := SplitCounts{Train: c.Records}, SplitCounts{Train: c.Games}
	if m.Split != nil {
		records, games = m.Split.Records, m.Split.Games
	}
	info.Splits = map[string]int64{"train": records.Train, "val": records.Val, "test": records.Test}
	info.SplitGames = map[string]int64{"train": games.Train, "val": games.Val, "test": games.Test}
	h := m.Histogram
	info.Histogram = HistogramInfo{EdgesCP: h.EdgesCP, MateFor: h.MateFor, MateAgainst: h.MateAgainst,
		Counts: map[string]int64{}}
	for i, name := range h.BucketNames() {
		if i < len(h.Counts) {
			info.Histogram.Buckets = append(info.Histogram.Buckets, BucketCount{name, h.Counts[i]})
			info.Histogram.Counts[name] = h.Counts[i]
		}
	}
	info.Histogram.Counts["mate_for"] = h.MateFor
	info.Histogram.Counts["mate_against"] = h.MateAgainst
	for _, sh := range m.Shards {
		info.Bytes += sh.Bytes
	}
	return info
}

// QuietCounts counts a dataset's quiet labelled positions (Label.Quiet: not
// in check, the best move not a capture), the ones a static evaluation is
// trained on, by split.
type QuietCounts struct {
	Labelled int64            `json:"labelled"`
	Quiet    int64            `json:"quiet"`
	Splits   map[string]int64 `json:"splits"`
}

// CountQuiet reads every record of d and counts its quiet labelled
// positions.
func CountQuiet(ctx context.Context, d *Dataset) (*QuietCounts, error) {
	q := &QuietCounts{Splits: map[string]int64{"train": 0, "val": 0, "test": 0}}
	err := d.Scan(ctx, AllSplits, func(r *Record) error {
		if r.Label == nil || r.Label.Status != LabelOK {
			return nil
		}
		q.Labelled++
		b, err := board.FromFEN(r.FEN)
		if err != nil {
			return fmt.Errorf("dataset %s: %s: %w", d.Dir(), r.FEN, err)
		}
		if quiet, err := r.Label.Quiet(b); err != nil {
			return fmt.Errorf("dataset %s: %s: %w", d.Dir(), r.FEN, err)
		} else if quiet {
			q.Quiet++
			q.Splits[d.SplitOf(r.GameID).String()]++
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return q, nil
}
