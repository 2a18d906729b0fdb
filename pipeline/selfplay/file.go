package selfplay

import (
	"context"
	"path/filepath"

	"github.com/dchess/dchess/internal/jobarray"
	"github.com/dchess/dchess/internal/safefile"
	"github.com/dchess/dchess/search/match"
)

// FileOptions are a self-play run as dchess selfplay makes it: into the
// PGN file Play.Output, which is replaced only with Play.Restart, or with
// Sharded as task Shard of a job array into the folder
// jobarray.Name(Play.Output, Shard) (RunShard, with Run and Command).
type FileOptions struct {
	Play    Options
	Sharded bool
	Shard   jobarray.Spec
	Run     match.ShardRun
	Command []string
}

// FileResult is what RunToFile did.
type FileResult struct {
	// Output is the PGN file the games go to; Dir a task's folder.
	Output, Dir string
	// Skipped: the task was finished before with the same settings.
	Skipped bool
	// Played is the run: nil when skipped, when a task owns no pairs, or
	// when the run failed before its first game.
	Played *Result
}

// RunToFile plays the run into its PGN file or, sharded, into its task's
// folder.
func RunToFile(ctx context.Context, opts FileOptions) (FileResult, error) {
	if !opts.Sharded {
		if err := safefile.CheckOutputFile(opts.Play.Output, opts.Play.Restart); err != nil {
			return FileResult{}, err
		}
		res, err := Run(ctx, opts.Play)
		return FileResult{Output: opts.Play.Output, Played: res}, err
	}
	task, err := RunShard(ctx, ShardOptions{Play: opts.Play, Run: opts.Run, Shard: opts.Shard, Command: opts.Command,
		Base: opts.Play.Output, OnStart: opts.Play.OnStart})
	return FileResult{Output: filepath.Join(task.Dir, ShardPGN), Dir: task.Dir, Skipped: task.Skipped, Played: task.Played}, err
}
