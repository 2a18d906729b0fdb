package dataset

import (
	"fmt"
	"strings"
)

// CheckSplitFractions refuses the fractions dchess dataset split cannot
// use, in the words of its --val and --test flags; WriteSplitContext
// refuses the same.
func CheckSplitFractions(val, test float64) error {
	for _, f := range []struct {
		name string
		v    float64
	}{{"--val", val}, {"--test", test}} {
		if !(f.v >= 0 && f.v <= 1) {
			return fmt.Errorf("%s %v must be a fraction between 0 and 1", f.name, f.v)
		}
	}
	if val+test > 1 {
		return fmt.Errorf("--val %v plus --test %v is more than 1", val, test)
	}
	return nil
}

// SplitReport is a dataset's split as dchess dataset split reports it
// (its --json object; the fields in the order of their names).
type SplitReport struct {
	Dataset    string           `json:"dataset"`
	Seed       uint64           `json:"seed"`
	SplitGames map[string]int64 `json:"split_games"`
	Splits     map[string]int64 `json:"splits"`
	Test       float64          `json:"test"`
	Val        float64          `json:"val"`
}

// Report is sp, the split of the dataset in dir, as a SplitReport.
func (sp *SplitInfo) Report(dir string) SplitReport {
	return SplitReport{Dataset: dir, Seed: sp.Seed, Val: sp.Val, Test: sp.Test,
		Splits:     map[string]int64{"train": sp.Records.Train, "val": sp.Records.Val, "test": sp.Records.Test},
		SplitGames: map[string]int64{"train": sp.Games.Train, "val": sp.Games.Val, "test": sp.Games.Test}}
}

// Text is the report as dchess dataset split prints it: records and games
// of each split.
func (r SplitReport) Text() string {
	var w strings.Builder
	fmt.Fprintf(&w, "split %s by game with seed %d\n", r.Dataset, r.Seed)
	for _, sl := range []Split{Train, Val, Test} {
		fmt.Fprintf(&w, "  %-6s %12s records %10s games\n", sl, FormatCount(r.Splits[sl.String()]), FormatCount(r.SplitGames[sl.String()]))
	}
	return w.String()
}

// Notes are the lines dchess dataset export writes beside the records
// (on standard error): where count records went, what was left out and
// why, and the records written as draws for want of a result.
func (s *ExportStats) Notes(opts ExportOptions, count int64) []string {
	var notes []string
	if opts.Output != "-" && opts.Output != "" {
		notes = append(notes, fmt.Sprintf("exported %s records to %s", FormatCount(count), opts.Output))
	}
	if left := s.LeftOut(opts.SkipUnknownResult); len(left) > 0 {
		notes = append(notes, "left out: "+strings.Join(left, ", "))
	}
	if s.FirstInvalid != "" {
		notes = append(notes, "first record the format cannot hold: "+s.FirstInvalid)
	}
	if !opts.SkipUnknownResult && s.UnknownResult > 0 && opts.Format != ExportJSONL && opts.Format != ExportCSV {
		notes = append(notes, fmt.Sprintf("%s records have no game result and were written as draws (--skip-unknown-result leaves them out)", FormatCount(s.UnknownResult)))
	}
	return notes
}

// Text is the report as dchess dataset verify prints it: a line for every
// damaged shard and every problem with the counts, or that all is well.
func (r VerifyReport) Text() string {
	var w strings.Builder
	for _, dmg := range r.Damaged {
		fmt.Fprintf(&w, "DAMAGED %s\n", dmg.Error)
	}
	for _, p := range r.Problems {
		fmt.Fprintf(&w, "PROBLEM %s\n", p)
	}
	if r.Err() == nil {
		fmt.Fprintf(&w, "ok: %d shards, %s records verified in %s\n", r.Shards, FormatCount(r.Records), r.Dataset)
	}
	return w.String()
}

// Text is the summary as dchess dataset merge prints it for the shards
// named base.
func (s MergeSummary) Text(base string) string {
	return fmt.Sprintf("merged %d shards of %s into %s: %s records (%s labelled, %s failed) in the order of %s; %.1f s\n",
		s.Shards, base, s.Output, FormatCount(s.Records), FormatCount(s.Labelled), FormatCount(s.Failed), s.Input, s.Seconds)
}
