package tournament

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/dchess/dchess/search/elo"
)

// Text is st as `dchess tournament` prints it: the ratings table, the
// anchors and the fit's prior, then each pairing's score and Elo
// difference.
func (st *Standings) Text() string {
	var w strings.Builder
	tw := tabwriter.NewWriter(&w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "Rank\tName\tElo\t+/-\tGames\tScore\t")
	for _, p := range st.Players {
		fmt.Fprintf(tw, "%d\t%s\t%.1f\t%.1f\t%d\t%.1f %%\t\n", p.Rank, p.Name, float64(p.Elo), float64(p.Error), p.Games, 100*p.Score)
	}
	tw.Flush()
	label := "Anchor"
	if len(st.Anchors) > 1 {
		label = "Anchors"
	}
	list := make([]string, len(st.Anchors))
	for i, a := range st.Anchors {
		list[i] = fmt.Sprintf("%s = %g", a.Name, a.Elo)
	}
	fmt.Fprintf(&w, "%s: %s; the fit's prior: %s\n", label, strings.Join(list, ", "), st.Prior)
	for _, p := range st.Pairs {
		fmt.Fprintf(&w, "%s vs %s: +%d -%d =%d, Elo difference %s\n", p.A, p.B, p.Wins, p.Losses, p.Draws,
			elo.FormatDiff(elo.FromWDL(p.Wins, p.Losses, p.Draws)))
	}
	return w.String()
}

// Games is how many games the pairings of st count.
func (st *Standings) Games() int {
	games := 0
	for _, p := range st.Pairs {
		games += p.Wins + p.Losses + p.Draws
	}
	return games
}
