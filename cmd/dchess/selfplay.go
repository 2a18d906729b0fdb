package main

import (
	"context"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/dchess/dchess/internal/jobarray"
	"github.com/dchess/dchess/internal/progress"
	"github.com/dchess/dchess/internal/safefile"
	"github.com/dchess/dchess/pipeline/selfplay"
	"github.com/dchess/dchess/search/match"
)

// selfPlayFlags are what selfplay and datagen share: who plays, how many
// games, how their openings and random moves vary, and the game flags.
type selfPlayFlags struct {
	A, B         string
	Games        int
	BalanceCP    int
	BalanceDepth int
	RandomRate   float64
	RandomWindow int
	gameFlags
}

// add declares the shared flags; randomRate is --random-rate's usage, which
// says what becomes of a random move's position.
func (f *selfPlayFlags) add(cmd *cobra.Command, randomRate string) {
	fl := cmd.Flags()
	fl.StringVar(&f.A, "a", "", "player SPEC (required)")
	fl.StringVar(&f.B, "b", "", "opponent SPEC (default: the same as --a)")
	fl.IntVar(&f.Games, "games", 100, "number of games")
	fl.IntVar(&f.BalanceCP, "balance", selfplay.DefaultBalanceCP, "keep generated openings the heuristic scores within ±this many centipawns (0: any)")
	fl.IntVar(&f.BalanceDepth, "balance-depth", selfplay.DefaultBalanceDepth, "search depth of the --balance check")
	fl.Float64Var(&f.RandomRate, "random-rate", 0, randomRate)
	fl.IntVar(&f.RandomWindow, "random-rate-plies", 0, "apply --random-rate in the first N plies of each game only (0: all)")
	f.gameFlags.add(cmd)
	// Self-play openings are longer than a match's by default: more variety.
	if flag := fl.Lookup("random-plies"); flag != nil {
		flag.DefValue = fmt.Sprint(selfplay.DefaultOpeningPlies)
		_ = flag.Value.Set(flag.DefValue)
	}
	// The games go to -o; --pgn belongs to match and tournament.
	_ = fl.MarkHidden("pgn")
}

// selfPlayRun is what the shared flags make: the self-play options (the
// caller sets where the games go), the job-array task, --b (or --a), and
// the progress bar the options' hooks drive.
type selfPlayRun struct {
	play  selfplay.Options
	shard jobarray.Spec
	b     string
	bar   progress.Reporter
}

// plan checks the shared flags and makes the run; verb names it in the
// messages ("Self-play", "Datagen") and progress names its bar.
func (f *selfPlayFlags) plan(s *IOStreams, shard string, restart bool, verb, progress string) (*selfPlayRun, error) {
	r := &selfPlayRun{b: f.B, play: selfplay.Options{A: f.A, B: f.B, Games: f.Games,
		OpeningPlies: f.RandomPlies, BalanceCP: f.BalanceCP, BalanceDepth: f.BalanceDepth,
		RandomRate: f.RandomRate, RandomPlies: f.RandomWindow, Restart: restart}}
	if err := r.play.Check(); err != nil {
		return nil, usagef("%v", err)
	}
	if r.b == "" {
		r.b = f.A
	}
	if shard != "" {
		var err error
		if r.shard, err = jobarray.Parse(shard, nil); err != nil {
			return nil, usagef("--shard: %v", err)
		}
	}
	for flag, spec := range map[string]string{"a": f.A, "b": f.B} {
		if spec == "" {
			continue
		}
		if _, err := entrantFromFlag(flag, spec); err != nil {
			return nil, err
		}
	}
	cfg, err := f.Settings.Config((f.Games + 1) / 2)
	if err != nil {
		return nil, err
	}
	r.play.Match = cfg
	r.play.OnStart = func(games, resumed int) {
		s.Infof("%s %s vs %s: %d games, %s\n", verb, f.A, r.b, games, match.LimitText(cfg))
		if resumed > 0 {
			s.Infof("continuing an interrupted run: %d of the games are in its journal\n", resumed)
		}
		r.bar = s.Progress(progress, int64(games-resumed), "games")
	}
	r.play.OnGame = func(match.GameResult, *match.Report) {
		if r.bar != nil {
			r.bar.Add(1)
		}
	}
	return r, nil
}

// finish closes the progress bar, done or stopped by err.
func (r *selfPlayRun) finish(err error) {
	if r.bar != nil {
		progress.End(r.bar, err)
		r.bar = nil
	}
}

type selfPlayOptions struct {
	selfPlayFlags
	Out   string
	JSON  bool
	Force bool
	// Shard makes the run one task of a job array (i/n or auto/n); -o
	// then names the task outputs NAME-000i-of-000n/.
	Shard   string
	Command []string
}

func newSelfPlayCmd(s *IOStreams) *cobra.Command {
	opts := &selfPlayOptions{}
	cmd := &cobra.Command{
		Use:   "selfplay --a SPEC [--b SPEC] --games N -o GAMES.pgn",
		Short: "Play games between dchess's own players and write them as PGN",
		Long: `selfplay plays --games games of --a against --b (itself when --b is not given) through
the match runner and writes them, with results and start positions, to a PGN file that
dchess ingest and dchess experience build read. The file appears only when every game
is played, with the games in game order whatever --concurrency. Until then each finished
game is kept in a hidden journal beside it, .NAME.journal.jsonl, so a run that is stopped
or killed loses only the games in progress: the same command run again plays only the
games the journal lacks and writes the file an uninterrupted run writes. A journal of
other settings is refused; --force starts over.

Each opening is played twice with colours swapped. Without --openings they are generated:
--random-plies random legal moves, kept only when the heuristic searching --balance-depth
plies scores the position within ±--balance centipawns, so games do not start lost.
--random-rate makes that share of each player's moves (in the first --random-rate-plies
plies; 0: all) a random legal move, so a player against itself does not replay one game.

With --shard i/n the command is task i of a job array of n: it plays its share of the
game pairs (each with the opening, colours and seed it has in the whole run) into
NAME-000i-of-000n/games.pgn with a manifest.json, and a rerun of a finished task does
nothing (of a killed one, continues from its journal). The tasks' games together are the games of one unsharded run; ingest reads
them all with a glob.`,
		Example: `  dchess selfplay --a heuristic:depth=2 --games 200 -o games.pgn --concurrency 2
  dchess selfplay --a heuristic:depth=2 --games 200 -o games.pgn --force   # replace games.pgn, start over
  dchess selfplay --a heuristic:depth=2 --b heuristic:depth=3 --games 1000 --random-rate 0.05 -o games.pgn
  dchess selfplay --a cnn --b "experience:exp.db?learn=true" --openings book.epd --games 100 -o learn.pgn --json
  dchess selfplay --a heuristic:depth=3 --games 100000 --random-rate 0.05 --shard auto/64 -o /shared/games
  dchess ingest '/shared/games-*-of-0064/games.pgn' -o data/games`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.Command = os.Args
			return runSelfPlay(cmd.Context(), opts, s)
		},
	}
	opts.selfPlayFlags.add(cmd, "share of moves replaced by a random legal move (0 to 1)")
	f := cmd.Flags()
	f.StringVarP(&opts.Out, "out", "o", "", "PGN file to write (required)")
	f.BoolVar(&opts.JSON, "json", false, "print the summary as one JSON object")
	f.BoolVar(&opts.Force, "force", false, "replace the -o file if it exists, and start over instead of continuing an interrupted run's journal")
	f.StringVar(&opts.Shard, "shard", "", "play task i of n of a job array (i/n, or auto/n from the batch system's task index): -o NAME gives NAME-000i-of-000n/games.pgn")
	return cmd
}

func runSelfPlay(ctx context.Context, opts *selfPlayOptions, s *IOStreams) error {
	switch {
	case opts.Shard != "" && opts.Out == "":
		return usagef("--shard needs -o NAME: task i of n writes NAME-000i-of-000n/%s", selfplay.ShardPGN)
	case opts.A == "":
		return usagef("--a is required (a player SPEC such as heuristic:depth=2)")
	case opts.Out == "":
		return usagef("selfplay needs an output file: -o GAMES.pgn")
	case opts.PGN != "":
		return usagef("selfplay writes its games to -o FILE, not --pgn")
	}
	if opts.Shard == "" {
		// Before any engine starts: the file may hold someone's games.
		if err := safefile.CheckOutputFile(opts.Out, opts.Force); err != nil {
			return err
		}
	}
	r, err := opts.selfPlayFlags.plan(s, opts.Shard, opts.Force, "Self-play", "selfplay")
	if err != nil {
		return err
	}
	play := r.play
	play.Output = opts.Out
	run, err := selfplay.RunToFile(ctx, selfplay.FileOptions{Play: play, Sharded: opts.Shard != "", Shard: r.shard,
		Run: opts.Settings.ShardRun(opts.A, r.b, opts.Games, ""), Command: opts.Command})
	if err == nil && run.Skipped {
		fmt.Fprintf(s.Out, "task %s was already played into %s with these settings; nothing to do\n", r.shard, run.Dir)
		return nil
	}
	r.finish(err)
	res := run.Played
	if err != nil {
		return err
	}
	if res == nil {
		// A task that owns no pairs (more tasks than pairs) plays nothing.
		return nil
	}
	return s.printReport(opts.JSON, struct {
		*selfplay.Result
		GamesPerSecond float64 `json:"games_per_second"`
	}{res, res.GamesPerSecond()}, res.Text)
}
