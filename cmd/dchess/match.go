package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/dchess/dchess/internal/jobarray"
	"github.com/dchess/dchess/internal/progress"
	"github.com/dchess/dchess/internal/safefile"
	"github.com/dchess/dchess/search/elo"
	"github.com/dchess/dchess/search/match"
)

// gameFlags are the settings match, tournament and selfplay share: how
// games are played (match.Settings), not who plays them, and where match
// and tournament write them.
type gameFlags struct {
	match.Settings
	PGN string
}

func (f *gameFlags) add(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.IntVar(&f.Concurrency, "concurrency", 1, "games played at once, each with its own player instances")
	fl.StringVar(&f.Openings, "openings", "", "EPD or PGN file of openings (default: generated, see --random-plies)")
	inputFlags(cmd, inputFile, "openings")
	fl.StringVar(&f.OpeningsOrder, "openings-order", "sequential", "order of --openings: sequential or random")
	fl.IntVar(&f.RandomPlies, "random-plies", 4, "random legal plies of each generated opening")
	fl.Uint64Var(&f.Seed, "seed", 1, "seed of generated openings, --openings-order random and random players")
	fl.StringVar(&f.TC, "tc", "", "time control [moves/]seconds[+increment], e.g. 10+0.1; a side whose time runs out loses")
	fl.IntVar(&f.Depth, "depth", 0, fmt.Sprintf("search depth of every move, capping a player's own depth= (with no limit given, a player that sets none of its own searches to depth %d)", match.DefaultDepth))
	fl.Int64Var(&f.Nodes, "nodes", 0, "nodes per move")
	fl.IntVar(&f.MoveTimeMS, "movetime", 0, "milliseconds per move")
	fl.DurationVar(&f.MoveTimeout, "move-timeout", 0, "longest a move may take without --tc before the player is judged stalled (default 60s, or 2×movetime+1s)")
	fl.DurationVar(&f.TimeMargin, "time-margin", 50*time.Millisecond, "how far past its clock a side may go before losing on time")
	fl.StringVar(&f.DrawAdj, "draw-adjudication", "", "draw when both scores stay small: movenumber=40,movecount=8,score=10")
	fl.StringVar(&f.ResignAdj, "resign-adjudication", "", "a side loses when its own score stays below -score: movecount=3,score=600")
	fl.IntVar(&f.MaxMoves, "max-moves", 0, "adjudicate a draw after this many full moves (0: no limit)")
	fl.StringVar(&f.PGN, "pgn", "", "write every game to this PGN file, whole when the run ends (a journal beside it keeps a stopped run's games)")
}

// entrantFromFlag parses a SPEC flag; a malformed spec is a usage error.
func entrantFromFlag(flag, spec string) (match.Entrant, error) {
	if spec == "" {
		return match.Entrant{}, usagef("--%s is required (a player SPEC such as heuristic, random or uci:/usr/games/stockfish)", flag)
	}
	s, err := playerFlag(flag, spec)
	if err != nil {
		return match.Entrant{}, err
	}
	return match.CheckedEntrant(context.Background(), s)
}

type matchOptions struct {
	A, B        string
	Games       int
	SPRT        string
	ReportEvery int
	JSON        bool
	Force       bool
	// Shard and Output make the run one task of a sharded match.
	Shard   string
	Output  string
	Command []string
	gameFlags
}

func newMatchCmd(s *IOStreams) *cobra.Command {
	opts := &matchOptions{}
	cmd := &cobra.Command{
		Use:   "match --a SPEC --b SPEC",
		Short: "Play an engine match and report the Elo difference",
		Long: `Plays games between two players. Each opening is played twice with colours swapped, so
results also count as game pairs (pentanomial). Without --openings, openings are
generated from --random-plies random legal moves, so no file is needed. Without
--tc, --depth, --nodes or --movetime a player searches to the depth= or nodes= of
its SPEC, and one that sets neither to depth 4; those flags bound every player's
moves, on top of its own depth= and nodes=.

An illegal move, a crash, a stall (no move within --move-timeout) or a loss on time
loses that game; the reason is in the report and the PGN, and a crashed engine is
restarted for the next game. With --sprt the match stops as soon as the test decides.

With --pgn every finished game goes first to a journal beside the PGN file
(.NAME.journal.jsonl), and the file is written from it, whole, when the match ends:
a match stopped or killed part way leaves no PGN file, and the same command run
again continues from the journal, playing only the games it lacks; the journal is
deleted when the match ends. A journal of other settings is refused; --force starts
over. An existing --pgn file is not replaced unless --force is given. Without --pgn
nothing is kept, and a stopped match starts over.

Player SPECs: random[:seed=N], heuristic[:depth=N,nodes=N,hash=MB,threads=N,search=minimax],
a model family with weights (cnn:runs/cnn/model.dcw, or a bare name for the newest
weights under runs/), uci:PATH?Option=value&..., and name=NAME in any of them. A
searching player uses one thread unless its SPEC says threads=N (Lazy SMP: the threads
share one transposition table). heuristic and the evaluation families take
proposer=SPEC (policy, diffusion or flow, bare or FAMILY:PATH): the alpha-beta searches
the root moves in that model's ranking, the hash move first (heuristic:proposer=policy).

With --shard i/n -o NAME the command is task i of a job array of n: it plays the game
pairs assigned to it (a shuffle seeded by the match settings, dealt round robin) with
the openings, colours and seeds they have in the whole match, and writes the results
and games to NAME-000i-of-000n. --shard auto/n takes i from JOB_COMPLETION_INDEX,
SLURM_ARRAY_TASK_ID, AWS_BATCH_JOB_ARRAY_INDEX or BATCH_TASK_INDEX. A task does not
stop on --sprt; "dchess match merge NAME" reports Elo, pentanomial and SPRT over all
tasks' games exactly as one run of them. A finished task is skipped when run again,
a killed one continues.`,
		Example: `  dchess match --a heuristic --b random --games 20
  dchess match --a heuristic:depth=3 --b "uci:/usr/games/stockfish?UCI_LimitStrength=true&UCI_Elo=1350" \
      --tc 10+0.1 --games 100 --concurrency 2 --pgn games.pgn   # rerun to continue; --force to replace games.pgn
  dchess match --a cnn --b heuristic --openings book.epd --openings-order random \
      --sprt elo0=0,elo1=10,alpha=0.05,beta=0.05 --games 2000 --json
  dchess match --a heuristic:depth=5 --b heuristic:depth=4 --games 20000 --shard auto/100 -o /shared/d5-d4
  dchess match merge /shared/d5-d4 --sprt elo0=0,elo1=10`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.Command = os.Args
			return runMatch(cmd.Context(), opts, s)
		},
	}
	// -a and -b too: cobra completes a one-letter flag's value only through
	// its shorthand.
	cmd.Flags().StringVarP(&opts.A, "a", "a", "", "first player SPEC (results are from its side)")
	cmd.Flags().StringVarP(&opts.B, "b", "b", "", "second player SPEC")
	cmd.Flags().IntVar(&opts.Games, "games", 20, "number of games (pairs of two with colours swapped)")
	cmd.Flags().StringVar(&opts.SPRT, "sprt", "", "stop when the test decides: elo0=0,elo1=10,alpha=0.05,beta=0.05")
	cmd.Flags().IntVar(&opts.ReportEvery, "report-every", 10, "print the score so far every N games (0: never)")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the report as one JSON object (its fields: docs/reference/json.md)")
	cmd.Flags().BoolVar(&opts.Force, "force", false, "replace the --pgn file if it exists, and start over instead of continuing an interrupted run's journal")
	cmd.Flags().StringVar(&opts.Shard, "shard", "", "play task i of n of a job array (i/n, or auto/n from the batch system's task index); needs -o")
	cmd.Flags().StringVarP(&opts.Output, "output", "o", "", "with --shard: write the task's results and games to NAME-000i-of-000n")
	opts.gameFlags.add(cmd)
	cmd.AddCommand(newMatchMergeCmd(s))
	return cmd
}

func runMatch(ctx context.Context, opts *matchOptions, s *IOStreams) error {
	if opts.PGN != "" && opts.Shard == "" && opts.Output == "" {
		// Before any engine starts, as selfplay -o: the file may hold someone's games.
		if err := safefile.CheckOutputFile(opts.PGN, opts.Force); err != nil {
			return err
		}
	}
	a, err := entrantFromFlag("a", opts.A)
	if err != nil {
		return err
	}
	b, err := entrantFromFlag("b", opts.B)
	if err != nil {
		return err
	}
	if opts.Games < 1 || opts.Games > match.MaxGames {
		return usagef("--games must be in 1..%d, got %d", match.MaxGames, opts.Games)
	}
	if opts.ReportEvery < 0 {
		return usagef("--report-every must not be negative")
	}
	cfg, err := opts.Settings.Config((opts.Games + 1) / 2)
	if err != nil {
		return err
	}
	cfg.A, cfg.B, cfg.Games = a, b, opts.Games
	// The PGN says when each game was played, as cutechess-cli's does.
	cfg.PGNTimes = true
	if opts.SPRT != "" {
		test, err := elo.ParseSPRT(opts.SPRT)
		if err != nil {
			return usagef("--sprt: %v", err)
		}
		cfg.SPRT = &test
	}
	if opts.Shard != "" || opts.Output != "" {
		return runMatchShard(ctx, opts, cfg, s)
	}
	var bar progress.Reporter
	start := func(games, resumed int) {
		s.Infof("Match %s vs %s: %d games, %s\n", opts.A, opts.B, games, match.LimitText(cfg))
		if resumed > 0 {
			s.Infof("continuing an interrupted match: %d of the games are in its journal %s\n", resumed, match.JournalBeside(opts.PGN))
		}
		bar = s.Progress("match", int64(games-resumed), "games")
	}
	cfg.OnGame = func(g match.GameResult, rep *match.Report) {
		bar.Add(1)
		printSpeedWarning(s, bar, rep)
		if lines := rep.InterimLines(opts.ReportEvery); len(lines) > 0 && !s.Quiet {
			bar.Clear()
			for _, line := range lines {
				fmt.Fprintln(s.ErrOut, line)
			}
		}
	}
	rep, runErr := match.Play(ctx, match.PlayOptions{Config: cfg, Run: opts.Settings.ShardRun(opts.A, opts.B, opts.Games, opts.SPRT),
		PGN: opts.PGN, Restart: opts.Force, OnStart: start})
	if bar != nil {
		progress.End(bar, runErr)
	}
	if rep == nil {
		return runErr
	}
	if err := s.printReport(opts.JSON, rep, rep.Text); err != nil {
		return err
	}
	return runErr
}

// runMatchShard plays one task of a sharded match.
func runMatchShard(ctx context.Context, opts *matchOptions, cfg match.Config, s *IOStreams) error {
	switch {
	case opts.Shard == "":
		return usagef("-o writes one task of a sharded match; give --shard i/n too (--shard 0/1 for the whole match)")
	case opts.Output == "":
		return usagef("--shard needs -o NAME: task i of n writes NAME-000i-of-000n")
	case opts.PGN != "":
		return usagef("with --shard the games go to NAME-000i-of-000n/%s; \"dchess match merge NAME --pgn FILE\" joins them", match.ShardPGNFile)
	}
	spec, err := jobarray.Parse(opts.Shard, nil)
	if err != nil {
		return usagef("--shard: %v", err)
	}
	settings, inputs, err := match.ShardSettings(ctx, opts.Settings.ShardRun(opts.A, opts.B, opts.Games, opts.SPRT), cfg, spec.Count)
	if err != nil {
		return err
	}
	numbers := match.ShardGameNumbers(cfg.Games, spec, settings)
	out := jobarray.Name(opts.Output, spec)
	s.Infof("Match %s vs %s, task %s: %d of %d games, %s, into %s\n", opts.A, opts.B, spec, len(numbers), opts.Games, match.LimitText(cfg), out)
	// The bar counts this run's games, as label's does: a continued task's
	// journalled games are left out of its count and its rate.
	bar := s.lazyProgress("match", "games")
	cfg.OnGame = func(_ match.GameResult, rep *match.Report) { printSpeedWarning(s, bar, rep) }
	sum, err := match.RunShard(ctx, match.ShardOptions{Config: cfg, Shard: spec, Output: out, Command: opts.Command,
		Settings: settings, Inputs: inputs, OnProgress: func(played, toPlay int) { bar.Set(int64(played), int64(toPlay)) }})
	bar.End(err)
	if err != nil {
		return err
	}
	return s.printReport(opts.JSON, sum, func() string { return sum.Text(opts.Output) })
}

// printSpeedWarning prints, above bar and under --quiet too, the report's
// warning that a player searched far slower than usual in the last game.
func printSpeedWarning(s *IOStreams, bar interface{ Clear() }, rep *match.Report) {
	if w := rep.SpeedWarning(); w != "" {
		bar.Clear()
		fmt.Fprintln(s.ErrOut, w)
	}
}
