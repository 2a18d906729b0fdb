package pipeline

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/dchess/dchess/internal/safefile"
)

// entries are the names a run writes directly under Out: the stages'
// outputs and summaries, and each training's weights and result.
func (c *RunConfig) entries() []string {
	out := []string{RunGames, RunPositions, RunLabelled, "runs", RunExperienceFirst, RunExperience, RunLearningGames,
		RunEvaluation, RunTournament, RunTournamentGames, RunTimings, RunReportDir, "selfplay.json"}
	for _, t := range c.Train {
		out = append(out, filepath.Base(c.weights(t)), filepath.Base(c.TrainResultFile(t)))
	}
	return out
}

// owns says whether an entry of Out is a run's file or one of its
// temporaries: ".tmp-NAME", ".NAME.tmp-…", "NAME.partial", "NAME-journal".
func (c *RunConfig) owns(name string) bool {
	name = strings.TrimPrefix(strings.TrimPrefix(name, "."), "tmp-")
	for _, own := range c.entries() {
		if name == own || strings.HasPrefix(name, own+".") || strings.HasPrefix(name, own+"-") {
			return true
		}
	}
	return false
}

// checkOut refuses an Out that is the root or home folder or holds files a
// run did not write: a run fills it with its own files.
func (c *RunConfig) checkOut() error {
	if err := safefile.CheckOutputFolder(c.Out, c.owns); err != nil {
		return fmt.Errorf("out: %w", err)
	}
	return nil
}
