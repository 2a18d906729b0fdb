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

// scanTally counts what an evaluation scored, ticks its progress bar and
// ends the scan (errEvalLimit) once Limit items are scored.
type scanTally struct {
	bar    *progressbar.ProgressBar
	limit  int
	scored int
}

func newScanTally(opts *Options, total int64, what string) *scanTally {
	return &scanTally{bar: newEvalBar(opts.Progress, total, what), limit: opts.Limit}
}

func (t *scanTally) tick() error {
	t.scored++
	if t.bar != nil {
		t.bar.Add(1)
	}
	if t.limit > 0 && t.scored >= t.limit {
		return errEvalLimit
	}
	return nil
}

// done passes on the scan's error unless it is the limit, and closes the bar.
func (t *scanTally) done(err error) error {
	if err != nil && !errors.Is(err, errEvalLimit) {
		return err
	}
	if t.bar != nil {
		t.bar.Finish()
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
