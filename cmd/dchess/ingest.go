package main

import (
	"context"
	"fmt"
	"os"
	"runtime/debug"
	"time"

	"github.com/spf13/cobra"

	"github.com/dchess/dchess/dataset/ingest"
)

// ingestMemoryLimit is the Go heap size ingest's collector aims to stay under.
const ingestMemoryLimit = 160 << 20

type ingestOptions struct {
	// Options bind the flags that choose what is read and kept.
	ingest.Options
	Inputs []string
	Out    string
	Force  bool
	JSON   bool
	// Command is stored in the dataset's manifest.
	Command []string
}

func newIngestCmd(s *IOStreams) *cobra.Command {
	opts := &ingestOptions{}
	cmd := &cobra.Command{
		Use:   "ingest FILE... -o DATASET",
		Short: "Turn PGN games or labelled FEN files into a dataset of positions",
		Long: `ingest reads PGN games (.pgn, .pgn.gz, .pgn.zst, globs, or - for stdin) and writes one
record per position before each move played: the FEN, the move, the next --horizon moves,
the game's result, the ply and both Elos. Positions are deduplicated (the first one wins).
Lichess's comments are read: [%eval] after a move labels the position it leads to (the
score turned to the side to move, depth unknown unless written as [%eval 0.17,23]), and
[%clk] is kept with the record of its move. --min-elo, --max-elo, --time-control and
--termination choose games by their tags.

With --format lichess-evals, csv or epd it imports positions already scored by Stockfish
as labelled records: the Lichess evaluation export (JSON lines; of the deepest evaluation
the first line is the label and the others its multi-PV lines), FEN,Evaluation CSV (+56,
-120, #+3, #-2) and EPD with ce or dm, bm and pv; an EPD line with no ce or dm (a test
suite, an opening book) gives an unlabelled position for dchess label. An EPD line's other
operations (bm, am, id, c0...) are kept as the record's notes. Lichess and CSV scores are
from White's point of view and are turned to the side to move; EPD's ce already is.
--score-view overrides that.

With --format puzzles it reads a Lichess puzzle CSV (a header naming FEN, Moves and Rating;
PuzzleId, Themes and GameUrl are kept when present): one unlabelled record per puzzle, the
position after the opponent's first move, with the solution's first move as the move and
the rest of the line as the next moves; id, rating, themes and the game's URL are the
record's notes, and puzzles of one game share a game id. --min-elo and --max-elo bound the
puzzle's rating.

--format plain, binpack and bullet read the NNUE trainers' data: Stockfish's .plain and
.binpack (a move, a score and a result from the side to move, the ply) and bullet's text
"FEN | score | wdl" (score and result from White's view). The game result is kept, the
stored move becomes the label's best move, the depth is unknown (0), and a score of
+-31754 or beyond is a mate. Consecutive entries of one game share a game ID, so
dchess dataset split keeps them together.

Malformed games and bad lines are skipped, counted and the first ten reported with their
line; the run still succeeds unless --strict is given. An input that gives no position at
all (a file of another format, every game filtered out) fails the run with the reason and
writes nothing; beside inputs that gave positions it is only reported (--strict: fails).`,
		Example: `  dchess ingest games.pgn -o data/games
  dchess ingest more-games.pgn -o data/games --force     # replace data/games
  dchess ingest 'dumps/*.pgn.zst' -o data/games --min-elo 2200 --skip-captures --positions-per-game 10
  dchess ingest lichess_db_standard_rated_2024-01.pgn.zst -o data/blitz --time-control blitz --termination normal --min-elo 1800 --max-elo 2200
  zcat games.pgn.gz | dchess ingest - -o data/games --max-games 10000
  dchess ingest --format lichess-evals lichess_db_eval.jsonl -o data/lichess --max-games 1000000
  dchess ingest --format binpack test80.binpack -o data/sf
  dchess ingest --format puzzles lichess_db_puzzle.csv.zst -o data/puzzles --min-elo 1500 --max-elo 2200`,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Inputs = args
			opts.Command = os.Args
			return runIngest(cmd.Context(), opts, s)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&opts.Out, "out", "o", "", "dataset folder to write (required)")
	f.StringVar((*string)(&opts.Format), "format", "pgn", "input format: pgn, lichess-evals, csv, epd, puzzles, plain, binpack or bullet")
	f.StringVar((*string)(&opts.ScoreView), "score-view", "", "labelled formats: scores are from 'white' or the side to move ('stm'); default per format")
	f.IntVar(&opts.Horizon, "horizon", ingest.DefaultHorizon, "moves after the played one kept with each position")
	f.IntVar(&opts.MinPly, "min-ply", 0, "skip positions before this ply")
	f.IntVar(&opts.MaxPly, "max-ply", 0, "skip positions after this ply (0: no limit)")
	f.IntVar(&opts.PositionsPerGame, "positions-per-game", 0, "keep a seeded random sample of N positions per game (0: all)")
	f.BoolVar(&opts.SkipCaptures, "skip-captures", false, "skip positions whose played move is a capture (DeepChess)")
	f.IntVar(&opts.MinElo, "min-elo", 0, "keep games where both players are rated at least this")
	f.IntVar(&opts.MaxElo, "max-elo", 0, "keep games where both players are rated at most this (0: no limit; unrated players do not pass)")
	f.StringVar(&opts.TimeControl, "time-control", "", "keep games of these time controls: 180+0, bullet, blitz, rapid, classical, correspondence, or estimated seconds 300..900 (comma-separated)")
	f.StringVar(&opts.Termination, "termination", "", "keep games whose Termination tag is one of these, e.g. 'Normal' or 'Normal,Time forfeit'")
	f.IntVar(&opts.MaxGames, "max-games", 0, "stop after this many games (or lines) gave positions (0: all)")
	f.Uint64Var(&opts.Seed, "seed", 0, "seed of the per-game position sample")
	f.BoolVar(&opts.Strict, "strict", false, "fail on the first malformed game or bad line")
	f.BoolVar(&opts.Force, "force", false, "replace the output dataset if it exists")
	f.IntVar(&opts.Workers, "workers", 0, "decoding goroutines (0: one per CPU)")
	f.BoolVar(&opts.JSON, "json", false, "print the summary as one JSON object")
	return cmd
}

func runIngest(ctx context.Context, opts *ingestOptions, s *IOStreams) error {
	if len(opts.Inputs) == 0 {
		return usagef("ingest needs at least one input FILE (or - for stdin)")
	}
	if opts.Out == "" {
		return usagef("ingest needs an output dataset: -o DATASET")
	}
	iopts := opts.Options
	iopts.Dedupe = true
	format, err := ingest.ParseFormat(string(iopts.Format))
	if err != nil {
		return usagef("%v", err)
	}
	iopts.Format = format
	if err := iopts.Check(); err != nil {
		return usagef("%v", err)
	}
	inputs, err := ingest.ExpandInputs(opts.Inputs)
	if err != nil {
		return usagef("%v", err)
	}
	sources, err := ingest.HashSources(inputs)
	if err != nil {
		return err
	}
	// The bar counts input bytes read, with games/s and skips in its
	// description.
	bar := s.Progress("ingest", ingest.TotalBytes(sources), "bytes")
	began := time.Now()
	iopts.Progress = func(p ingest.Progress) {
		rate := float64(p.Games) / max(time.Since(began).Seconds(), 1e-9)
		bar.Describe(fmt.Sprintf("%d read (%.0f/s), %d skipped", p.Games, rate, p.Skipped))
		bar.Set(p.Bytes)
	}
	// Ingest allocates many short-lived strings while its live heap stays
	// small (bounded batches): collecting less often saves CPU, and the
	// soft memory limit makes the collector catch up before the heap
	// passes it, so memory stays flat.
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(ingestMemoryLimit))
	sum, st, runErr := ingest.ToDataset(ctx, inputs, s.In, iopts,
		ingest.Destination{Out: opts.Out, Replace: opts.Force, Command: opts.Command, Sources: sources})
	bar.Finish()
	if sum != nil {
		fmt.Fprint(s.ErrOut, ingest.ErrorsText(sum.FirstErrors, sum.Errors))
	}
	if runErr != nil {
		return runErr
	}
	rep := ingest.Report{Summary: sum, Dataset: opts.Out, Stored: st.Records}
	return s.printReport(opts.JSON, rep, func() string { return rep.Text(opts.MaxGames) })
}
