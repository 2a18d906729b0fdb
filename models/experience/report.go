package experience

import (
	"fmt"
	"strings"
)

// BuildReport is what ImportFiles did to the tree at DB, as dchess
// experience build reports it (its --json object).
type BuildReport struct {
	ImportSummary
	DB             string  `json:"db"`
	GamesPerSecond float64 `json:"games_per_second"`
	// Inputs says per input what was done with it.
	Inputs []FileSummary `json:"inputs"`
}

// NewBuildReport is the report of an ImportFiles into db that returned
// total and perInput.
func NewBuildReport(db string, total ImportSummary, perInput []FileSummary) BuildReport {
	return BuildReport{ImportSummary: total, DB: db, GamesPerSecond: total.GamesPerSecond(), Inputs: perInput}
}

// Text is the report as dchess experience build prints it: a line for each
// input that was in the tree already, continued or counted again, then
// what was added.
func (r BuildReport) Text() string {
	var w strings.Builder
	for _, p := range r.Inputs {
		switch {
		case p.AlreadyIn:
			fmt.Fprintf(&w, "%s is in the tree already (same content); nothing added (--again counts its games once more)\n", p.Input)
		case p.ResumedAt > 0:
			fmt.Fprintf(&w, "%s: an earlier build was interrupted; continued at game %d, the games before it are in the tree once\n", p.Input, p.ResumedAt)
		}
		if p.Copy > 1 && !p.AlreadyIn {
			fmt.Fprintf(&w, "%s: imported again as asked; the tree now counts its games %d times\n", p.Input, p.Copy)
		}
	}
	fmt.Fprintf(&w, "added %d games (%d plies) to %s in %.1fs (%.0f games/s); skipped %d (%d without a result)\n",
		r.Games, r.Plies, r.DB, r.Seconds, r.GamesPerSecond, r.Skipped, r.NoResult)
	return w.String()
}

// Text is the statistics as dchess experience stats prints them: the
// games and their results, the tree's size, and a table of the moves from
// the start.
func (st Stats) Text() string {
	var w strings.Builder
	fmt.Fprintf(&w, "%s: %d games (1-0 %d, 0-1 %d, 1/2-1/2 %d; %d learnt in play), %d moves from %d positions\n",
		st.Path, st.Games, st.WhiteWins, st.BlackWins, st.Draws, st.Learnt, st.Moves, st.Positions)
	if len(st.StartMoves) > 0 {
		fmt.Fprintln(&w, "From the start position:")
		fmt.Fprintf(&w, "  %-7s %8s %7s %7s %7s %7s\n", "move", "games", "1-0", "1/2", "0-1", "score")
		for _, m := range st.StartMoves {
			fmt.Fprintf(&w, "  %-7s %8d %7d %7d %7d %6.1f%%\n", m.Move, m.Games, m.WhiteWins, m.Draws, m.BlackWins, 100*m.Score)
		}
	}
	return w.String()
}
