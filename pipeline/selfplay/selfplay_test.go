package selfplay

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/dchess/dchess/dataset"
	"github.com/dchess/dchess/dataset/ingest"
	"github.com/dchess/dchess/internal/chess/board"
	"github.com/dchess/dchess/search"
	"github.com/dchess/dchess/search/heuristic"
	"github.com/dchess/dchess/search/match"
	"github.com/dchess/dchess/search/player"
)

func TestBalancedOpening(t *testing.T) {
	ctx := context.Background()
	for i := range 6 {
		o, err := BalancedOpening(ctx, i, 8, 50, 2, 3)
		if err != nil {
			t.Fatal(err)
		}
		again, _ := BalancedOpening(ctx, i, 8, 50, 2, 3)
		if again != o {
			t.Errorf("opening %d differs between calls: %s, %s", i, o.FEN, again.FEN)
		}
		b, err := board.FromFEN(o.FEN)
		if err != nil {
			t.Fatal(err)
		}
		if b.Ply() != 0 || b.FullmoveNumber() != 5 {
			t.Errorf("opening %d: %s is not 8 plies in", i, o.FEN)
		}
		res := search.New(heuristic.New(), search.Options{HashMB: 1}).Search(ctx, b, search.Limits{Depth: 2}, nil)
		if res.Score > 50 || res.Score < -50 {
			t.Errorf("opening %d: %s scores %d, outside ±50", i, o.FEN, res.Score)
		}
	}
}

func TestSelfPlayWritesPGNThatIngestReads(t *testing.T) {
	ctx := context.Background()
	out := filepath.Join(t.TempDir(), "games.pgn")
	moves := map[int]string{}
	res, err := Run(ctx, Options{
		Match: match.Config{Depth: 1, Concurrency: 2, MaxMoves: 40, Seed: 5},
		A:     "heuristic:depth=1", Games: 6, OpeningPlies: 4, BalanceCP: 100, RandomRate: 0.2, Output: out,
		OnGame: func(g match.GameResult, _ *match.Report) {
			for _, m := range g.Moves {
				moves[g.Number] += m.UCI + " "
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Games != 6 || res.WhiteWins+res.BlackWins+res.Draws != 6 || res.Plies == 0 {
		t.Fatalf("result %+v", res)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(out), ".tmp-games.pgn")); !os.IsNotExist(err) {
		t.Errorf("temporary file left behind: %v", err)
	}
	sink := &countingSink{}
	opts := ingest.DefaultOptions()
	opts.Strict = true
	sum, err := ingest.Run(ctx, []string{out}, nil, opts, sink)
	if err != nil {
		t.Fatal(err)
	}
	if sum.GamesKept != 6 || sink.n != int64(res.Plies) {
		t.Errorf("ingest kept %d games and %d positions, want 6 and %d", sum.GamesKept, sink.n, res.Plies)
	}
	// A player against itself replays the same game from an opening with
	// colours swapped, unless the random-move rate makes them differ.
	for pair := 1; pair <= 5; pair += 2 {
		if moves[pair] == moves[pair+1] {
			t.Errorf("games %d and %d are the same: %s", pair, pair+1, moves[pair])
		}
	}
}

// countingSink counts the records ingest writes.
type countingSink struct{ n int64 }

func (c *countingSink) Write(*dataset.Record) error { c.n++; return nil }

func TestSelfPlayPairsKeepTheirGames(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	play := func(pairs []int, name string) map[int]string {
		games := map[int]string{}
		_, err := Run(ctx, Options{
			Match: match.Config{Depth: 1, MaxMoves: 20, Seed: 9}, A: "heuristic:depth=1", Games: 6, Pairs: pairs,
			OpeningPlies: 4, BalanceCP: 200, RandomRate: 0.2, Output: filepath.Join(dir, name),
			OnGame: func(g match.GameResult, _ *match.Report) {
				for _, m := range g.Moves {
					games[g.Number] += m.UCI + " "
				}
			},
		})
		if err != nil {
			t.Fatal(err)
		}
		return games
	}
	whole, shard := play(nil, "all.pgn"), play([]int{0, 2}, "shard.pgn")
	if len(shard) != 4 {
		t.Fatalf("the shard played games %v, want 1, 2, 5 and 6", shard)
	}
	for n, moves := range shard {
		if whole[n] != moves {
			t.Errorf("game %d differs between the whole run and the shard", n)
		}
	}
}

var (
	selfPlayDate = regexp.MustCompile(`\[Date "[^"]*"\]`)
	// A move's time ends its comment, or is followed by the game's end.
	selfPlayMoveTime = regexp.MustCompile(` \d+\.\d{3}s([,}])`)
)

// withoutClock drops what the wall clock decides from a PGN, the date and
// each move's time, leaving what the seed and the limits decide.
func withoutClock(pgn []byte) string {
	return selfPlayMoveTime.ReplaceAllString(selfPlayDate.ReplaceAllString(string(pgn), ""), "$1")
}

// resumableSelfPlay is a small run whose games repeat exactly: 8 games of
// the heuristic at depth 1 against random moves, two at a time.
func resumableSelfPlay(out string, seed uint64) Options {
	return Options{Match: match.Config{Depth: 1, Concurrency: 2, MaxMoves: 30, Seed: seed},
		A: "heuristic:depth=1", B: "random", Games: 8, OpeningPlies: 4, BalanceCP: 200, RandomRate: 0.1, Output: out}
}

// interruptSelfPlay runs opts until after games games are played and
// cancels it, as Ctrl-C does; it returns the journal's path.
func interruptSelfPlay(t *testing.T, opts Options, games int) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	opts.OnGame = func(_ match.GameResult, r *match.Report) {
		if r.Games == games {
			cancel()
		}
	}
	res, err := Run(ctx, opts)
	if !errors.Is(err, context.Canceled) || res == nil || res.Games != games {
		t.Fatalf("interrupted run: %+v, %v; want %d games and context.Canceled", res, err, games)
	}
	if _, err := os.Stat(opts.Output); !os.IsNotExist(err) {
		t.Fatalf("an interrupted run wrote %s: %v", opts.Output, err)
	}
	return Journal(opts.Output)
}

// TestSelfPlayInterruptedRunContinues stops a run after three games, tears
// its journal's last line as a kill in the middle of writing would, and
// checks that the rerun (one game at a time: the concurrency does not
// change the games) plays only the five others and writes the PGN an
// uninterrupted run writes, in game order, then removes the journal.
func TestSelfPlayInterruptedRunContinues(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	ref := resumableSelfPlay(filepath.Join(dir, "ref.pgn"), 5)
	whole, err := Run(ctx, ref)
	if err != nil {
		t.Fatal(err)
	}
	if whole.Games != 8 || whole.Resumed != 0 {
		t.Fatalf("uninterrupted run: %+v", whole)
	}
	if _, err := os.Stat(Journal(ref.Output)); !os.IsNotExist(err) {
		t.Fatalf("journal left after a finished run: %v", err)
	}

	opts := resumableSelfPlay(filepath.Join(dir, "games.pgn"), 5)
	journal := interruptSelfPlay(t, opts, 3)
	f, err := os.OpenFile(journal, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"settings_hash":"torn`)
	f.Close()

	opts.Match.Concurrency = 1
	var told [2]int
	played := 0
	opts.OnStart = func(games, resumed int) { told = [2]int{games, resumed} }
	opts.OnGame = func(match.GameResult, *match.Report) { played++ }
	res, err := Run(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	if res.Games != 8 || res.Resumed != 3 || played != 5 || told != [2]int{8, 3} {
		t.Fatalf("rerun: %+v, played %d, OnStart told %v; want 8 games, 3 of them resumed", res, played, told)
	}
	if res.WhiteWins != whole.WhiteWins || res.BlackWins != whole.BlackWins || res.Draws != whole.Draws || res.Plies != whole.Plies {
		t.Errorf("rerun counts %+v, uninterrupted %+v", res, whole)
	}
	if _, err := os.Stat(journal); !os.IsNotExist(err) {
		t.Errorf("journal left after the run finished: %v", err)
	}
	got, _ := os.ReadFile(opts.Output)
	want, _ := os.ReadFile(ref.Output)
	if withoutClock(got) != withoutClock(want) {
		t.Fatalf("continued run's PGN:\n%s\nuninterrupted run's:\n%s", got, want)
	}
	rounds := regexp.MustCompile(`\[Round "(\d+)"\]`).FindAllStringSubmatch(string(got), -1)
	for i, r := range rounds {
		if r[1] != strconv.Itoa(i+1) {
			t.Fatalf("game %d of the file is round %s: not in game order", i+1, r[1])
		}
	}
	if len(rounds) != 8 {
		t.Fatalf("the file holds %d games", len(rounds))
	}
}

// TestSelfPlayJournalDropsATornGame cuts the journal's last game in half,
// as a kill while it was written leaves it: the rerun plays that game again.
func TestSelfPlayJournalDropsATornGame(t *testing.T) {
	opts := resumableSelfPlay(filepath.Join(t.TempDir(), "games.pgn"), 6)
	opts.Games = 4
	journal := interruptSelfPlay(t, opts, 2)
	data, err := os.ReadFile(journal)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("journal of two games has %d lines", len(lines))
	}
	if err := os.WriteFile(journal, []byte(lines[0]+lines[1][:len(lines[1])/2]), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if res.Games != 4 || res.Resumed != 1 {
		t.Fatalf("rerun after a torn game: %+v, want 4 games, 1 resumed", res)
	}
}

// TestSelfPlayJournalOfOtherSettingsIsRefused: a rerun with another seed
// over an interrupted run's journal is refused in one line naming the
// journal and --force, and leaves it alone; with Restart it starts over.
func TestSelfPlayJournalOfOtherSettingsIsRefused(t *testing.T) {
	ctx := context.Background()
	opts := resumableSelfPlay(filepath.Join(t.TempDir(), "games.pgn"), 7)
	opts.Games = 4
	journal := interruptSelfPlay(t, opts, 2)
	before, _ := os.ReadFile(journal)

	for name, change := range map[string]func(*Options){
		"seed":        func(o *Options) { o.Match.Seed = 8 },
		"games":       func(o *Options) { o.Games = 6 },
		"player":      func(o *Options) { o.B = "heuristic:depth=1" },
		"random rate": func(o *Options) { o.RandomRate = 0.2 },
		"depth":       func(o *Options) { o.Match.Depth = 2 },
	} {
		other := opts
		change(&other)
		_, err := Run(ctx, other)
		if err == nil || !strings.Contains(err.Error(), journal) || !strings.Contains(err.Error(), "--force") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s changed: %v; want a one-line refusal naming %s and --force", name, err, journal)
		}
		if after, _ := os.ReadFile(journal); string(after) != string(before) {
			t.Fatalf("%s changed: the refused run changed the journal", name)
		}
	}

	other := opts
	other.Match.Seed, other.Restart = 8, true
	res, err := Run(ctx, other)
	if err != nil || res.Resumed != 0 || res.Games != 4 {
		t.Fatalf("restart over another run's journal: %+v, %v", res, err)
	}
	if _, err := os.Stat(journal); !os.IsNotExist(err) {
		t.Errorf("journal left after the restarted run finished: %v", err)
	}
}

// A bare model name is resolved once: every game plays the same weights,
// even when newer ones appear meanwhile, under the name it was typed with.
func TestSelfPlayResolvesABareModelNameOnce(t *testing.T) {
	dir := t.TempDir()
	var resolved int
	player.SetModelResolver(func(context.Context, string) (string, error) {
		resolved++ // newer weights at every call
		path := filepath.Join(dir, "model-"+strconv.Itoa(resolved)+".dcw")
		return path, os.WriteFile(path, nil, 0o644)
	})
	defer player.SetModelResolver(nil)
	played := map[string]bool{}
	var mu sync.Mutex
	player.RegisterModel("selfplaymodel", func(_ context.Context, s player.Spec) (player.Player, error) {
		mu.Lock()
		defer mu.Unlock()
		played[s.Path] = true
		return player.NewRandom(s.DisplayName(), 1), nil
	})
	out := filepath.Join(t.TempDir(), "games.pgn")
	if _, err := Run(context.Background(), Options{Match: match.Config{Depth: 1, Concurrency: 2, MaxMoves: 10, Seed: 1},
		A: "selfplaymodel", B: "random", Games: 4, OpeningPlies: 2, BalanceCP: 10000, Output: out}); err != nil {
		t.Fatal(err)
	}
	if len(played) != 1 {
		t.Errorf("the games played %d weights files: %v", len(played), played)
	}
	pgn, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(pgn), `[White "selfplaymodel"]`); n != 2 {
		t.Errorf("%d games with White \"selfplaymodel\", want 2:\n%s", n, pgn)
	}
}
