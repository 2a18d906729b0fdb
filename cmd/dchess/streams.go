package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"

	"golang.org/x/term"

	"github.com/dchess/dchess/internal/progress"
)

// IOStreams are the streams a command reads and writes. Tests pass buffers;
// main passes the process's own streams.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
	// ErrIsTerminal says whether ErrOut is a terminal, which decides
	// whether progress bars are drawn.
	ErrIsTerminal bool
	// Quiet suppresses progress bars and informational messages.
	Quiet bool
	// ProgressInterval is how often progress lines are written when ErrOut
	// is not a terminal; progress.DefaultInterval when 0.
	ProgressInterval time.Duration
}

// SystemStreams returns the process's standard streams.
func SystemStreams() *IOStreams {
	return &IOStreams{
		In:            os.Stdin,
		Out:           os.Stdout,
		ErrOut:        os.Stderr,
		ErrIsTerminal: term.IsTerminal(int(os.Stderr.Fd())),
	}
}

// ShowProgress says whether a progress bar should be drawn on ErrOut.
func (s *IOStreams) ShowProgress() bool { return s.ErrIsTerminal && !s.Quiet }

// Progress reports a long job's progress on ErrOut: a bar on a terminal, a
// line every progress.DefaultInterval in a log, nothing with --quiet.
// total is -1 when unknown; unit names what is counted ("games", "bytes").
func (s *IOStreams) Progress(name string, total int64, unit string) progress.Reporter {
	return progress.New(s.ErrOut, s.progressOptions(name, total, unit))
}

// lazyProgress is Progress made at the first report, when library calls
// that count their own work give the total.
func (s *IOStreams) lazyProgress(name, unit string) *progress.Lazy {
	return progress.NewLazy(s.ErrOut, s.progressOptions(name, 0, unit))
}

func (s *IOStreams) progressOptions(name string, total int64, unit string) progress.Options {
	return progress.Options{Name: name, Total: total, Unit: unit, Terminal: s.ErrIsTerminal, Quiet: s.Quiet, Interval: s.ProgressInterval}
}

// Infof writes an informational line to ErrOut unless Quiet is set.
func (s *IOStreams) Infof(format string, args ...any) {
	if s.Quiet {
		return
	}
	fmt.Fprintf(s.ErrOut, format, args...)
}

// writeJSON prints v as one indented JSON object, as every --json does.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// printReport prints a command's result on Out: rep as JSON with --json
// (asJSON), else the text, made only then.
func (s *IOStreams) printReport(asJSON bool, rep any, text func() string) error {
	if asJSON {
		return writeJSON(s.Out, rep)
	}
	_, err := fmt.Fprint(s.Out, text())
	return err
}
