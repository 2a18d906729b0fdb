package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/dchess/dchess/pipeline/evaluate"
	"github.com/dchess/dchess/search/player"
)

type evalOptions struct {
	Player     string
	FEN        string
	EPD        string
	Data       string
	Puzzles    string
	Explain    bool
	Depth      int
	Nodes      int64
	MoveTimeMS int
	Limit      int
	// Pairs scores --data by DeepChess's pair accuracy instead of action
	// accuracy; a siamese player is always scored so.
	Pairs bool
	// Steps are the decoding steps T that --data sweeps for a diffusion or flow player.
	Steps []int
	// Strict stops at the first bad line of --epd or --puzzles instead of
	// skipping and counting it.
	Strict bool
	// Workers score positions side by side, each with its own player (0:
	// one per core).
	Workers int
	JSON    bool
}

func newEvalCmd(s *IOStreams) *cobra.Command {
	opts := &evalOptions{}
	cmd := &cobra.Command{
		Use:   "eval --player SPEC (--fen FEN | --epd FILE | --data DATASET | --puzzles FILE)",
		Short: "Evaluate a position or score a player on an EPD suite, a labelled dataset or puzzles",
		Long: `With --fen, searches the position and prints the move, score, depth and line; --explain
adds the heuristic evaluation's per-component breakdown (material, piece-square,
pawn structure, bishop pair, rook files, mobility), middlegame and endgame.

With --epd, plays every position of a test suite such as WAC and counts it solved when
the move is one of its "bm" moves and none of its "am" moves. Without a limit each
position gets 1 s (--movetime 1000); --depth or --nodes give the same answer on every run.

With --data, plays every labelled position of the dataset's test split (all of it when
it has no split) and reports the action accuracy: how often the move is Stockfish's best
move. With --puzzles, plays a Lichess puzzle CSV (FEN, Moves, Rating; the first move is
the opponent's): a puzzle is solved when every move of the line is found (a mate that
ends it also counts), reported overall and by 200-point rating bucket. Neither sets a
limit of its own: a searching player uses its default depth unless given one.

For a diffusion, flow or policy player, --data also reports how often the a_i the model would
pick without the legal-move restriction is legal and, for a horizon of 2 or more, the
accuracy of the imagined s_{i+1} and a_{i+1} against Stockfish's line; --steps 1,2,5,10,20
repeats the scoring for each number of decoding steps T, with the time per move.

For a siamese (DeepChess) player, --data reports pair accuracy instead, and needs no
labels: how often the comparator names the better of two positions, one from a game White
won and one from a game Black won, on the test split's pairs, drawn as the training run
validates (the run's config.yaml beside the weights, else the siamese defaults); --limit
counts pairs. --pairs scores any searching player or UCI engine on the same pairs, by
comparing the search scores of the two positions from White's side (with the siamese
defaults' filters and seed): the baselines a comparator's figure is read against.

A line of --epd or --puzzles that cannot be read (not EPD, a bm or am move that is not
legal, a puzzle without a rating or with an illegal move) is skipped and counted, and the
first ten are reported with their line numbers; --strict stops at the first one instead.

--epd, --puzzles and --data spread the positions (puzzles, pairs) over --workers workers,
one per core by default, each with a player of its own (a UCI engine is started for each).
The results are merged in the input's order, so every figure, line and JSON field is the one
a single worker gives under --depth or --nodes; under --movetime they may differ, since
workers that outnumber the free cores each search less deep in the same time. ms_per_move is
the mean of each move's own time, not the wall time over the moves.`,
		Example: `  dchess eval --player heuristic --fen "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4" --explain
  dchess eval --player heuristic:depth=6 --epd ../shared/data/epd/wac.epd --limit 50
  dchess eval --player uci:/usr/games/stockfish --epd wac.epd --movetime 100 --json
  dchess eval --player policy:runs/policy/model.dcw --data data/pv4
  dchess eval --player diffusion:runs/diffusion/model.dcw --data data/pv4 --steps 1,2,5,10,20 --limit 200
  dchess eval --player diffusion:runs/diffusion/model.dcw?steps=5 --puzzles ../shared/data/puzzles/lichess_puzzles_a.csv
  dchess eval --player siamese:runs/siamese/model.dcw --data data/selfplay
  dchess eval --player uci:/usr/games/stockfish --data data/selfplay --pairs --depth 10 --limit 2000`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runEval(cmd.Context(), opts, s) },
	}
	f := cmd.Flags()
	f.StringVar(&opts.Player, "player", "heuristic", "player SPEC")
	f.StringVar(&opts.FEN, "fen", "", "position to evaluate")
	f.StringVar(&opts.EPD, "epd", "", "EPD test suite with bm/am opcodes")
	f.StringVar(&opts.Data, "data", "", "dataset: action accuracy against Stockfish's best move on its test split (pair accuracy for a siamese player)")
	f.StringVar(&opts.Puzzles, "puzzles", "", "Lichess puzzle CSV (FEN, Moves, Rating): puzzles solved, by rating bucket")
	f.BoolVar(&opts.Explain, "explain", false, "with --fen: the heuristic evaluation's per-component breakdown")
	f.IntVar(&opts.Depth, "depth", 0, "search depth")
	f.Int64Var(&opts.Nodes, "nodes", 0, "nodes per position")
	f.IntVar(&opts.MoveTimeMS, "movetime", 0, "milliseconds per position")
	f.IntVar(&opts.Limit, "limit", 0, "with --epd, --data or --puzzles: only the first N positions, or pairs (0: all)")
	f.BoolVar(&opts.Pairs, "pairs", false, "with --data: pair accuracy, comparing the search scores of two positions from games each side won")
	f.IntSliceVar(&opts.Steps, "steps", nil, "with --data and a diffusion or flow player: decoding steps T to compare, e.g. 1,2,5,10,20")
	f.IntVar(&opts.Workers, "workers", 0, "with --epd, --data or --puzzles: positions scored side by side, each with its own player (0: one per core)")
	f.BoolVar(&opts.Strict, "strict", false, "with --epd or --puzzles: fail on the first bad line instead of skipping it")
	f.BoolVar(&opts.JSON, "json", false, "print the result as one JSON object (its fields: docs/reference/json.md)")
	inputFlags(cmd, inputFile, "epd", "puzzles")
	inputFlags(cmd, inputDataset, "data")
	return cmd
}

func runEval(ctx context.Context, opts *evalOptions, s *IOStreams) error {
	given := 0
	for _, v := range []string{opts.FEN, opts.EPD, opts.Data, opts.Puzzles} {
		if v != "" {
			given++
		}
	}
	switch {
	case given != 1:
		return usagef("give exactly one of --fen, --epd, --data or --puzzles")
	case opts.Depth < 0 || opts.Nodes < 0 || opts.MoveTimeMS < 0 || opts.Limit < 0 || opts.Workers < 0:
		return usagef("--depth, --nodes, --movetime, --limit and --workers must not be negative")
	case opts.Explain && opts.FEN == "":
		return usagef("--explain works with --fen")
	case len(opts.Steps) > 0 && opts.Data == "":
		return usagef("--steps works with --data")
	case opts.Pairs && opts.Data == "":
		return usagef("--pairs works with --data")
	case opts.Strict && opts.EPD == "" && opts.Puzzles == "":
		return usagef("--strict works with --epd or --puzzles")
	case opts.Workers != 0 && opts.FEN != "":
		return usagef("--workers works with --epd, --data or --puzzles")
	}
	if err := evaluate.CheckSteps(opts.Steps); err != nil {
		return usagef("%v", err)
	}
	spec, err := playerFlag("player", opts.Player)
	if err != nil {
		return err
	}
	eo := evaluate.Options{Player: spec, Limit: opts.Limit, Strict: opts.Strict, Workers: opts.Workers,
		Limits: player.Limits{Depth: opts.Depth, Nodes: opts.Nodes, MoveTime: time.Duration(opts.MoveTimeMS) * time.Millisecond}}
	if !s.Quiet {
		eo.Log = s.ErrOut
	}
	if s.ShowProgress() {
		eo.Progress = s.ErrOut
	}
	switch {
	case opts.FEN != "":
		err = evalFEN(ctx, opts, eo, s)
	case opts.Data != "":
		err = evalData(ctx, opts, eo, s)
	case opts.Puzzles != "":
		err = evalPuzzles(ctx, opts, eo, s)
	default:
		err = evalEPD(ctx, opts, eo, s)
	}
	if in := (*evaluate.InputError)(nil); errors.As(err, &in) {
		return usagef("%v", err)
	}
	return err
}

func evalFEN(ctx context.Context, opts *evalOptions, eo evaluate.Options, s *IOStreams) error {
	res, err := evaluate.FEN(ctx, opts.FEN, opts.Explain, eo)
	if err != nil {
		return err
	}
	return s.printReport(opts.JSON, res, res.Text)
}

func evalEPD(ctx context.Context, opts *evalOptions, eo evaluate.Options, s *IOStreams) error {
	rep, err := evaluate.EPD(ctx, opts.EPD, eo, func(pos *evaluate.EPDPosition) {
		if !opts.JSON && !pos.Solved {
			s.Infof("%s: played %s, %s\n", pos.ID, pos.Played, pos.Wanted())
		}
	})
	if err != nil {
		return err
	}
	fmt.Fprint(s.ErrOut, rep.Skipped.Text())
	return s.printReport(opts.JSON, rep, rep.Text)
}
