package ingest

import (
	"fmt"
	"strings"
)

// NoRecordsError reports an input that gave no position: a file of the
// wrong format, one whose every game or line is bad, or filters that
// leave nothing. Run stops at it, so a dataset is never made of nothing
// while the command says it succeeded.
type NoRecordsError struct {
	Input  string
	Reason string
}

func (e *NoRecordsError) Error() string {
	name := e.Input
	if name == Stdin {
		name = "standard input"
	}
	return fmt.Sprintf("%s gave no position: %s", name, e.Reason)
}

// noRecords says why the input just read gave no record; before holds
// the counts from before it.
func (r *runner) noRecords(name string, before *Summary) *NoRecordsError {
	s := r.sum
	var why string
	if r.opts.Format == FormatPGN {
		read := s.GamesRead - before.GamesRead
		if read == 0 {
			why = "it holds no game (is it PGN? --format names the other inputs)"
		} else {
			var parts []string
			add := func(n int64, what string) {
				if n > 0 {
					parts = append(parts, fmt.Sprintf("%d %s", n, what))
				}
			}
			add(s.SkippedMalformed-before.SkippedMalformed, "malformed")
			add(s.SkippedIllegal-before.SkippedIllegal, "with an illegal move")
			add(s.SkippedVariant-before.SkippedVariant, "not standard chess")
			if n := s.SkippedFiltered - before.SkippedFiltered; n > 0 {
				add(n, "filtered out"+r.filters())
			}
			why = fmt.Sprintf("none of its %d games gave one: %s", read, strings.Join(parts, ", "))
		}
	} else {
		read := s.LinesRead - before.LinesRead
		if read == 0 {
			why = "it holds no line of data"
		} else {
			var parts []string
			if n := s.LinesBad - before.LinesBad; n > 0 {
				parts = append(parts, fmt.Sprintf("%d could not be read as %s", n, r.opts.Format))
			}
			if n := s.LinesFiltered - before.LinesFiltered; n > 0 {
				parts = append(parts, fmt.Sprintf("%d filtered out%s", n, r.filters()))
			}
			why = fmt.Sprintf("none of its %d lines gave one: %s", read, strings.Join(parts, ", "))
		}
	}
	if r.firstErr != "" {
		why += "; the first problem: " + r.firstErr
	}
	return &NoRecordsError{Input: name, Reason: why}
}

// filters names the filters in use, as the flags of dchess ingest.
func (r *runner) filters() string {
	o := r.opts
	var f []string
	if o.MinElo > 0 {
		f = append(f, fmt.Sprintf("--min-elo %d", o.MinElo))
	}
	if o.MaxElo > 0 {
		f = append(f, fmt.Sprintf("--max-elo %d", o.MaxElo))
	}
	if o.TimeControl != "" {
		f = append(f, fmt.Sprintf("--time-control %q", o.TimeControl))
	}
	if o.Termination != "" {
		f = append(f, fmt.Sprintf("--termination %q", o.Termination))
	}
	if o.MinPly > 0 {
		f = append(f, fmt.Sprintf("--min-ply %d", o.MinPly))
	}
	if o.MaxPly > 0 {
		f = append(f, fmt.Sprintf("--max-ply %d", o.MaxPly))
	}
	if o.SkipCaptures {
		f = append(f, "--skip-captures")
	}
	if len(f) == 0 {
		return ""
	}
	return " by " + strings.Join(f, " ")
}

// checkYield fails a run that gave no position at all, with the first
// input's reason; when others gave positions, the inputs that gave none
// are reported as problems and the run goes on to write what it has.
func (r *runner) checkYield(err error, empty []*NoRecordsError) error {
	if err != nil || len(empty) == 0 {
		return err
	}
	if r.sum.Positions == 0 {
		e := *empty[0]
		if n := len(empty) - 1; n > 0 {
			e.Reason += fmt.Sprintf(" (and the %d other inputs gave none either)", n)
		}
		return &e
	}
	for _, e := range empty {
		r.sum.Errors++
		if len(r.sum.FirstErrors) < MaxReportedErrors {
			r.sum.FirstErrors = append(r.sum.FirstErrors, e.Error())
		}
	}
	return nil
}
