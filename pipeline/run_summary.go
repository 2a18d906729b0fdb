package pipeline

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/dchess/dchess/search/tournament"
)

// RunSummary is what a finished pipeline run made: where its report is
// and what each stage did. It is dchess pipeline run's --json object.
type RunSummary struct {
	Report string        `json:"report"`
	Stages []StageResult `json:"stages"`
	// standings are the tournament's ratings, nil when it has none.
	standings *tournament.Standings
}

// Summarize is the summary of the run of cfg whose stages Run returned.
func Summarize(cfg *RunConfig, stages []StageResult) RunSummary {
	sum := RunSummary{Report: filepath.Join(cfg.Out, RunReportDir, ReportFile), Stages: stages}
	if st, err := ReadStandings(cfg); err == nil {
		sum.standings = st
	}
	return sum
}

// Text is the summary as dchess pipeline run prints it: the tournament's
// ratings, then how many stages ran and for how long, how many were done
// before, and where the report is.
func (s RunSummary) Text() string {
	var w strings.Builder
	var ran, skipped int
	var seconds float64
	for _, st := range s.Stages {
		if st.Skipped {
			skipped++
		} else {
			ran++
			seconds += st.Seconds
		}
	}
	if st := s.standings; st != nil {
		fmt.Fprintf(&w, "%-4s %-24s %8s %8s\n", "Rank", "Player", "Elo", "+/-")
		for _, p := range st.Players {
			fmt.Fprintf(&w, "%-4d %-24s %8.0f %8.0f\n", p.Rank, p.Name, float64(p.Elo), float64(p.Error))
		}
	}
	fmt.Fprintf(&w, "%d stages run in %.0fs, %d done before; report: %s\n", ran, seconds, skipped, s.Report)
	return w.String()
}
