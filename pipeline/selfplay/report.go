package selfplay

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/dchess/dchess/search/match"
)

// Check reports the first count or rate of o that dchess selfplay and
// datagen cannot play, in the words of their flags; Run refuses the same
// game count.
func (o Options) Check() error {
	switch {
	case o.Games < 1 || o.Games > match.MaxGames:
		return fmt.Errorf("--games must be in 1..%d, got %d", match.MaxGames, o.Games)
	case !(o.RandomRate >= 0 && o.RandomRate <= 1):
		return fmt.Errorf("--random-rate must be between 0 and 1, got %v", o.RandomRate)
	case o.RandomPlies < 0 || o.BalanceCP < 0 || o.BalanceDepth < 0:
		return errors.New("--random-rate-plies, --balance and --balance-depth must not be negative")
	}
	return nil
}

// Text is the result as dchess selfplay prints it: the games this run
// played, then the results, plies and terminations of every game in the
// file, and the file.
func (r *Result) Text() string {
	var terms []string
	for k, v := range r.Terminated {
		terms = append(terms, fmt.Sprintf("%s %d", k, v))
	}
	sort.Strings(terms)
	resumed := ""
	if r.Resumed > 0 {
		resumed = fmt.Sprintf(" and took %d from an interrupted run's journal", r.Resumed)
	}
	return fmt.Sprintf("played %d games in %.1fs (%.2f games/s)%s: 1-0 %d, 0-1 %d, draws %d; %.0f plies a game\n",
		r.Games-r.Resumed, r.Seconds, r.GamesPerSecond(), resumed, r.WhiteWins, r.BlackWins, r.Draws, float64(r.Plies)/float64(max(r.Games, 1))) +
		fmt.Sprintf("terminations: %s\nwrote %s\n", strings.Join(terms, ", "), r.Output)
}
