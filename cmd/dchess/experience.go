package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/dchess/dchess/dataset/ingest"
	"github.com/dchess/dchess/models/experience"
)

func newExperienceCmd(s *IOStreams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "experience",
		Short: "Build and inspect Deep Red's experience tree (SQLite)",
		Long: `The experience tree is Deep Red's memory (seed 002): one row per move from a parent
position to a child position, with the side that moved and the White-win, Black-win
and draw counts of the games that played it. It is a SQLite file: the experience:FILE
player reads it, and the sqlite3 shell can query it (schema in docs/guide/train.md).`,
		Example: `  dchess experience build ../shared/data/pgn/Kasparov.pgn --db exp.db
  dchess experience stats --db exp.db
  sqlite3 exp.db "SELECT move, white_wins, black_wins, draws FROM moves ORDER BY white_wins+black_wins+draws DESC LIMIT 5"`,
		Args: cobra.NoArgs,
	}
	cmd.AddCommand(newExperienceBuildCmd(s), newExperienceStatsCmd(s))
	return cmd
}

type experienceBuildOptions struct {
	Inputs []string
	DB     string
	Again  bool
	JSON   bool
}

func newExperienceBuildCmd(s *IOStreams) *cobra.Command {
	opts := &experienceBuildOptions{}
	cmd := &cobra.Command{
		Use:   "build GAMES.pgn... --db FILE",
		Short: "Add PGN games to an experience tree",
		Long: `build adds every game with a result (1-0, 0-1, 1/2-1/2) to the tree, creating the file
if needed. Inputs are PGN files, globs, or - for stdin (zcat a compressed file into it).
Games with "*" or an illegal move are skipped and counted. Games go in 2000 per transaction: an
interrupted build keeps whole batches, never part of a game.

The tree records each input by its content's SHA-256 and how far its import got: the same
command run again after an interruption adds only the games not yet in, and a file already
imported completely adds nothing. --again imports such a file once more, counting its games
a second (third...) time; a file whose content changed is a new input.`,
		Example: `  dchess experience build games.pgn --db exp.db
  dchess experience build '../shared/data/pgn/*.pgn' --db masters.db --json
  dchess experience build games.pgn --db exp.db --again     # count games.pgn twice`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Inputs = args
			return runExperienceBuild(cmd.Context(), opts, s)
		},
	}
	cmd.Flags().StringVar(&opts.DB, "db", "", "experience database file (required; made when missing)")
	cmd.Flags().BoolVar(&opts.Again, "again", false, "import files already in the tree once more, counting their games again")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the summary as one JSON object")
	return cmd
}

func runExperienceBuild(ctx context.Context, opts *experienceBuildOptions, s *IOStreams) error {
	if opts.DB == "" {
		return usagef("experience build needs a database: --db FILE")
	}
	if len(opts.Inputs) == 0 {
		return usagef("experience build needs at least one PGN file (or - for stdin)")
	}
	inputs, err := ingest.ExpandInputs(opts.Inputs)
	if err != nil {
		return usagef("%v", err)
	}
	bar := s.Progress("experience", -1, "games")
	total, perInput, err := experience.ImportFiles(ctx, opts.DB, inputs, experience.ImportFilesOptions{Again: opts.Again, Stdin: s.In,
		Progress: func(games int64) { bar.Set(games) }})
	if err != nil {
		bar.Abort()
		return err
	}
	bar.Finish()
	for _, e := range total.FirstErrors {
		fmt.Fprintln(s.ErrOut, e)
	}
	rep := experience.NewBuildReport(opts.DB, total, perInput)
	return s.printReport(opts.JSON, rep, rep.Text)
}

type experienceStatsOptions struct {
	DB   string
	Top  int
	JSON bool
}

func newExperienceStatsCmd(s *IOStreams) *cobra.Command {
	opts := &experienceStatsOptions{}
	cmd := &cobra.Command{
		Use:   "stats --db FILE",
		Short: "Summarise an experience tree",
		Long: `stats prints the games in the tree (by result, and how many a learning player
recorded), its moves and positions, and the moves known from the standard start with
their games, results and score for the side that played them.`,
		Example: `  dchess experience stats --db exp.db
  dchess experience stats --db exp.db --top 0 --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runExperienceStats(cmd.Context(), opts, s) },
	}
	cmd.Flags().StringVar(&opts.DB, "db", "", "experience database file (required)")
	cmd.Flags().IntVar(&opts.Top, "top", 10, "start moves to list (0: all)")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the summary as one JSON object")
	inputFlags(cmd, inputFile, "db")
	return cmd
}

func runExperienceStats(ctx context.Context, opts *experienceStatsOptions, s *IOStreams) error {
	if opts.DB == "" {
		return usagef("experience stats needs --db FILE")
	}
	if opts.Top < 0 {
		return usagef("--top must not be negative")
	}
	st, err := experience.ReadStats(ctx, opts.DB, opts.Top)
	if err != nil {
		return err
	}
	return s.printReport(opts.JSON, st, st.Text)
}
