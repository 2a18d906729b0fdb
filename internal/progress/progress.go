// Package progress shows how far a long job has come: a redrawn bar when
// the output is a terminal, and otherwise (a batch job's log) a plain line
// every interval, such as
//
//	label: 1200/5000 pos (24 %), 251 pos/s, 15s left, labelling (0 failed)
//
// so the log of a job nobody watches still shows that it moves and when it
// will end. Quiet silences both.
package progress

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
)

// Reporter is what a long job tells about its progress. Every method is
// safe for concurrent use.
type Reporter interface {
	// Add counts n more units done.
	Add(n int64)
	// Set sets the units done so far.
	Set(n int64)
	// Describe sets a short status shown beside the count.
	Describe(status string)
	// Clear takes the bar off the terminal before other output is written;
	// a log reporter has nothing to take off.
	Clear()
	// Finish marks the job done: the bar fills and is cleared, the log gets
	// a last line with the total time.
	Finish()
	// Abort stops without completing (the job failed): the bar keeps its
	// last state and the line ends, the log says where it stopped.
	Abort()
}

// DefaultInterval is how often a log reporter writes a line.
const DefaultInterval = 30 * time.Second

// Options configure New.
type Options struct {
	// Name starts every log line and is the bar's first description:
	// "label", "match".
	Name string
	// Total is the number of units the job will do, or -1 when unknown.
	Total int64
	// Unit names what is counted ("pos", "games"); "bytes" prints sizes.
	Unit string
	// Terminal says the writer is a terminal: draw a bar.
	Terminal bool
	// Quiet shows nothing.
	Quiet bool
	// Interval between log lines; DefaultInterval when 0.
	Interval time.Duration
	// Now is the clock, time.Now when nil (tests pass a fake one).
	Now func() time.Time
}

// New returns the reporter Options ask for, writing to w.
func New(w io.Writer, opts Options) Reporter {
	switch {
	case opts.Quiet:
		return nop{}
	case opts.Terminal:
		return newBar(w, opts)
	}
	return newLog(w, opts)
}

// nop shows nothing.
type nop struct{}

func (nop) Add(int64)       {}
func (nop) Set(int64)       {}
func (nop) Describe(string) {}
func (nop) Clear()          {}
func (nop) Finish()         {}
func (nop) Abort()          {}

// bar is the terminal bar.
type bar struct {
	w   io.Writer
	bar *progressbar.ProgressBar
}

func newBar(w io.Writer, opts Options) *bar {
	options := []progressbar.Option{
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription(opts.Name),
		progressbar.OptionShowIts(),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionThrottle(200 * time.Millisecond),
		progressbar.OptionClearOnFinish(),
	}
	switch opts.Unit {
	case "bytes":
		options = append(options, progressbar.OptionShowBytes(true))
	case "":
		options = append(options, progressbar.OptionShowCount())
	default:
		options = append(options, progressbar.OptionShowCount(), progressbar.OptionSetItsString(opts.Unit))
	}
	return &bar{w: w, bar: progressbar.NewOptions64(opts.Total, options...)}
}

func (b *bar) Add(n int64)            { b.bar.Add64(n) }
func (b *bar) Set(n int64)            { b.bar.Set64(n) }
func (b *bar) Describe(status string) { b.bar.Describe(status) }
func (b *bar) Clear()                 { b.bar.Clear() }
func (b *bar) Finish()                { b.bar.Finish() }
func (b *bar) Abort() {
	b.bar.Exit()
	fmt.Fprintln(b.w) // the error that follows starts on its own line
}

// logReporter writes a line at most every interval, when progress is
// reported: a job that reports after every unit gets a steady line.
type logReporter struct {
	mu       sync.Mutex
	w        io.Writer
	opts     Options
	now      func() time.Time
	start    time.Time
	lastLine time.Time
	done     int64
	status   string
	ended    bool
}

func newLog(w io.Writer, opts Options) *logReporter {
	if opts.Interval <= 0 {
		opts.Interval = DefaultInterval
	}
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	start := now()
	return &logReporter{w: w, opts: opts, now: now, start: start, lastLine: start}
}

func (l *logReporter) Add(n int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.done += n
	l.maybeWrite()
}

func (l *logReporter) Set(n int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.done = n
	l.maybeWrite()
}

func (l *logReporter) Describe(status string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.status = status
}

func (l *logReporter) Clear() {}

func (l *logReporter) Finish() { l.end("done") }

func (l *logReporter) Abort() { l.end("stopped") }

func (l *logReporter) maybeWrite() {
	if l.ended {
		return
	}
	now := l.now()
	if now.Sub(l.lastLine) < l.opts.Interval {
		return
	}
	l.lastLine = now
	elapsed := now.Sub(l.start)
	parts := []string{l.count()}
	if rate := l.rate(elapsed); rate > 0 {
		parts = append(parts, l.rateText(rate))
		if l.opts.Total > 0 && l.done < l.opts.Total {
			left := time.Duration(float64(l.opts.Total-l.done) / rate * float64(time.Second))
			parts = append(parts, roundDuration(left).String()+" left")
		}
	}
	if l.status != "" {
		parts = append(parts, l.status)
	}
	fmt.Fprintf(l.w, "%s: %s\n", l.opts.Name, strings.Join(parts, ", "))
}

// end writes the last line once; only a job that wrote progress lines or
// ran for an interval gets one, so quick jobs stay silent in logs.
func (l *logReporter) end(how string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ended {
		return
	}
	l.ended = true
	elapsed := l.now().Sub(l.start)
	if elapsed < l.opts.Interval {
		return
	}
	line := fmt.Sprintf("%s: %s, %s in %s", l.opts.Name, how, l.count(), roundDuration(elapsed))
	if rate := l.rate(elapsed); rate > 0 {
		line += fmt.Sprintf(" (%s)", l.rateText(rate))
	}
	fmt.Fprintln(l.w, line)
}

func (l *logReporter) rate(elapsed time.Duration) float64 {
	if elapsed <= 0 {
		return 0
	}
	return float64(l.done) / elapsed.Seconds()
}

// count is "1200/5000 pos (24 %)", or "1200 pos" with no total.
func (l *logReporter) count() string {
	if l.opts.Total <= 0 {
		return l.amount(l.done)
	}
	done, total := l.amount(l.done), l.amount(l.opts.Total)
	if l.opts.Unit != "" && l.opts.Unit != "bytes" {
		done = fmt.Sprint(l.done) // the unit once, after the total
	}
	return fmt.Sprintf("%s/%s (%d %%)", done, total, 100*l.done/l.opts.Total)
}

// amount is n with its unit: "1200 pos", "12.3 MB", or a bare "1200".
// rateText is rate a second, or a minute when it is under one a second (a
// match's games at 10+0.1), where a rounded "0 games/s" would say nothing.
func (l *logReporter) rateText(rate float64) string {
	if rate >= 1 || l.opts.Unit == "bytes" {
		return l.amount(int64(rate+0.5)) + "/s"
	}
	perMinute := strconv.FormatFloat(rate*60, 'f', 1, 64)
	if l.opts.Unit == "" {
		return perMinute + "/min"
	}
	return perMinute + " " + l.opts.Unit + "/min"
}

func (l *logReporter) amount(n int64) string {
	switch l.opts.Unit {
	case "bytes":
		return bytesText(n)
	case "":
		return fmt.Sprint(n)
	}
	return fmt.Sprintf("%d %s", n, l.opts.Unit)
}

func bytesText(n int64) string {
	const unit = 1000
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	value, prefix := float64(n), 0
	for value >= unit && prefix < 4 {
		value /= unit
		prefix++
	}
	return fmt.Sprintf("%.1f %cB", value, "kMGT"[prefix-1])
}

// roundDuration keeps a time readable: whole seconds, or minutes past an hour.
func roundDuration(d time.Duration) time.Duration {
	if d >= time.Hour {
		return d.Round(time.Minute)
	}
	return d.Round(time.Second)
}
