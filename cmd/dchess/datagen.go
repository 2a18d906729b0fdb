package main

import (
	"context"
	"os"

	"github.com/spf13/cobra"

	"github.com/dchess/dchess/pipeline/datagen"
)

type datagenOptions struct {
	selfPlayFlags
	Out          string
	SkipInCheck  bool
	SkipCaptures bool
	MaxScore     int
	PV           int
	JSON         bool
	Force        bool
	Shard        string
	Command      []string
}

func newDatagenCmd(s *IOStreams) *cobra.Command {
	opts := &datagenOptions{}
	cmd := &cobra.Command{
		Use:   "datagen --a SPEC [--b SPEC] --games N (--nodes N | --depth D) -o DATASET",
		Short: "Play self-play games and write their positions, scored by the players' own searches, as a dataset",
		Long: `datagen makes training data in one step. It plays --games games of --a against --b (itself
when --b is not given) as dchess selfplay does (generated or --openings openings, each twice with
colours swapped, --random-rate moves) under a fixed budget per move (--nodes or --depth; any
searching player: nnue, heuristic, uci:/usr/games/stockfish), and writes a dataset with one record
per position before a move: the mover's search score as the label (centipawns or mate from the side
to move, its win probability, the move played as the best move, the principal variation, depth,
nodes, the player's name as the engine), the game's result, ply and a game id. The nnue family
trains on it directly: no ingest and no Stockfish labelling. Positions are deduplicated, the first
one kept. A move without a score (a --random-rate move) leaves its position out.

Filters, as the NNUE trainers use them: --skip-in-check, --skip-captures (the move played is a
capture) and --max-score CP (a score beyond ±CP, or a mate). nnue's quiet_only skips the first two
when it trains anyway; filtering here makes a smaller dataset.

The games are kept beside the dataset as DATASET.pgn. Until the last is played each finished game,
with its moves' scores, is in a hidden journal beside that (.DATASET.pgn.journal.jsonl), so a run
that is stopped or killed loses only the games in progress: the same command run again plays only
the games the journal lacks, then writes the dataset. --force replaces the dataset and starts over.

With --shard i/n the command is task i of a job array of n: it plays its share of the game pairs
(each with the opening, colours and seed it has in the whole run) into the dataset
NAME-000i-of-000n (and its games into NAME-000i-of-000n.pgn); a finished task is skipped when run
again. "dchess dataset merge NAME -o OUT" joins the tasks' datasets.`,
		Example: `  dchess datagen --a heuristic --games 1000 --nodes 5000 --skip-in-check --skip-captures -o data/gen-h5k --concurrency 2
  dchess datagen --a "uci:/usr/games/stockfish" --games 1000 --nodes 5000 --random-rate 0.05 --random-rate-plies 16 -o data/gen-sf5k
  dchess datagen --a nnue --games 20000 --depth 6 --max-score 3000 --shard auto/64 -o /shared/gen
  dchess dataset merge /shared/gen -o data/gen`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.Command = os.Args
			return runDatagen(cmd.Context(), opts, s)
		},
	}
	opts.selfPlayFlags.add(cmd, "share of moves replaced by a random legal move (0 to 1); their positions have no score and are left out")
	f := cmd.Flags()
	f.StringVarP(&opts.Out, "out", "o", "", "dataset to write (required); the games go beside it as DATASET.pgn")
	f.BoolVar(&opts.SkipInCheck, "skip-in-check", false, "leave out positions whose side to move is in check")
	f.BoolVar(&opts.SkipCaptures, "skip-captures", false, "leave out positions whose move played (the search's best) is a capture")
	f.IntVar(&opts.MaxScore, "max-score", 0, "leave out positions scored beyond ±this many centipawns, and mates (0: keep all)")
	f.IntVar(&opts.PV, "pv", datagen.DefaultPV, "keep each move's principal variation up to this many moves (0: none)")
	f.BoolVar(&opts.JSON, "json", false, "print the summary as one JSON object")
	f.BoolVar(&opts.Force, "force", false, "replace the dataset if it exists, and start over instead of continuing an interrupted run's journal")
	f.StringVar(&opts.Shard, "shard", "", "play task i of n of a job array (i/n, or auto/n from the batch system's task index): -o NAME gives the dataset NAME-000i-of-000n")
	return cmd
}

func runDatagen(ctx context.Context, opts *datagenOptions, s *IOStreams) error {
	switch {
	case opts.A == "":
		return usagef("--a is required (a player SPEC such as heuristic, nnue or uci:/usr/games/stockfish)")
	case opts.Out == "":
		return usagef("datagen needs an output dataset: -o DATASET")
	case opts.PGN != "":
		return usagef("datagen writes its games beside the dataset (DATASET.pgn), not to --pgn")
	case opts.Nodes == 0 && opts.Depth == 0 && opts.MoveTimeMS == 0 && opts.TC == "":
		return usagef("datagen needs a budget per move: --nodes N or --depth D (or --movetime, --tc)")
	case opts.MaxScore < 0 || opts.PV < 0:
		return usagef("--max-score and --pv must not be negative")
	}
	r, err := opts.selfPlayFlags.plan(s, opts.Shard, opts.Force, "Datagen", "datagen")
	if err != nil {
		return err
	}
	spec, b := r.shard, r.b
	pv := opts.PV
	if pv == 0 {
		pv = -1 // none
	}
	run := datagen.Options{
		Play:    r.play,
		Output:  opts.Out,
		Replace: opts.Force,
		Filters: datagen.Filters{SkipInCheck: opts.SkipInCheck, SkipCaptures: opts.SkipCaptures, MaxScore: opts.MaxScore},
		PV:      pv,
		Command: opts.Command,
		Sharded: opts.Shard != "",
		Shard:   spec,
		Run:     opts.Settings.ShardRun(opts.A, b, opts.Games, ""),
		OnWrite: func() { r.finish(nil) },
	}
	res, err := datagen.Run(ctx, run)
	r.finish(err)
	if err != nil {
		return err
	}
	return s.printReport(opts.JSON && !res.Skipped, struct {
		*datagen.Result
		RecordsPerSecond float64 `json:"records_per_second"`
	}{res, res.RecordsPerSecond()}, func() string { return res.Text(spec) })
}
