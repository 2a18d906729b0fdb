package selfplay

import (
	"strings"
	"testing"
)

func TestOptionsCheck(t *testing.T) {
	if err := (Options{Games: 10, RandomRate: 1}).Check(); err != nil {
		t.Fatalf("good options: %v", err)
	}
	for _, c := range []struct {
		opts Options
		want string
	}{
		{Options{Games: 0}, "--games must be in 1.."},
		{Options{Games: 10, RandomRate: 1.5}, "--random-rate must be between 0 and 1, got 1.5"},
		{Options{Games: 10, BalanceDepth: -1}, "must not be negative"},
	} {
		if err := c.opts.Check(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: got %v, want %q", c.opts, err, c.want)
		}
	}
}

// TestResultText: the rate counts this run's games, the results every
// game in the file; terminations are sorted.
func TestResultText(t *testing.T) {
	r := &Result{Output: "games.pgn", Games: 10, Resumed: 4, WhiteWins: 3, BlackWins: 2, Draws: 5, Plies: 805,
		Terminated: map[string]int{"stalemate": 1, "checkmate": 5, "repetition": 4}, Seconds: 3}
	want := "played 6 games in 3.0s (2.00 games/s) and took 4 from an interrupted run's journal: 1-0 3, 0-1 2, draws 5; 80 plies a game\n" +
		"terminations: checkmate 5, repetition 4, stalemate 1\nwrote games.pgn\n"
	if got := r.Text(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
