package datagen

import (
	"fmt"

	"github.com/dchess/dchess/internal/jobarray"
)

// Text is the result as dchess datagen prints it: the games played and
// what became of their positions, then what was written; or, for task
// that was finished before, that there was nothing to do.
func (r *Result) Text(task jobarray.Spec) string {
	if r.Skipped {
		return fmt.Sprintf("task %s was already played into %s with these settings (%d positions); nothing to do\n", task, r.Output, r.Records)
	}
	games, resumed := 0, 0
	if r.Play != nil {
		games, resumed = r.Play.Games, r.Play.Resumed
	}
	return fmt.Sprintf("played %d games (%d from an interrupted run's journal); %d positions: %d without a score, %d in check, %d captures, %d beyond the score bound, %d duplicates left out\n",
		games, resumed, r.Positions, r.Unscored, r.InCheck, r.Captures, r.Beyond, r.Duplicates) +
		fmt.Sprintf("wrote %d labelled positions to %s (games in %s) in %.1fs: %.1f positions/s\n",
			r.Records, r.Output, r.Games, r.Seconds, r.RecordsPerSecond())
}
