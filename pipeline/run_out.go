package pipeline

import (
	"fmt"
	"strings"

	"github.com/dchess/dchess/dataset"
)

// runEntries are the names a run writes directly under Out (the two
// summaries are the selfplay and train stages' own).
var runEntries = []string{RunGames, RunPositions, RunLabelled, strings.Split(RunTrainDir, "/")[0], RunModel,
	RunExperienceFirst, RunExperience, RunLearningGames, RunTournament, RunTournamentGames, RunTimings, RunReportDir,
	"selfplay.json", "train.json"}

// runOwns says whether an entry of Out is a run's file or one of its
// temporaries: ".tmp-NAME", ".NAME.tmp-…", "NAME.partial", "NAME-journal".
func runOwns(name string) bool {
	name = strings.TrimPrefix(strings.TrimPrefix(name, "."), "tmp-")
	for _, own := range runEntries {
		if name == own || strings.HasPrefix(name, own+".") || strings.HasPrefix(name, own+"-") {
			return true
		}
	}
	return false
}

// checkOut refuses an Out that is the root or home folder or holds files a
// run did not write: a run fills it with its own files.
func checkOut(out string) error {
	if err := dataset.CheckOutputFolder(out, runOwns); err != nil {
		return fmt.Errorf("out: %w", err)
	}
	return nil
}
