package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/dchess/dchess/pipeline"
	"github.com/dchess/dchess/search/board"
	"github.com/dchess/dchess/search/epd"
	"github.com/dchess/dchess/search/heuristic"
	"github.com/dchess/dchess/search/player"
)

func init() { register(newEvalCmd) }

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
	// Steps are the decoding steps T that --data sweeps for a diffusion player.
	Steps []int
	JSON  bool
}

// defaultEPDMoveTime is the usual think time of test suites such as WAC.
const defaultEPDMoveTime = time.Second

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

For a diffusion or policy player, --data also reports how often the a_i the model would
pick without the legal-move restriction is legal and, for a horizon of 2 or more, the
accuracy of the imagined s_{i+1} and a_{i+1} against Stockfish's line; --steps 1,2,5,10,20
repeats the scoring for each number of decoding steps T, with the time per move.

For a siamese (DeepChess) player, --data reports pair accuracy instead, and needs no
labels: how often the comparator names the better of two positions, one from a game White
won and one from a game Black won, on the test split's pairs, drawn as the training run
validates (the run's config.yaml beside the weights, else the siamese defaults); --limit
counts pairs. --pairs scores any searching player or UCI engine on the same pairs, by
comparing the search scores of the two positions from White's side (with the siamese
defaults' filters and seed): the baselines a comparator's figure is read against.`,
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
	f.IntSliceVar(&opts.Steps, "steps", nil, "with --data and a diffusion player: decoding steps T to compare, e.g. 1,2,5,10,20")
	f.BoolVar(&opts.JSON, "json", false, "print the result as JSON")
	return cmd
}

func runEval(ctx context.Context, opts *evalOptions, s *IOStreams) error {
	if ctx == nil {
		ctx = context.Background()
	}
	given := 0
	for _, v := range []string{opts.FEN, opts.EPD, opts.Data, opts.Puzzles} {
		if v != "" {
			given++
		}
	}
	switch {
	case given != 1:
		return usagef("give exactly one of --fen, --epd, --data or --puzzles")
	case opts.Depth < 0 || opts.Nodes < 0 || opts.MoveTimeMS < 0 || opts.Limit < 0:
		return usagef("--depth, --nodes, --movetime and --limit must not be negative")
	case opts.Explain && opts.FEN == "":
		return usagef("--explain works with --fen")
	case len(opts.Steps) > 0 && opts.Data == "":
		return usagef("--steps works with --data")
	case opts.Pairs && opts.Data == "":
		return usagef("--pairs works with --data")
	}
	for i, steps := range opts.Steps {
		if steps < 1 || steps > pipeline.MaxDecodingSteps {
			return usagef("--steps: %d must be in 1..%d", steps, pipeline.MaxDecodingSteps)
		}
		if slices.Contains(opts.Steps[:i], steps) {
			return usagef("--steps lists %d twice", steps)
		}
	}
	spec, err := player.ParseSpec(opts.Player)
	if err != nil {
		return usagef("--player: %v", err)
	}
	lim := player.Limits{Depth: opts.Depth, Nodes: opts.Nodes, MoveTime: time.Duration(opts.MoveTimeMS) * time.Millisecond}
	switch {
	case opts.FEN != "":
		return evalFEN(ctx, opts, spec, lim, s)
	case opts.Data != "":
		return evalData(ctx, opts, spec, lim, s)
	case opts.Puzzles != "":
		return evalPuzzles(ctx, opts, spec, lim, s)
	}
	if lim.Depth == 0 && lim.Nodes == 0 && lim.MoveTime == 0 {
		lim.MoveTime = defaultEPDMoveTime
	}
	return evalEPD(ctx, opts, spec, lim, s)
}

type fenResult struct {
	FEN     string               `json:"fen"`
	Player  string               `json:"player"`
	Move    string               `json:"move"`
	SAN     string               `json:"san"`
	Score   int                  `json:"score"`
	Mate    int                  `json:"mate"`
	Scored  bool                 `json:"scored"`
	Depth   int                  `json:"depth"`
	Nodes   int64                `json:"nodes"`
	PV      []string             `json:"pv"`
	Explain *heuristic.Breakdown `json:"explain,omitempty"`
}

func evalFEN(ctx context.Context, opts *evalOptions, spec player.Spec, lim player.Limits, s *IOStreams) error {
	b, err := board.FromFEN(opts.FEN)
	if err != nil {
		return usagef("--fen: %v", err)
	}
	if st := b.Status(); st != board.NotOver {
		return usagef("--fen: the game is over (%v)", st)
	}
	p, err := player.NewFromSpec(ctx, spec)
	if err != nil {
		return err
	}
	defer p.Close()
	res := fenResult{FEN: b.FEN(), Player: p.Name()}
	if opts.Explain {
		searcher, ok := player.Unwrap(p).(*player.Searcher)
		var eval *heuristic.Evaluator
		if ok {
			eval, ok = searcher.Evaluator().(*heuristic.Evaluator)
		}
		if !ok {
			return usagef("--explain needs the heuristic player, not %s", spec.Family)
		}
		bd := eval.Explain(b)
		res.Explain = &bd
	}
	mi, err := p.Move(ctx, player.Position{StartFEN: res.FEN}, lim)
	if err != nil {
		return err
	}
	m, err := b.ParseUCI(mi.Move)
	if err != nil {
		return fmt.Errorf("%s played an illegal move: %s", p.Name(), mi.Move)
	}
	res.Move, res.SAN, res.Score, res.Mate, res.Scored, res.Depth, res.Nodes, res.PV =
		mi.Move, b.SAN(m), mi.Score, mi.Mate, mi.HasScore, mi.Depth, mi.Nodes, mi.PV
	if opts.JSON {
		return writeJSON(s.Out, res)
	}
	fmt.Fprintf(s.Out, "Move: %s (%s)\n", res.SAN, res.Move)
	if res.Scored {
		score := fmt.Sprintf("%+.2f", float64(res.Score)/100)
		if res.Mate != 0 {
			score = fmt.Sprintf("mate in %d", res.Mate)
		}
		fmt.Fprintf(s.Out, "Score: %s (side to move), depth %d, %d nodes\n", score, res.Depth, res.Nodes)
	}
	if len(res.PV) > 0 {
		fmt.Fprintf(s.Out, "Line: %s\n", strings.Join(res.PV, " "))
	}
	if bd := res.Explain; bd != nil {
		fmt.Fprintf(s.Out, "\nStatic evaluation, centipawns from White's view (phase %.2f: 1 opening, 0 endgame):\n", bd.Phase)
		tw := tabwriter.NewWriter(s.Out, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "component\tmiddlegame\tendgame\tblended\t")
		for _, c := range bd.Components() {
			fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t\n", c.Name, c.MG, c.EG, c.Blended)
		}
		tw.Flush()
	}
	return nil
}

// epdPosition is one test position: its best moves (bm) and moves to avoid (am).
type epdPosition struct {
	ID     string   `json:"id"`
	FEN    string   `json:"fen"`
	Best   []string `json:"bm,omitempty"`
	Avoid  []string `json:"am,omitempty"`
	Played string   `json:"played"`
	Solved bool     `json:"solved"`
	best   []board.Move
	avoid  []board.Move
}

type epdReport struct {
	Player    string        `json:"player"`
	Solved    int           `json:"solved"`
	Total     int           `json:"total"`
	Positions []epdPosition `json:"positions"`
}

// readEPDSuite reads positions with bm or am opcodes; others are skipped,
// since there is nothing to check them against.
func readEPDSuite(path string, limit int) ([]epdPosition, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("--epd: %w", err)
	}
	defer f.Close()
	var list []epdPosition
	errFull := errors.New("limit reached")
	err = epd.Scan(f, func(lineNo int, line string) error {
		if limit > 0 && len(list) >= limit {
			return errFull
		}
		l, err := epd.Parse(line)
		if err != nil {
			return fmt.Errorf("%s:%d: %v", path, lineNo, err)
		}
		pos := epdPosition{FEN: l.FEN, ID: fmt.Sprintf("line %d", lineNo)}
		if id := l.Ops["id"]; len(id) > 0 {
			pos.ID = strings.Join(id, " ")
		}
		if pos.best, err = l.Moves("bm"); err == nil {
			pos.avoid, err = l.Moves("am")
		}
		if err != nil {
			return fmt.Errorf("%s:%d: %v", path, lineNo, err)
		}
		pos.Best, pos.Avoid = l.Ops["bm"], l.Ops["am"]
		if len(pos.best)+len(pos.avoid) > 0 {
			list = append(list, pos)
		}
		return nil
	})
	if err != nil && !errors.Is(err, errFull) {
		return nil, fmt.Errorf("--epd: %w", err)
	}
	if len(list) == 0 {
		return nil, fmt.Errorf("--epd: %s has no position with a bm or am opcode", path)
	}
	return list, nil
}

func evalEPD(ctx context.Context, opts *evalOptions, spec player.Spec, lim player.Limits, s *IOStreams) error {
	list, err := readEPDSuite(opts.EPD, opts.Limit)
	if err != nil {
		return err
	}
	p, err := player.NewFromSpec(ctx, spec)
	if err != nil {
		return err
	}
	defer p.Close()
	rep := epdReport{Player: p.Name(), Total: len(list)}
	for i := range list {
		pos := &list[i]
		if err := ctx.Err(); err != nil {
			return errors.New("eval interrupted")
		}
		// Each position is a new game: no table entries carry over.
		if err := p.NewGame(ctx); err != nil {
			return err
		}
		b, _ := board.FromFEN(pos.FEN)
		mi, err := p.Move(ctx, player.Position{StartFEN: pos.FEN}, lim)
		if err != nil {
			return fmt.Errorf("%s: %w", pos.ID, err)
		}
		m, err := b.ParseUCI(mi.Move)
		if err != nil {
			pos.Played = mi.Move + " (illegal)"
		} else {
			pos.Played = b.SAN(m)
			pos.Solved = (len(pos.best) == 0 || containsMove(pos.best, m)) && !containsMove(pos.avoid, m)
		}
		if pos.Solved {
			rep.Solved++
		}
		if !opts.JSON && !pos.Solved {
			want := "bm " + strings.Join(pos.Best, " ")
			if len(pos.Best) == 0 {
				want = "am " + strings.Join(pos.Avoid, " ")
			}
			s.Infof("%s: played %s, %s\n", pos.ID, pos.Played, want)
		}
	}
	rep.Positions = list
	if opts.JSON {
		return writeJSON(s.Out, rep)
	}
	fmt.Fprintf(s.Out, "%s solved %d of %d (%.1f %%)\n", rep.Player, rep.Solved, rep.Total, 100*float64(rep.Solved)/float64(rep.Total))
	return nil
}

func containsMove(list []board.Move, m board.Move) bool {
	for _, x := range list {
		if x == m {
			return true
		}
	}
	return false
}
