package selfplay

import (
	"context"
	"errors"
	"fmt"
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
// folder. A run stopped part way fails with an *InterruptedError.
func RunToFile(ctx context.Context, opts FileOptions) (FileResult, error) {
	if !opts.Sharded {
		if err := safefile.CheckOutputFile(opts.Play.Output, opts.Play.Restart); err != nil {
			return FileResult{}, err
		}
		res, err := Run(ctx, opts.Play)
		return FileResult{Output: opts.Play.Output, Played: res}, Interrupted("selfplay", err, res, opts.Play.Output, opts.Play.Output)
	}
	task, err := RunShard(ctx, ShardOptions{Play: opts.Play, Run: opts.Run, Shard: opts.Shard, Command: opts.Command,
		Base: opts.Play.Output, OnStart: opts.Play.OnStart})
	out := filepath.Join(task.Dir, ShardPGN)
	return FileResult{Output: out, Dir: task.Dir, Skipped: task.Skipped, Played: task.Played}, Interrupted("selfplay", err, task.Played, out, out)
}

// InterruptedError is a run stopped part way (its context cancelled, as
// Ctrl-C does) after games were played: it says where they are kept and
// that the run's output was not written, so the same command continues.
type InterruptedError struct {
	// Run names the run: "selfplay", "datagen".
	Run string
	// Games were played; the journal of GamesFile keeps them.
	Games     int
	GamesFile string
	// Output is what was not written.
	Output string
	Err    error
}

func (e *InterruptedError) Error() string {
	return fmt.Sprintf("%s interrupted with %d games played, kept in %s; %s was not written: run the same command again to continue",
		e.Run, e.Games, Journal(e.GamesFile), e.Output)
}

func (e *InterruptedError) Unwrap() error { return e.Err }

// Interrupted is err as an *InterruptedError of run when it is a
// cancellation after played, else err as it is.
func Interrupted(run string, err error, played *Result, gamesFile, output string) error {
	if !errors.Is(err, context.Canceled) || played == nil {
		return err
	}
	return &InterruptedError{Run: run, Games: played.Games, GamesFile: gamesFile, Output: output, Err: err}
}
