package match_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/notnil/chess"

	"github.com/dchess/dchess/internal/chess/board"
	"github.com/dchess/dchess/internal/chess/uci"
	"github.com/dchess/dchess/internal/testenv"
	"github.com/dchess/dchess/search/elo"
	"github.com/dchess/dchess/search/heuristic"
	"github.com/dchess/dchess/search/match"
	"github.com/dchess/dchess/search/player"
	"github.com/dchess/dchess/search/uciengine"
)

// engineEnv, when set, makes the test binary a UCI engine playing that
// spec, so a match can drive dchess through "uci:" without building it.
const engineEnv = "DCHESS_MATCH_TEST_ENGINE"

func TestMain(m *testing.M) {
	player.RegisterBuiltins() // as families.RegisterAll does in the binary
	if spec := os.Getenv(engineEnv); spec != "" {
		player.Register("crashy", newCrashy)
		s, err := player.ParseSpec(spec)
		if err == nil {
			err = uciengine.Run(context.Background(), os.Stdin, os.Stdout, s, "test")
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// crashy plays random moves and kills its process on its third move: a
// UCI engine that crashes mid-game.
type crashy struct{ *player.Random }

func newCrashy(context.Context, player.Spec) (player.Player, error) {
	return &crashy{player.NewRandom("crashy", 1)}, nil
}

func (c *crashy) Move(ctx context.Context, pos player.Position, lim player.Limits) (player.MoveInfo, error) {
	if len(pos.Moves) >= 4 {
		os.Exit(3)
	}
	return c.Random.Move(ctx, pos, lim)
}

// selfEngine is an entrant that runs this test binary as a UCI engine.
func selfEngine(t *testing.T, spec string, starts *atomic.Int32) match.Entrant {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return match.Entrant{New: func(ctx context.Context) (player.Player, error) {
		if starts != nil {
			starts.Add(1)
		}
		return player.StartUCI(ctx, exe, uci.StartOptions{Env: []string{engineEnv + "=" + spec}})
	}}
}

func specEntrant(t *testing.T, spec string) match.Entrant {
	t.Helper()
	e, err := match.SpecEntrant(spec)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func fakeEntrant(name string, move func(ctx context.Context, b *board.Board) (player.MoveInfo, error)) match.Entrant {
	return match.Entrant{New: func(context.Context) (player.Player, error) { return &fake{name: name, move: move}, nil }}
}

// fake is a player whose every move comes from a function.
type fake struct {
	name string
	move func(ctx context.Context, b *board.Board) (player.MoveInfo, error)
}

func (f *fake) Name() string                  { return f.name }
func (f *fake) NewGame(context.Context) error { return nil }
func (f *fake) Close() error                  { return nil }
func (f *fake) Move(ctx context.Context, pos player.Position, _ player.Limits) (player.MoveInfo, error) {
	b, err := player.Board(pos)
	if err != nil {
		return player.MoveInfo{}, err
	}
	return f.move(ctx, b)
}

func firstMove(b *board.Board) player.MoveInfo {
	return player.MoveInfo{Move: board.UCI(b.LegalMoves()[0])}
}

// greedy proposes moves ranked by the heuristic evaluation one ply ahead:
// a policy without search, for ProposerPlayer.
type greedy struct{}

func (greedy) Propose(b *board.Board) ([]board.Move, []float64, error) {
	moves := b.LegalMoves()
	scores := make([]float64, len(moves))
	eval := heuristic.New()
	for i, m := range moves {
		b.Make(m)
		scores[i] = -float64(eval.Evaluate(b))
		if b.Status() == board.Checkmate {
			scores[i] = 1e9
		}
		b.Unmake()
	}
	return moves, scores, nil
}

func TestBuiltInPlayersBeatRandom(t *testing.T) {
	entrants := map[string]match.Entrant{
		"heuristic":         specEntrant(t, "heuristic"),
		"heuristic minimax": specEntrant(t, "heuristic:search=minimax"),
		"proposer": {New: func(context.Context) (player.Player, error) {
			return player.ProposerPlayer(player.Spec{Family: "greedy"}, greedy{})
		}},
	}
	if sf := testenv.StockfishPath(); sf != "" {
		entrants["stockfish"] = specEntrant(t, "uci:"+sf+"?Threads=1&Hash=16")
	}
	for name, a := range entrants {
		t.Run(name, func(t *testing.T) {
			rep, err := match.Run(context.Background(), match.Config{A: a, B: specEntrant(t, "random:seed=5"),
				Games: 10, Depth: 2, RandomPlies: 4, Seed: 11, MaxMoves: 150})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Games != 10 || rep.Score < 0.8 || rep.Wins < 7 {
				t.Errorf("%s vs random:\n%s", name, rep.Text())
			}
		})
	}
}

func readBack(t *testing.T, pgn string) []*chess.Game {
	t.Helper()
	all, err := chess.GamesFromPGN(strings.NewReader(pgn))
	if err != nil {
		t.Fatalf("notnil/chess cannot read the PGN: %v\n%s", err, pgn)
	}
	// notnil returns an empty game for the blank line that ends the file.
	var games []*chess.Game
	for _, g := range all {
		if g.GetTagPair("Event") != nil {
			games = append(games, g)
		}
	}
	return games
}

func TestAgainstStockfish(t *testing.T) {
	sf := testenv.Stockfish(t)
	var pgn bytes.Buffer
	rep, err := match.Run(context.Background(), match.Config{
		A: specEntrant(t, "heuristic:depth=2"), B: specEntrant(t, "uci:"+sf+"?Threads=1&Hash=16&name=Stockfish"),
		Games: 2, Depth: 4, PGN: &pgn, Seed: 2, Resign: &match.ResignAdjudication{MoveCount: 3, Score: 1000}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Games != 2 || rep.B != "Stockfish" || rep.Losses < 1 {
		t.Errorf("report:\n%s", rep.Text())
	}
	games := readBack(t, pgn.String())
	if len(games) != 2 {
		t.Fatalf("read back %d games", len(games))
	}
	if games[0].GetTagPair("White").Value != "heuristic:depth=2" || games[1].GetTagPair("White").Value != "Stockfish" {
		t.Error("colours were not swapped between the games of a pair")
	}
}

func TestSelfPlayThroughUCI(t *testing.T) {
	var pgn bytes.Buffer
	rep, err := match.Run(context.Background(), match.Config{
		A: selfEngine(t, "heuristic:depth=2", nil), B: specEntrant(t, "random:seed=1"),
		Games: 2, Depth: 2, PGN: &pgn, MaxMoves: 150})
	if err != nil {
		t.Fatal(err)
	}
	if rep.A != "dchess heuristic:depth=2 test" || rep.Wins != 2 {
		t.Errorf("report:\n%s", rep.Text())
	}
	if !regexp.MustCompile(`/2 \d+\.\d{3}s\}`).MatchString(pgn.String()) {
		t.Error("the engine's scores, depths and times did not reach the PGN")
	}
}

func TestCrashedUCIEngineLosesAndIsRestarted(t *testing.T) {
	var starts atomic.Int32
	var results []match.GameResult
	rep, err := match.Run(context.Background(), match.Config{
		A: selfEngine(t, "crashy", &starts), B: specEntrant(t, "random"), Games: 3, Depth: 1,
		OnGame: func(g match.GameResult, _ *match.Report) { results = append(results, g) }})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Losses != 3 || rep.Faults["a"][match.TermCrash] != 3 {
		t.Fatalf("report:\n%s", rep.Text())
	}
	if got := starts.Load(); got != 3 {
		t.Errorf("engine started %d times, want once per game after each crash (3)", got)
	}
	if !strings.Contains(results[0].Reason, "crashy") || !strings.Contains(results[0].Reason, "exited") {
		t.Errorf("reason %q", results[0].Reason)
	}
}

func TestFaultsLoseTheGame(t *testing.T) {
	cases := []struct {
		name, term, reason string
		move               func(ctx context.Context, b *board.Board) (player.MoveInfo, error)
	}{
		{"illegal", match.TermIllegalMove, "makes an illegal move: e1e8", func(context.Context, *board.Board) (player.MoveInfo, error) {
			return player.MoveInfo{Move: "e1e8"}, nil
		}},
		{"crash", match.TermCrash, "failed: broken pipe", func(context.Context, *board.Board) (player.MoveInfo, error) {
			return player.MoveInfo{}, errors.New("broken pipe")
		}},
		{"stall", match.TermStall, "stalls", func(ctx context.Context, b *board.Board) (player.MoveInfo, error) {
			<-ctx.Done()
			return firstMove(b), nil
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var pgn bytes.Buffer
			var reasons []string
			rep, err := match.Run(context.Background(), match.Config{
				A: specEntrant(t, "random"), B: fakeEntrant("faulty", c.move), Games: 2, Depth: 1,
				MoveTimeout: 100 * time.Millisecond, PGN: &pgn,
				OnGame: func(g match.GameResult, _ *match.Report) { reasons = append(reasons, g.Reason) }})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Wins != 2 || rep.Terminations[c.term] != 2 || rep.Faults["b"][c.term] != 2 {
				t.Fatalf("report:\n%s", rep.Text())
			}
			for _, r := range reasons {
				if !strings.Contains(r, "faulty") || !strings.Contains(r, c.reason) {
					t.Errorf("reason %q, want it to name the player and say %q", r, c.reason)
				}
			}
			if !strings.Contains(pgn.String(), c.reason) {
				t.Errorf("PGN lacks the reason:\n%s", pgn.String())
			}
			readBack(t, pgn.String())
		})
	}
}

func TestTimeForfeit(t *testing.T) {
	tc, err := match.ParseTimeControl("0.2+0")
	if err != nil {
		t.Fatal(err)
	}
	slow := fakeEntrant("slow", func(ctx context.Context, b *board.Board) (player.MoveInfo, error) {
		<-ctx.Done() // uses its whole clock and more
		time.Sleep(100 * time.Millisecond)
		return firstMove(b), nil
	})
	var pgn bytes.Buffer
	rep, err := match.Run(context.Background(), match.Config{A: specEntrant(t, "heuristic"), B: slow,
		Games: 2, TimeControl: &tc, PGN: &pgn})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Wins != 2 || rep.Faults["b"][match.TermTimeForfeit] != 2 {
		t.Fatalf("report:\n%s", rep.Text())
	}
	if !strings.Contains(pgn.String(), `[TimeControl "0.2"]`) || !strings.Contains(pgn.String(), `[Termination "time forfeit"]`) {
		t.Errorf("PGN tags:\n%s", pgn.String())
	}
}

// scoring plays its first legal move and reports a fixed score.
func scoring(name string, score int) match.Entrant {
	return fakeEntrant(name, func(_ context.Context, b *board.Board) (player.MoveInfo, error) {
		mi := firstMove(b)
		mi.HasScore, mi.Score, mi.Depth = true, score, 1
		return mi, nil
	})
}

func TestAdjudication(t *testing.T) {
	ctx := context.Background()
	rep, err := match.Run(ctx, match.Config{A: scoring("optimist", 700), B: scoring("pessimist", -700), Games: 2, Depth: 1,
		Resign: &match.ResignAdjudication{MoveCount: 3, Score: 600}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Wins != 2 || rep.Terminations[match.TermResignAdjudication] != 2 {
		t.Errorf("resign:\n%s", rep.Text())
	}

	var plies []int
	rep, err = match.Run(ctx, match.Config{A: scoring("calm", 5), B: scoring("calm too", -5), Games: 2, Depth: 1,
		Draw:   &match.DrawAdjudication{MoveNumber: 6, MoveCount: 2, Score: 10},
		OnGame: func(g match.GameResult, _ *match.Report) { plies = append(plies, len(g.Moves)) }})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Draws != 2 || rep.Terminations[match.TermDrawAdjudication] != 2 {
		t.Errorf("draw:\n%s", rep.Text())
	}

	// Random movers report no score, so only the move limit ends their games early.
	rep, err = match.Run(ctx, match.Config{A: specEntrant(t, "random:seed=1"), B: specEntrant(t, "random:seed=2"),
		Games: 4, Depth: 1, MaxMoves: 5, Draw: &match.DrawAdjudication{MoveCount: 1, Score: 1000}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Terminations[match.TermMaxMoves] != 4 {
		t.Errorf("max moves:\n%s", rep.Text())
	}
}

// Interim lines come every N games but not after the last, whose score
// the final report prints.
func TestInterimLinesLeaveTheLastGameToTheReport(t *testing.T) {
	var printed []int
	first := func(_ context.Context, b *board.Board) (player.MoveInfo, error) { return firstMove(b), nil }
	_, err := match.Run(context.Background(), match.Config{A: fakeEntrant("a", first), B: fakeEntrant("b", first),
		Games: 6, Depth: 1, MaxMoves: 2, OnGame: func(_ match.GameResult, rep *match.Report) {
			if lines := rep.InterimLines(3); len(lines) > 0 {
				if !strings.HasPrefix(lines[0], "Score of a vs b: ") {
					t.Errorf("interim lines %q", lines)
				}
				printed = append(printed, rep.Games)
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(printed, []int{3}) {
		t.Errorf("interim lines after games %v of 6 every 3, want after game 3 only", printed)
	}
}

func TestSPRTStopsLopsidedMatch(t *testing.T) {
	test, err := elo.ParseSPRT("elo0=0,elo1=200,alpha=0.05,beta=0.05")
	if err != nil {
		t.Fatal(err)
	}
	var interim, silent int
	rep, err := match.Run(context.Background(), match.Config{A: specEntrant(t, "heuristic:depth=1"),
		B: specEntrant(t, "random"), Games: 200, Depth: 1, SPRT: &test, Concurrency: 2, MaxMoves: 100,
		OnGame: func(_ match.GameResult, rep *match.Report) {
			interim++
			if len(rep.InterimLines(1)) == 0 {
				silent++
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Games >= 200 || rep.StoppedEarly != "sprt" || rep.SPRT == nil || rep.SPRT.Result != elo.AcceptH1 {
		t.Fatalf("report:\n%s", rep.Text())
	}
	if interim != rep.Games {
		t.Errorf("OnGame ran %d times for %d games", interim, rep.Games)
	}
	// The game that decided has no interim lines: the final report follows.
	if silent != 1 {
		t.Errorf("%d of %d games had no interim lines, want the deciding one only", silent, rep.Games)
	}
	if !strings.Contains(rep.Text(), "H1 was accepted") {
		t.Errorf("text:\n%s", rep.Text())
	}
}

var (
	dateTag = regexp.MustCompile(`\[Date "[^"]*"\]`)
	// A move's time ends its comment, or is followed by the game's end: "0.012s, White mates}".
	moveTime = regexp.MustCompile(` \d+\.\d{3}s([,}])`)
)

// withoutClock drops what the wall clock decides from a PGN, the date and
// each move's time, leaving what the seed and the limits decide.
func withoutClock(pgn string) string {
	return moveTime.ReplaceAllString(dateTag.ReplaceAllString(pgn, ""), "$1")
}

func TestSameSeedSameGames(t *testing.T) {
	play := func(seed uint64, concurrency int) string {
		var pgn bytes.Buffer
		_, err := match.Run(context.Background(), match.Config{A: specEntrant(t, "heuristic:depth=2"),
			B: specEntrant(t, "random"), Games: 4, Depth: 2, Nodes: 5000, Seed: seed, Concurrency: concurrency, PGN: &pgn})
		if err != nil {
			t.Fatal(err)
		}
		return withoutClock(pgn.String())
	}
	first := play(7, 1)
	if again := play(7, 2); again != first {
		t.Errorf("same seed, different games:\n%s\n----\n%s", first, again)
	}
	if other := play(8, 1); other == first {
		t.Error("a different seed replayed the same games")
	}
}

func TestReportJSONAndPGN(t *testing.T) {
	var pgn bytes.Buffer
	test, _ := elo.ParseSPRT("elo0=0,elo1=10")
	rep, err := match.Run(context.Background(), match.Config{A: specEntrant(t, "heuristic:depth=1,name=H1"),
		B: specEntrant(t, "random"), Games: 3, Depth: 1, PGN: &pgn, SPRT: &test, MaxMoves: 100})
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"a", "b", "games", "wins", "losses", "draws", "score", "elo", "elo_error", "los",
		"draw_ratio", "pentanomial", "sprt", "terminations"} {
		if _, ok := got[key]; !ok {
			t.Errorf("JSON lacks %q: %s", key, data)
		}
	}
	if got["a"] != "H1" || got["games"] != 3.0 || len(got["pentanomial"].([]any)) != 5 {
		t.Errorf("JSON: %s", data)
	}
	sprt := got["sprt"].(map[string]any)
	for _, key := range []string{"llr", "lower", "upper", "result"} {
		if _, ok := sprt[key]; !ok {
			t.Errorf("sprt lacks %q: %s", key, data)
		}
	}
	// The odd third game has no partner: two pairs' worth of games, one pair counted.
	total := 0
	for _, c := range rep.Pentanomial {
		total += c
	}
	if total != 1 {
		t.Errorf("pentanomial %v, want one pair", rep.Pentanomial)
	}

	games := readBack(t, pgn.String())
	if len(games) != 3 {
		t.Fatalf("read back %d games", len(games))
	}
	for i, g := range games {
		for _, tag := range []string{"Event", "Site", "Date", "Round", "White", "Black", "Result", "Termination",
			"TimeControl", "SetUp", "FEN", "PlyCount"} {
			if g.GetTagPair(tag) == nil {
				t.Errorf("game %d lacks tag %s", i+1, tag)
			}
		}
		if want := g.GetTagPair("PlyCount").Value; fmt.Sprint(len(g.Moves())) != want {
			t.Errorf("game %d: %d moves read back, PlyCount %s", i+1, len(g.Moves()), want)
		}
		if g.Outcome().String() != g.GetTagPair("Result").Value {
			t.Errorf("game %d: notnil says %s, Result tag %s", i+1, g.Outcome(), g.GetTagPair("Result").Value)
		}
	}
	if !regexp.MustCompile(`\{[+-](\d+\.\d\d|M\d+)/1 \d+\.\d{3}s\}`).MatchString(pgn.String()) {
		t.Errorf("no {+0.35/1 0.012s}-style comments:\n%s", pgn.String())
	}
}

func TestRunErrors(t *testing.T) {
	ctx := context.Background()
	if _, err := match.Run(ctx, match.Config{A: specEntrant(t, "random"), B: specEntrant(t, "random")}); err == nil ||
		!strings.Contains(err.Error(), "no limit") {
		t.Errorf("no limit: %v", err)
	}
	if _, err := match.Run(ctx, match.Config{A: specEntrant(t, "random"), B: specEntrant(t, "uci:/nonexistent"), Depth: 1}); err == nil ||
		!strings.Contains(err.Error(), "/nonexistent") {
		t.Errorf("missing engine: %v", err)
	}
	// A first start that fails is a start, not a restart: the word sent
	// users looking for a crash that never happened.
	var starts atomic.Int32
	random := specEntrant(t, "random")
	failing := match.Entrant{Name: "slow", New: func(ctx context.Context) (player.Player, error) {
		if starts.Add(1) > 1 {
			return nil, errors.New("no uciok")
		}
		return random.New(ctx)
	}}
	if _, err := match.Run(ctx, match.Config{A: random, B: failing, Depth: 1, Games: 4, Concurrency: 2}); err == nil ||
		!strings.HasPrefix(err.Error(), "starting slow: no uciok") {
		t.Errorf("a player that cannot start: %v", err)
	}
}

func TestInterruptedMatchReportsFinishedGames(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	rep, err := match.Run(ctx, match.Config{A: specEntrant(t, "random"), B: specEntrant(t, "random:seed=1"),
		Games: 1000, Depth: 1, MaxMoves: 30, OnGame: func(_ match.GameResult, r *match.Report) {
			if r.Games == 3 {
				cancel()
			}
		}})
	if !errors.Is(err, context.Canceled) || rep == nil || rep.Games != 3 {
		t.Fatalf("got %v, %+v", err, rep)
	}
}

// TestEngineKilledByTheInterruptIsNotACrash: a signal to the whole process
// group (Ctrl-C, scancel) can kill a UCI engine a moment before dchess sees
// it; the game it was playing is cut short, not lost by the engine.
func TestEngineKilledByTheInterruptIsNotACrash(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dying := fakeEntrant("dying", func(context.Context, *board.Board) (player.MoveInfo, error) {
		time.AfterFunc(20*time.Millisecond, cancel) // dchess's own signal arrives just after
		return player.MoveInfo{}, errors.New("engine exited: signal: terminated")
	})
	var results []match.GameResult
	rep, err := match.Run(ctx, match.Config{A: dying, B: specEntrant(t, "random"), Games: 2, Depth: 1,
		OnGame: func(g match.GameResult, _ *match.Report) { results = append(results, g) }})
	if !errors.Is(err, context.Canceled) || len(results) != 0 || (rep != nil && rep.Games != 0) {
		t.Fatalf("got %v, games %+v", err, results)
	}
}
