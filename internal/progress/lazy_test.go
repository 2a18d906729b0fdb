package progress

import (
	"bytes"
	"errors"
	"testing"
	"time"
)

// TestLazyMakesTheReporterAtTheFirstReport: nothing is shown before the
// first Set, whose total the lines then count against; Write passes text
// through, and End says how the job ended.
func TestLazyMakesTheReporterAtTheFirstReport(t *testing.T) {
	clock := &fakeClock{t: time.Unix(0, 0)}
	var out bytes.Buffer
	l := NewLazy(&out, Options{Name: "merge", Total: 99, Unit: "records", Interval: time.Second, Now: clock.now})
	l.Clear()
	if _, err := l.Write([]byte("a log line\n")); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); got != "a log line\n" {
		t.Fatalf("before the first report: %q", got)
	}
	out.Reset()
	l.Set(0, 400)
	clock.advance(2 * time.Second)
	l.Set(100, 400)
	if got := out.String(); got != "merge: 100/400 records (25 %), 50 records/s, 6s left\n" {
		t.Errorf("after two reports: %q", got)
	}
	out.Reset()
	l.End(errors.New("interrupted"))
	if got := out.String(); got != "merge: stopped, 100/400 records (25 %) in 2s (50 records/s)\n" {
		t.Errorf("end on an error: %q", got)
	}
}

// TestLazyWithoutAReportEndsSilently: a job that never reported (a task
// with nothing to do) leaves nothing behind.
func TestLazyWithoutAReportEndsSilently(t *testing.T) {
	var out bytes.Buffer
	l := NewLazy(&out, Options{Name: "perft", Interval: time.Nanosecond})
	l.Finish()
	l.End(errors.New("failed"))
	if out.Len() != 0 {
		t.Errorf("wrote %q", out.String())
	}
}

func TestEnd(t *testing.T) {
	clock := &fakeClock{t: time.Unix(0, 0)}
	for _, c := range []struct {
		err  error
		want string
	}{{nil, "bench: done, 3/3 (100 %) in 1s (3/s)\n"}, {errors.New("x"), "bench: stopped, 3/3 (100 %) in 1s (3/s)\n"}} {
		var out bytes.Buffer
		r := New(&out, Options{Name: "bench", Total: 3, Interval: time.Second, Now: clock.now})
		r.Add(3)
		clock.advance(time.Second)
		End(r, c.err)
		if out.String() != c.want {
			t.Errorf("End(%v) wrote %q, want %q", c.err, out.String(), c.want)
		}
	}
}
