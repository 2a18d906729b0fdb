package dataset

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestFormatCountAndBytes(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567", -1234: "-1,234"} {
		if got := FormatCount(n); got != want {
			t.Errorf("FormatCount(%d) = %q, want %q", n, got, want)
		}
	}
	for n, want := range map[int64]string{512: "512 B", 4096: "4.0 KiB", 3 << 20: "3.0 MiB", 3 << 29: "1.5 GiB"} {
		if got := FormatBytes(n); got != want {
			t.Errorf("FormatBytes(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestExportStatsLeftOut(t *testing.T) {
	st := ExportStats{Unlabelled: 1200, NotQuiet: 3, UnknownResult: 2}
	if got, want := st.LeftOut(false), []string{"1,200 without a label", "3 not quiet"}; !reflect.DeepEqual(got, want) {
		t.Errorf("LeftOut(false) = %q, want %q", got, want)
	}
	if got := st.LeftOut(true); len(got) != 3 || got[2] != "2 with no game result" {
		t.Errorf("LeftOut(true) = %q", got)
	}
	if got := (&ExportStats{Written: 5}).LeftOut(true); got != nil {
		t.Errorf("nothing left out: %q", got)
	}
}

func TestInfoText(t *testing.T) {
	info := &Info{Dataset: "data/x", FormatVersion: 1, CreatedAt: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC),
		Records: 2000, Games: 20, Labelled: 1000, LabelCoverage: 0.5, Duplicates: 3,
		Split:  &InfoSplit{Seed: 1, Val: 0.1, Test: 0.1},
		Splits: map[string]int64{"train": 1600, "val": 200, "test": 200}, SplitGames: map[string]int64{"train": 16, "val": 2, "test": 2},
		Histogram: HistogramInfo{Buckets: []BucketCount{{Name: "-100..100", Count: 3}}, MateFor: 1},
		Quiet:     &QuietCounts{Labelled: 1000, Quiet: 250, Splits: map[string]int64{"train": 200, "val": 25, "test": 25}},
		Shards:    2, Bytes: 4096, Sources: []Source{{Path: "games.pgn", Bytes: 100, SHA256: strings.Repeat("ab", 32)}}}
	text := info.Text()
	for _, want := range []string{"dataset    data/x (format 1, made 2026-12-01T00:00:00Z)\n",
		"records    2,000 from 20 games (3 duplicates dropped)\n", "labelled   1,000 (50.0%), failed 0\n",
		"quiet      250 (25.0% of the labelled; train 200, val 25, test 25)", "splits     seed 1, val 0.1, test 0.1\n",
		"  train           1,600 records         16 games\n", "  -100..100               3  75.0% ##############################\n",
		"  mates                   1  25.0% ##########\n", "shards     2 files, 4.0 KiB\n",
		"sources    games.pgn (100 B, sha256 abababababababab)\n"} {
		if !strings.Contains(text, want) {
			t.Errorf("Text lacks %q:\n%s", want, text)
		}
	}
	info.Split, info.Quiet, info.Histogram = nil, nil, HistogramInfo{}
	if text := info.Text(); !strings.Contains(text, "splits     none: every record is train") || strings.Contains(text, "scores") {
		t.Errorf("unsplit, unscored:\n%s", text)
	}
}
