package experience

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dchess/dchess/internal/chess/board"
	"github.com/dchess/dchess/search/match"
	"github.com/dchess/dchess/search/player"
)

func TestBoardStringMatchesSeed(t *testing.T) {
	b := board.New()
	if got, want := BoardString(b), "dbcefcbdaaaaaaaa000000000000000000000000000000001111111142356324"; got != want {
		t.Errorf("start: %s, want %s", got, want)
	}
	m, _ := b.ParseUCI("e2e4")
	b.Make(m)
	if got, want := BoardString(b), "dbcefcbdaaaaaaaa000000000000000000001000000000001111011142356324"; got != want {
		t.Errorf("after e4: %s, want %s", got, want)
	}
}

// knownGames are small games whose tree is counted by hand in the test.
const knownGames = `[Event "a"]
[Result "1-0"]

1. e4 e5 2. Nf3 Nc6 1-0

[Event "b"]
[Result "0-1"]

1. e4 c5 0-1

[Event "c"]
[Result "1/2-1/2"]

1. d4 d5 1/2-1/2

[Event "d"]
[Result "1-0"]

1. e4 e5 2. Nf3 Nf6 1-0

[Event "repeats: each move counts once for the game"]
[Result "1/2-1/2"]

1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1 Ng8 1/2-1/2

[Event "no result: skipped"]
[Result "*"]

1. e4 e5 *

[Event "illegal: skipped"]
[Result "1-0"]

1. e4 e4 1-0

[Event "from a FEN"]
[SetUp "1"]
[FEN "4k3/8/4K3/8/8/8/8/7R w - - 0 1"]
[Result "1-0"]

1. Rh8# 1-0
`

func openTemp(t *testing.T) *DB {
	t.Helper()
	db, err := Open(context.Background(), filepath.Join(t.TempDir(), "exp.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

type counts struct{ w, b, d int64 }

// edgeCounts reads the row of move uci after the moves before it.
func edgeCounts(t *testing.T, db *DB, fen string, before []string, uci string) (counts, board.Color, bool) {
	t.Helper()
	b, err := player.Board(player.Position{StartFEN: fen, Moves: before})
	if err != nil {
		t.Fatal(err)
	}
	edges, err := db.Children(context.Background(), b.Key())
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range edges {
		if e.Move == uci {
			return counts{e.WhiteWins, e.BlackWins, e.Draws}, e.Player, true
		}
	}
	return counts{}, 0, false
}

func TestImportCountsKnownGames(t *testing.T) {
	ctx := context.Background()
	db := openTemp(t)
	sum, err := Import(ctx, db, strings.NewReader(knownGames), ImportSource{Name: "known.pgn"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Games != 6 || sum.Skipped != 2 || sum.NoResult != 1 || len(sum.FirstErrors) != 1 {
		t.Fatalf("summary %+v: want 6 games, 2 skipped (1 without result, 1 illegal)", sum)
	}
	cases := []struct {
		before []string
		move   string
		want   counts
		player board.Color
	}{
		{nil, "e2e4", counts{2, 1, 0}, board.White},
		{nil, "d2d4", counts{0, 0, 1}, board.White},
		{nil, "g1f3", counts{0, 0, 1}, board.White}, // played twice in one game, counted once
		{[]string{"e2e4"}, "e7e5", counts{2, 0, 0}, board.Black},
		{[]string{"e2e4"}, "c7c5", counts{0, 1, 0}, board.Black},
		{[]string{"e2e4", "e7e5", "g1f3"}, "b8c6", counts{1, 0, 0}, board.Black},
		{[]string{"e2e4", "e7e5", "g1f3"}, "g8f6", counts{1, 0, 0}, board.Black},
		{[]string{"g1f3", "g8f6"}, "f3g1", counts{0, 0, 1}, board.White},
	}
	for _, c := range cases {
		got, pl, ok := edgeCounts(t, db, "", c.before, c.move)
		if !ok || got != c.want || pl != c.player {
			t.Errorf("%v %s: got %+v player %v (found %v), want %+v player %v", c.before, c.move, got, pl, ok, c.want, c.player)
		}
	}
	if got, _, ok := edgeCounts(t, db, "4k3/8/4K3/8/8/8/8/7R w - - 0 1", nil, "h1h8"); !ok || got != (counts{1, 0, 0}) {
		t.Errorf("game from a FEN: %+v, %v", got, ok)
	}
	st, err := db.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Rows: e4 e5 Nf3 Nc6 | c5 | d4 d5 | Nf6 (after Nf3) | Nf3 Nf6 Ng1 Ng8 (the
	// repeated moves are the same rows) | Rh8# = 4+1+2+1+4+1.
	if st.Games != 6 || st.WhiteWins != 3 || st.BlackWins != 1 || st.Draws != 2 || st.Moves != 13 {
		t.Errorf("stats %+v", st)
	}
	if len(st.StartMoves) != 3 || st.StartMoves[0].Move != "e4" || st.StartMoves[0].Games != 3 {
		t.Errorf("start moves %+v", st.StartMoves)
	}
	// The seed's board strings are stored beside the keys, readable with SQL.
	var parent, child, pl string
	if err := db.sql.QueryRow(`SELECT parent_board, child_board, player FROM moves WHERE move = 'e2e4'`).Scan(&parent, &child, &pl); err != nil {
		t.Fatal(err)
	}
	if parent != "dbcefcbdaaaaaaaa000000000000000000000000000000001111111142356324" ||
		child != "dbcefcbdaaaaaaaa000000000000000000001000000000001111011142356324" || pl != "W" {
		t.Errorf("row e2e4: %s -> %s by %s", parent, child, pl)
	}

	// Importing the same games again doubles every count.
	if _, err := Import(ctx, db, strings.NewReader(knownGames), ImportSource{Name: "known.pgn"}, nil); err != nil {
		t.Fatal(err)
	}
	if got, _, _ := edgeCounts(t, db, "", nil, "e2e4"); got != (counts{4, 2, 0}) {
		t.Errorf("after a second import e2e4 = %+v", got)
	}
}

func TestRecordIsAllOrNothing(t *testing.T) {
	ctx := context.Background()
	db := openTemp(t)
	err := db.Record(ctx,
		Game{Moves: []string{"e2e4", "e7e5"}, Result: "1-0", Source: "ok"},
		Game{Moves: []string{"d2d4", "d2d4"}, Result: "0-1", Source: "illegal"})
	if err == nil || !strings.Contains(err.Error(), "game 2") {
		t.Fatalf("want an error naming game 2, got %v", err)
	}
	st, _ := db.Stats(ctx)
	if st.Games != 0 || st.Moves != 0 {
		t.Errorf("a failed record left %d games and %d moves", st.Games, st.Moves)
	}
}

func TestRuleChoose(t *testing.T) {
	all := func(string) bool { return true }
	w := func(move string, wins, losses, draws int64) Edge {
		return Edge{Move: move, Player: board.White, WhiteWins: wins, BlackWins: losses, Draws: draws}
	}
	edges := []Edge{
		w("a2a3", 1, 0, 0),  // 1.0 from 1 game
		w("b2b3", 3, 0, 0),  // 1.0 from 3 games: beats a2a3 on games
		w("c2c3", 5, 1, 0),  // 0.83
		w("d2d4", 0, 0, 10), // 0.5
	}
	if got, ok := (Rule{MinVisits: 1}).Choose(edges, all); !ok || got.Move != "b2b3" {
		t.Errorf("best score, more games on a tie: got %s", got.Move)
	}
	if got, ok := (Rule{MinVisits: 4}).Choose(edges, all); !ok || got.Move != "c2c3" {
		t.Errorf("min visits 4: got %s", got.Move)
	}
	if got, _ := (Rule{}).Choose([]Edge{w("h2h3", 1, 0, 1), w("g2g3", 1, 0, 1)}, all); got.Move != "g2g3" {
		t.Errorf("a full tie goes to the first in UCI order, got %s", got.Move)
	}
	if got, ok := (Rule{}).Choose(edges, func(m string) bool { return m != "b2b3" }); !ok || got.Move != "a2a3" {
		t.Errorf("illegal moves are skipped: got %s", got.Move)
	}
	losing := []Edge{w("e2e4", 1, 3, 0), w("d2d4", 0, 1, 2)}
	if got, ok := (Rule{}).Choose(losing, all); !ok || got.Move != "d2d4" {
		t.Errorf("seed rule plays the best known move even when it loses: got %s, %v", got.Move, ok)
	}
	if _, ok := (Rule{MinScore: 0.5}).Choose(losing, all); ok {
		t.Error("min score 0.5 must leave lines that lost more than they won to the fallback")
	}
	black := Edge{Move: "e7e5", Player: board.Black, WhiteWins: 1, BlackWins: 3}
	if s := black.Score(); s != 0.75 {
		t.Errorf("black's score = %v, want 0.75", s)
	}
}

func TestPlayerChoosesKnownMoveAndFallsBack(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "tree.db")
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	// After 1.e4, Black knows e5 (won 2 of 3) and c5 (won 1 of 1: better).
	err = db.Record(ctx,
		Game{Moves: []string{"e2e4", "e7e5"}, Result: "0-1"},
		Game{Moves: []string{"e2e4", "e7e5"}, Result: "0-1"},
		Game{Moves: []string{"e2e4", "e7e5"}, Result: "1-0"},
		Game{Moves: []string{"e2e4", "c7c5"}, Result: "0-1"})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	play := func(spec string, moves ...string) string {
		t.Helper()
		p, err := player.New(ctx, "experience:"+path+"?"+spec)
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		mi, err := p.Move(ctx, player.Position{Moves: moves}, player.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		return mi.Move
	}
	if got := play("seed=1", "e2e4"); got != "c7c5" {
		t.Errorf("best score: got %s, want c7c5", got)
	}
	if got := play("minvisits=2", "e2e4"); got != "e7e5" {
		t.Errorf("minvisits=2: got %s, want e7e5", got)
	}
	// Unknown position: the fallback plays; heuristic at depth 2 takes the
	// queen on h6 (with the pawn or the knight).
	if got := play("fallback=heuristic%3Adepth%3D2", "e2e4", "d7d5", "d1h5", "d8d6", "h5h6"); !strings.HasSuffix(got, "h6") {
		t.Errorf("fallback heuristic: got %s, want a capture on h6", got)
	}
	for spec, want := range map[string]string{
		"minscore=2":      "between 0 and 1",
		"learn=maybe":     "not true or false",
		"fallback=nosuch": "unknown player",
		"depth=3":         "unknown setting",
	} {
		if _, err := player.New(ctx, "experience:"+path+"?"+spec); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", spec, err, want)
		}
	}
	if _, err := player.New(ctx, "experience"); err == nil || !strings.Contains(err.Error(), "needs a database") {
		t.Errorf("no path: %v", err)
	}
}

// A tree file that is not there is a mistake in the spec, unless the
// player learns: then it starts the tree.
func TestMissingTreeIsRefusedUnlessLearning(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	typo := filepath.Join(dir, "TYPO.db")
	for _, spec := range []string{
		"experience:" + typo,
		"experience:" + typo + "?fallback=heuristic%3Adepth%3D1",
		"experience:" + typo + "?learn=false",
	} {
		s, err := player.ParseSpec(spec)
		if err != nil {
			t.Fatal(err)
		}
		checkErr := player.Check(s)
		_, newErr := player.New(ctx, spec)
		for _, err := range []error{checkErr, newErr} {
			want := "player experience: " + typo + ": no such file (make a tree with `dchess experience build`, or start one with learn=true)"
			if err == nil || err.Error() != want {
				t.Errorf("%s: error %v, want %q", spec, err, want)
			} else if !errors.As(err, new(*player.SpecError)) {
				t.Errorf("%s: %v is not a *player.SpecError", spec, err)
			}
		}
		if _, err := os.Stat(typo); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("%s made the file: %v", spec, err)
		}
	}
	// The fallback's own mistakes are found by the same check.
	if err := player.Check(mustParse(t, "experience:"+typo+"?learn=true&fallback=heur")); err == nil ||
		!strings.Contains(err.Error(), "did you mean heuristic?") || !errors.As(err, new(*player.SpecError)) {
		t.Errorf("bad fallback: %v", err)
	}
	p, err := player.New(ctx, "experience:"+typo+"?learn=true")
	if err != nil {
		t.Fatalf("learn=true on a new file: %v", err)
	}
	p.Close()
	if _, err := os.Stat(typo); err != nil {
		t.Errorf("learn=true did not start the tree: %v", err)
	}
	p, err = player.New(ctx, "experience:"+typo)
	if err != nil {
		t.Fatalf("the started tree: %v", err)
	}
	p.Close()
	if _, err := NewPlayer(ctx, filepath.Join(dir, "other.db"), Options{}); err == nil || !errors.As(err, new(*player.SpecError)) {
		t.Errorf("NewPlayer on a missing file without learning: %v", err)
	}
}

func mustParse(t *testing.T, spec string) player.Spec {
	t.Helper()
	s, err := player.ParseSpec(spec)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestLearningRecordsEachGame(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "learn.db")
	spec := "experience:" + path + "?learn=true&name=learner"
	a, err := match.SpecEntrant(spec)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := match.SpecEntrant("heuristic:depth=1")
	var results []match.GameResult
	_, err = match.Run(ctx, match.Config{A: a, B: b, Games: 4, Concurrency: 2, Depth: 1, MaxMoves: 30, RandomPlies: 2,
		OnGame: func(g match.GameResult, _ *match.Report) { results = append(results, g) }})
	if err != nil {
		t.Fatal(err)
	}
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	st, err := db.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var white, black, draws int64
	for _, g := range results {
		switch g.Result {
		case "1-0":
			white++
		case "0-1":
			black++
		default:
			draws++
		}
	}
	if st.Games != 4 || st.Learnt != 4 || st.WhiteWins != white || st.BlackWins != black || st.Draws != draws {
		t.Errorf("stats %+v, games %d/%d/%d", st, white, black, draws)
	}
	// The first move of each game is in the tree with that game's result.
	for _, g := range results {
		c, _, ok := edgeCounts(t, db, g.Opening.FEN, nil, g.Moves[0].UCI)
		if !ok || c.w+c.b+c.d < 1 {
			t.Errorf("game %d's first move %s is not in the tree", g.Number, g.Moves[0].UCI)
		}
	}
	// Without learn=true nothing is recorded.
	c, _ := match.SpecEntrant("experience:" + path)
	if _, err := match.Run(ctx, match.Config{A: c, B: b, Games: 2, Depth: 1, MaxMoves: 10}); err != nil {
		t.Fatal(err)
	}
	if st2, _ := db.Stats(ctx); st2.Games != 4 {
		t.Errorf("a player without learn=true recorded games: %d", st2.Games)
	}
}
