package evaluate

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/dchess/dchess/dataset/ingest"
	"github.com/dchess/dchess/search/player"
)

// Options are what every evaluation (`dchess eval --epd`, `--puzzles`,
// `--data`) takes besides its input.
type Options struct {
	Player player.Spec
	Limits player.Limits
	// Limit scores only the first N positions, puzzles or pairs; 0 is all.
	Limit int
	// Workers is how many positions (puzzles, pairs) are scored side by
	// side, each worker with a player of its own (0: the cores the process
	// may use, GOMAXPROCS). The results are merged in the input's order, so
	// every figure and line is the one a single worker gives, as long as a
	// move does not depend on the clock: under a movetime, workers that
	// outnumber the free cores each search less deep. A time per move is
	// the mean of each move's own time, not the wall time over the moves.
	Workers int
	// Strict stops at the first bad line of an EPD or puzzle file instead
	// of skipping and counting it.
	Strict bool
	// Log receives informational lines; nil discards them.
	Log io.Writer
	// Progress, when set, receives a progress bar.
	Progress io.Writer
}

func (o *Options) logf(format string, args ...any) {
	if o.Log != nil {
		fmt.Fprintf(o.Log, format, args...)
	}
}

// InputError is an evaluation's complaint about what it was given (a file
// or dataset it cannot read as one), as opposed to a failure while it ran.
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

// BadLines are the lines of an EPD or puzzle file an evaluation skipped:
// how many, and the first ingest.MaxReportedErrors as "line N: reason",
// the policy and wording of `dchess ingest`.
type BadLines struct {
	Count int64    `json:"count"`
	First []string `json:"first"`
}

// add counts a bad line; with strict it is the error that ends the run.
func (b *BadLines) Add(strict bool, line int, reason error) error {
	msg := fmt.Sprintf("line %d: %v", line, reason)
	if strict {
		return fmt.Errorf("%s (stopping: --strict)", msg)
	}
	b.Count++
	if len(b.First) < ingest.MaxReportedErrors {
		b.First = append(b.First, msg)
	}
	return nil
}

// Text is the first bad lines and how many more there were, as dchess
// eval prints them on stderr; "" when there were none (b is nil).
func (b *BadLines) Text() string {
	if b == nil {
		return ""
	}
	return ingest.ErrorsText(b.First, b.Count)
}

// orNil is b when it counted a line, else nil (the JSON leaves it out).
func (b *BadLines) orNil() *BadLines {
	if b.Count == 0 {
		return nil
	}
	return b
}

// share is n/d, 0 when there is nothing to divide by.
func share(n, d int) float64 { return ratio(float64(n), float64(d)) }

// errEvalLimit ends a scan at the Limit.
var errEvalLimit = errors.New("limit reached")

// emitUpTo passes items on to emit and ends the scan (errEvalLimit) once
// limit (0: no limit) items are passed on.
func emitUpTo[T any](limit int, emit func(T) error) func(T) error {
	n := 0
	return func(item T) error {
		if err := emit(item); err != nil {
			return err
		}
		if n++; limit > 0 && n >= limit {
			return errEvalLimit
		}
		return nil
	}
}

// progress is an evaluation's progress bar, ticked as each item's result
// is merged; without Options.Progress it does nothing.
type progress struct{ bar *progressbar.ProgressBar }

func newProgress(opts *Options, total int64, what string) progress {
	return progress{bar: newEvalBar(opts.Progress, total, what)}
}

func (p progress) tick() {
	if p.bar != nil {
		p.bar.Add(1)
	}
}

// done passes on a scan's error unless it is the limit, and closes the bar.
func (p progress) done(err error) error {
	if err != nil && !errors.Is(err, errEvalLimit) {
		return err
	}
	if p.bar != nil {
		p.bar.Finish()
	}
	return nil
}

func newEvalBar(w io.Writer, total int64, what string) *progressbar.ProgressBar {
	if w == nil {
		return nil
	}
	return progressbar.NewOptions64(total, progressbar.OptionSetWriter(w), progressbar.OptionSetDescription(what),
		progressbar.OptionShowCount(), progressbar.OptionThrottle(200*time.Millisecond), progressbar.OptionClearOnFinish())
}

// ratio is a/b, 0 when there is nothing to divide by.
func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}
