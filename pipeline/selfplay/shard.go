package selfplay

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/dchess/dchess/internal/safefile"

	"github.com/dchess/dchess/internal/jobarray"
	"github.com/dchess/dchess/search/match"
)

// A self-play task's folder holds its games and, once they are all
// played, its manifest.
const (
	ShardPGN      = "games.pgn"
	ShardManifest = "manifest.json"
)

// ShardOptions describe one task of a sharded self-play run.
type ShardOptions struct {
	// Play is the whole run; the task sets its Pairs and Output.
	Play Options
	// Run is what the whole run's games depend on, as it was asked for;
	// the self-play settings of Play are added to it.
	Run     match.ShardRun
	Shard   jobarray.Spec
	Command []string
	// Base names the task's folder: Base-000i-of-000n.
	Base string
	// OnStart, if not nil, is told how many games the task has and how many
	// of them a killed run's journal holds, before the first game; a
	// finished task or one that owns no pairs plays none and is not told.
	OnStart func(games, resumed int)
}

// ShardResult is what a task did.
type ShardResult struct {
	// Dir is the task's folder.
	Dir string
	// Skipped: the task was finished before with the same settings.
	Skipped bool
	// Played is the task's run: nil when skipped or when the task owns
	// no pairs (more tasks than pairs), and then its games.pgn is empty.
	Played *Result
}

// RunShard plays one task of a sharded self-play run: the game pairs
// jobarray.Spec.Indices assigns it, seeded by the settings hash (the same
// settings as a sharded match's, with the self-play ones added), so every
// task of a job agrees on its share without talking, and each game keeps
// the opening, colours and seed it has in the whole run. The games go to
// Base-000i-of-000n/games.pgn and the manifest, last, marks the task
// finished: a rerun with the same settings does nothing, one with other
// settings is refused. A killed task continues from its journal, as Run
// does.
func RunShard(ctx context.Context, opts ShardOptions) (ShardResult, error) {
	sp := opts.Play
	settings, inputs, err := match.ShardSettings(ctx, opts.Run, sp.Match, opts.Shard.Count)
	if err != nil {
		return ShardResult{}, err
	}
	settings["kind"] = "selfplay"
	settings["balance"], settings["balance_depth"] = sp.BalanceCP, sp.BalanceDepth
	settings["random_rate"], settings["random_rate_plies"] = sp.RandomRate, sp.RandomPlies
	info := jobarray.NewInfo(opts.Shard, opts.Command, settings)
	info.Inputs = append(info.Inputs, inputs...)

	res := ShardResult{Dir: jobarray.Name(opts.Base, opts.Shard)}
	manifest := filepath.Join(res.Dir, ShardManifest)
	if data, err := os.ReadFile(manifest); err == nil {
		var done jobarray.Info
		if err := json.Unmarshal(data, &done); err != nil {
			return res, fmt.Errorf("%s: %w", manifest, err)
		}
		if diffs := done.Differences(info); len(diffs) > 0 {
			return res, fmt.Errorf("%s was played with other settings (%s); remove it or use another -o", res.Dir, strings.Join(diffs, "; "))
		}
		res.Skipped = true
		return res, nil
	}
	// The task folder is the run's own; a finished task returned above.
	// A killed task leaves its journal there.
	journal := filepath.Base(Journal(ShardPGN))
	own := func(name string) bool {
		return strings.HasPrefix(name, ShardPGN) || strings.HasPrefix(name, ShardManifest) ||
			strings.HasPrefix(name, ".tmp-") || safefile.IsTemp(name) || name == journal
	}
	if err := safefile.CheckOutputFolder(res.Dir, own); err != nil {
		return res, err
	}
	if err := os.MkdirAll(res.Dir, 0o755); err != nil {
		return res, err
	}
	sp.Pairs = opts.Shard.Indices((sp.Games+1)/2, jobarray.Seed(info.SettingsHash))
	sp.Output = filepath.Join(res.Dir, ShardPGN)
	if len(sp.Pairs) == 0 {
		// More tasks than pairs: this task owns nothing, and says so.
		if err := safefile.WriteFile(sp.Output, nil); err != nil {
			return res, err
		}
	} else {
		if opts.OnStart != nil {
			sp.OnStart = opts.OnStart
		}
		if res.Played, err = Run(ctx, sp); err != nil {
			return res, err
		}
	}
	data, err := json.MarshalIndent(info, "", "  ")
	if err != nil {
		return res, err
	}
	// The manifest goes last: its presence marks the task finished.
	return res, safefile.WriteFile(manifest, append(data, '\n'))
}
