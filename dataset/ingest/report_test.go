package ingest

import (
	"testing"

	"github.com/dchess/dchess/dataset"
)

func TestReportText(t *testing.T) {
	for _, c := range []struct {
		name     string
		sum      Summary
		maxGames int
		want     string
	}{
		{"pgn", Summary{Format: "pgn", GamesRead: 12, GamesKept: 9, GamesSkipped: 3, SkippedMalformed: 1, SkippedIllegal: 1, SkippedVariant: 1,
			Positions: 500, Labelled: 40, Duplicates: 20, Seconds: 2, StoppedAtMaxGames: true}, 9,
			"read 12 games in 2.0s (6/s): 9 kept, 3 skipped (1 malformed, 1 illegal moves, 0 filtered out, 1 not standard chess)\n" +
				"500 positions taken from the kept games, 20 dropped as repeats of an earlier one, 480 unique positions stored in data/g\n" +
				"40 of the positions taken are labelled from the games' [%eval] comments\n" +
				"stopped after --max-games 9\n"},
		{"csv", Summary{Format: "csv", LinesRead: 10, LinesKept: 7, LinesBad: 1, LinesFiltered: 2, Positions: 500, Duplicates: 20, Seconds: 1}, 0,
			"read 10 lines in 1.0s (10/s): 7 kept, 3 skipped (1 bad, 2 filtered out)\n" +
				"500 positions taken from the kept lines, 20 dropped as repeats of an earlier one, 480 unique positions stored in data/g\n"},
		{"binpack", Summary{Format: "binpack", LinesRead: 10, LinesKept: 10, Positions: 500, Duplicates: 20, Labelled: 500, Seconds: 1}, 0,
			"read 10 entries in 1.0s (10/s): 10 kept, 0 skipped\n" +
				"500 positions taken from the kept entries, 20 dropped as repeats of an earlier one, 480 unique positions stored in data/g\n"},
	} {
		sum := c.sum
		if got := (Report{Summary: &sum, Dataset: "data/g", Stored: 480}).Text(c.maxGames); got != c.want {
			t.Errorf("%s: got\n%s\nwant\n%s", c.name, got, c.want)
		}
	}
}

func TestTotalBytes(t *testing.T) {
	files := []dataset.Source{{Path: "a.pgn", Bytes: 100}, {Path: "b.pgn", Bytes: 23}}
	if got := TotalBytes(files); got != 123 {
		t.Errorf("files: %d, want 123", got)
	}
	if got := TotalBytes(append(files, dataset.Source{Path: Stdin})); got != -1 {
		t.Errorf("with stdin: %d, want -1", got)
	}
}

func TestErrorsText(t *testing.T) {
	first := []string{"game 2 (line 11): illegal SAN \"Nf9\"", "game 5 (line 40): no result"}
	if got, want := ErrorsText(first, 2), first[0]+"\n"+first[1]+"\n"; got != want {
		t.Errorf("all reported: %q, want %q", got, want)
	}
	if got, want := ErrorsText(first, 14), first[0]+"\n"+first[1]+"\n... and 12 more errors\n"; got != want {
		t.Errorf("more than reported: %q, want %q", got, want)
	}
	if got := ErrorsText(nil, 0); got != "" {
		t.Errorf("none: %q", got)
	}
}
