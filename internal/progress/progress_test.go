package progress

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeClock advances only when told.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time          { return c.t }
func (c *fakeClock) advance(d time.Duration) { c.t = c.t.Add(d) }

func TestLogLinesAtTheInterval(t *testing.T) {
	clock := &fakeClock{t: time.Unix(0, 0)}
	var out bytes.Buffer
	r := New(&out, Options{Name: "label", Total: 5000, Unit: "pos", Interval: 10 * time.Second, Now: clock.now})
	r.Describe("labelling (0 failed)")
	// 25 positions a second, reported one at a time: no line until 10 s.
	for i := 0; i < 240; i++ {
		clock.advance(40 * time.Millisecond)
		r.Add(1)
	}
	if out.Len() != 0 {
		t.Fatalf("a line before the interval: %q", out.String())
	}
	for i := 0; i < 60; i++ {
		clock.advance(40 * time.Millisecond)
		r.Add(1)
	}
	// 250 done at 10 s: 25/s, 4750 left, 190 s.
	want := "label: 250/5000 pos (5 %), 25 pos/s, 3m10s left, labelling (0 failed)\n"
	if out.String() != want {
		t.Fatalf("first line %q, want %q", out.String(), want)
	}
	// One line per interval, however often progress is reported: 800
	// reports in 32 s give lines at 10, 20 and 30 s.
	for i := 0; i < 500; i++ {
		clock.advance(40 * time.Millisecond)
		r.Add(1)
	}
	if lines := strings.Count(out.String(), "\n"); lines != 3 {
		t.Fatalf("%d lines after 30 s, want 3:\n%s", lines, out.String())
	}
	r.Set(5000)
	r.Finish()
	last := out.String()[strings.LastIndex(strings.TrimSuffix(out.String(), "\n"), "\n")+1:]
	if last != "label: done, 5000/5000 pos (100 %) in 32s (156 pos/s)\n" {
		t.Errorf("last line %q", last)
	}
	r.Add(1)
	r.Finish()
	if strings.Count(out.String(), "done") != 1 {
		t.Errorf("wrote after Finish:\n%s", out.String())
	}
}

func TestLogWithoutTotalAndInBytes(t *testing.T) {
	clock := &fakeClock{t: time.Unix(0, 0)}
	var out bytes.Buffer
	r := New(&out, Options{Name: "experience", Total: -1, Unit: "games", Interval: time.Second, Now: clock.now})
	clock.advance(2 * time.Second)
	r.Set(100)
	if got := out.String(); got != "experience: 100 games, 50 games/s\n" {
		t.Errorf("no total: %q", got)
	}
	out.Reset()
	r = New(&out, Options{Name: "ingest", Total: 50_000_000, Unit: "bytes", Interval: time.Second, Now: clock.now})
	r.Describe("1200 read (600/s), 0 skipped")
	clock.advance(2 * time.Second)
	r.Set(12_300_000)
	if got := out.String(); got != "ingest: 12.3 MB/50.0 MB (24 %), 6.2 MB/s, 6s left, 1200 read (600/s), 0 skipped\n" {
		t.Errorf("bytes: %q", got)
	}
	r.Abort()
	if !strings.HasSuffix(out.String(), "ingest: stopped, 12.3 MB/50.0 MB (24 %) in 2s (6.2 MB/s)\n") {
		t.Errorf("abort: %q", out.String())
	}
}

func TestQuickJobsStaySilentInLogs(t *testing.T) {
	var out bytes.Buffer
	r := New(&out, Options{Name: "perft", Total: 10})
	for i := 0; i < 10; i++ {
		r.Add(1)
	}
	r.Finish()
	if out.Len() != 0 {
		t.Errorf("a job shorter than the interval wrote %q", out.String())
	}
}

func TestQuietAndTerminal(t *testing.T) {
	var out bytes.Buffer
	for _, terminal := range []bool{false, true} {
		r := New(&out, Options{Name: "match", Total: 10, Quiet: true, Terminal: terminal, Interval: time.Nanosecond})
		r.Add(5)
		r.Describe("x")
		r.Clear()
		r.Finish()
	}
	if out.Len() != 0 {
		t.Errorf("quiet wrote %q", out.String())
	}
	r := New(&out, Options{Name: "games", Total: 10, Unit: "games", Terminal: true})
	if _, ok := r.(*bar); !ok {
		t.Fatalf("terminal: got %T, want the bar", r)
	}
	r.Add(10)
	r.Finish()
}

func TestLogReporterIsSafeForConcurrentUse(t *testing.T) {
	var out bytes.Buffer
	r := New(&out, Options{Name: "selfplay", Total: 4000, Interval: time.Nanosecond})
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 1000; i++ {
				r.Add(1)
			}
		}()
	}
	wg.Wait()
	r.Finish()
	if !strings.Contains(out.String(), "selfplay: done, 4000/4000 (100 %)") {
		t.Errorf("last line missing or wrong: ...%s", out.String()[max(0, out.Len()-200):])
	}
}

// TestSlowRatesPerMinute: under one a second (a match at 10+0.1 plays about
// two games a minute on a core) the rate is given a minute, not as "0/s".
func TestSlowRatesPerMinute(t *testing.T) {
	clock := &fakeClock{t: time.Unix(0, 0)}
	var out bytes.Buffer
	r := New(&out, Options{Name: "match", Total: 200, Unit: "games", Interval: time.Minute, Now: clock.now})
	clock.advance(90 * time.Second)
	r.Set(3)
	if got := out.String(); got != "match: 3/200 games (1 %), 2.0 games/min, 1h39m0s left\n" {
		t.Errorf("slow rate: %q", got)
	}
}
