package match_test

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/dchess/dchess/internal/jobarray"
)

// TestShardSummaryText: a task that played says how many games and how to
// merge; run again, it says there was nothing to do. Both lead with the
// report of the task's games.
func TestShardSummaryText(t *testing.T) {
	base := filepath.Join(t.TempDir(), "m")
	spec := jobarray.Spec{Index: 1, Count: 2}
	sum := runShard(t, shardedConfig(t), base, spec, shardedSettings(1))
	out := jobarray.Name(base, spec)
	text := sum.Text(base)
	want := "Task 1/2: " + strconv.Itoa(sum.Played) + " games in " + out + " (0 continued from a stopped run); merge the tasks with: dchess match merge " + base + "\n"
	if !strings.HasPrefix(text, sum.Report.Text()) || !strings.HasSuffix(text, want) {
		t.Errorf("played:\n%s\nwant the report, then %q", text, want)
	}
	again := runShard(t, shardedConfig(t), base, spec, shardedSettings(1))
	if want := "Task 1/2 was already played into " + out + " with these settings; nothing to do\n"; !again.Skipped || !strings.HasSuffix(again.Text(base), want) {
		t.Errorf("again:\n%s\nwant it to end %q", again.Text(base), want)
	}
}
