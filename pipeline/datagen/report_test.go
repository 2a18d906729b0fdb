package datagen

import (
	"testing"

	"github.com/dchess/dchess/internal/jobarray"
	"github.com/dchess/dchess/pipeline/selfplay"
)

func TestResultText(t *testing.T) {
	r := &Result{Output: "data/gen", Games: "data/gen.pgn", Play: &selfplay.Result{Games: 4, Resumed: 1},
		Positions: 300, Unscored: 10, InCheck: 20, Captures: 30, Beyond: 5, Duplicates: 35, Records: 200, Seconds: 4}
	want := "played 4 games (1 from an interrupted run's journal); 300 positions: 10 without a score, 20 in check, 30 captures, 5 beyond the score bound, 35 duplicates left out\n" +
		"wrote 200 labelled positions to data/gen (games in data/gen.pgn) in 4.0s: 50.0 positions/s\n"
	if got := r.Text(jobarray.Spec{}); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	task := jobarray.Spec{Index: 2, Count: 4}
	skipped := &Result{Output: "data/gen-0002-of-0004", Skipped: true, Records: 70}
	if got, want := skipped.Text(task), "task 2/4 was already played into data/gen-0002-of-0004 with these settings (70 positions); nothing to do\n"; got != want {
		t.Errorf("skipped: %q, want %q", got, want)
	}
}
