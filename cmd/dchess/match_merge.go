package main

import (
	"context"
	"strings"

	"github.com/spf13/cobra"

	"github.com/dchess/dchess/internal/safefile"
	"github.com/dchess/dchess/search/elo"
	"github.com/dchess/dchess/search/match"
)

type matchMergeOptions struct {
	Bases   []string
	PGN     string
	SPRT    string
	JSON    bool
	Partial bool
	Force   bool
}

func newMatchMergeCmd(s *IOStreams) *cobra.Command {
	opts := &matchMergeOptions{}
	cmd := &cobra.Command{
		Use:   "merge NAME [NAME...]",
		Short: "Report a sharded match from its tasks' outputs (NAME-0000-of-0064 ...)",
		Long: `merge reads the folders that "dchess match --shard i/n -o NAME" wrote, NAME-IIII-of-NNNN,
checks that every task is there, finished, from the same match (settings hash, players,
bench signature) and played the pairs assigned to it, and prints the report one run of
all the games would: score, Elo, LOS, pentanomial counts and the SPRT the tasks were
given (or --sprt). Otherwise it names the missing or mismatched task.

Several NAMEs are one series: a match continued by another with a new --seed (other
openings) and any number of games and tasks, counted as one longer match, pair by
pair, so the SPRT goes on where the first stopped. Anything else that differs (players,
weights, time control, openings file, engines) is refused and named.

With --partial it reports a match whose tasks still run or were stopped: the finished
tasks' games and the games the others have journalled so far, whole pairs only, and
says how many tasks are finished, running and not started. It only reads.`,
		Example: `  dchess match merge /shared/d5-d4
  dchess match merge /shared/d5-d4 --sprt elo0=0,elo1=5 --pgn d5-d4.pgn --json
  dchess match merge /shared/d5-d4 --pgn d5-d4.pgn --force   # replace d5-d4.pgn
  dchess match merge /shared/d5-d4 --partial
  dchess match merge /shared/d5-d4 /shared/d5-d4-seed2 --sprt elo0=0,elo1=10`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("match merge needs the NAME (the -o the tasks were given) of at least one match")
			}
			opts.Bases = args
			return runMatchMerge(cmd.Context(), opts, s)
		},
	}
	cmd.Flags().StringVar(&opts.PGN, "pgn", "", "write every task's games, in game order (match after match), to this PGN file (whole or not at all)")
	cmd.Flags().BoolVar(&opts.Force, "force", false, "replace the --pgn file if it exists")
	cmd.Flags().StringVar(&opts.SPRT, "sprt", "", "evaluate this test instead of the one the (first) match recorded: elo0=0,elo1=10,alpha=0.05,beta=0.05")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the report as one JSON object (its fields: docs/reference/json.md)")
	cmd.Flags().BoolVar(&opts.Partial, "partial", false, "report the games played so far while tasks still run (whole pairs only)")
	inputArgs(cmd, inputShards)
	return cmd
}

func runMatchMerge(_ context.Context, opts *matchMergeOptions, s *IOStreams) error {
	var test *elo.SPRT
	if opts.SPRT != "" {
		t, err := elo.ParseSPRT(opts.SPRT)
		if err != nil {
			return usagef("--sprt: %v", err)
		}
		test = &t
	}
	names := strings.Join(opts.Bases, " + ")
	if opts.Partial && opts.PGN != "" {
		return usagef("--pgn needs every task finished; drop --partial or --pgn")
	}
	if opts.PGN != "" {
		if err := safefile.CheckOutputFile(opts.PGN, opts.Force); err != nil {
			return err
		}
	}
	if opts.Partial {
		pm, err := match.MergePartialSeries(opts.Bases, test)
		if err != nil {
			return err
		}
		s.Infof("Partial merge of %s: %d of %d tasks finished, %d running or stopped, %d not started; %d games of whole pairs (%d waiting for their pair)\n",
			names, pm.Finished, pm.Tasks, pm.Running, pm.NotStarted, pm.Report.Games, pm.Dropped)
		return s.printReport(opts.JSON, pm, pm.Report.Text)
	}
	report, parts, err := match.MergeSeries(opts.Bases, test)
	if err != nil {
		return err
	}
	if opts.PGN != "" {
		if err := match.WriteSeriesPGN(opts.PGN, parts); err != nil {
			return err
		}
	}
	s.Infof("Merged %d tasks of %s: %d games\n", match.SeriesTasks(parts), names, report.Games)
	return s.printReport(opts.JSON, report, report.Text)
}
