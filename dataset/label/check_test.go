package label

import (
	"strings"
	"testing"
	"time"
)

func TestOptionsCheck(t *testing.T) {
	ok := Options{Stockfish: "sf", Input: "a", Output: "b", Workers: 1, Hash: 16, MultiPV: 1}
	if err := ok.Check(); err != nil {
		t.Fatalf("good options: %v", err)
	}
	for name, c := range map[string]struct {
		change func(*Options)
		want   string
	}{
		"no engine":     {func(o *Options) { o.Stockfish = "" }, "--stockfish"},
		"no output":     {func(o *Options) { o.Output = "" }, "-o"},
		"two limits":    {func(o *Options) { o.Depth, o.MoveTime = 8, 50*time.Millisecond }, "at most one of"},
		"negative":      {func(o *Options) { o.Nodes = -1 }, "must be positive"},
		"no workers":    {func(o *Options) { o.Workers = 0 }, "--workers must be at least 1, got 0"},
		"no hash":       {func(o *Options) { o.Hash = 0 }, "--hash"},
		"negative pv":   {func(o *Options) { o.PV = -1 }, "--pv"},
		"zero multipv":  {func(o *Options) { o.MultiPV = 0 }, "--multipv"},
		"negative wait": {func(o *Options) { o.Timeout = -time.Second }, "--timeout"},
	} {
		o := ok
		c.change(&o)
		if err := o.Check(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error containing %q", name, err, c.want)
		}
	}
}

func TestSummaryText(t *testing.T) {
	done := Summary{Output: "out", Engine: "Stockfish 17", Records: 10, Labelled: 6, Resumed: 4, Failed: 1, Restarts: 2, Seconds: 2.5, PositionsPerSecond: 2.4}
	if got, want := done.Text(), "labelled 10 positions into out with Stockfish 17: 6 new, 4 resumed, 1 failed, 2 engine restarts; 2.5 s, 2 positions/s\n"; got != want {
		t.Errorf("run: %q, want %q", got, want)
	}
	skipped := Summary{Output: "out-0001-of-0003", Records: 7, Shard: "1/3", Skipped: true}
	if got, want := skipped.Text(), "shard 1/3 is already labelled in out-0001-of-0003 with these settings (7 positions); nothing to do\n"; got != want {
		t.Errorf("skipped: %q, want %q", got, want)
	}
}
