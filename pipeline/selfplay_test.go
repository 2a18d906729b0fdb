package pipeline

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/dchess/dchess/dataset"
	"github.com/dchess/dchess/dataset/ingest"
	"github.com/dchess/dchess/search"
	"github.com/dchess/dchess/search/board"
	"github.com/dchess/dchess/search/heuristic"
	"github.com/dchess/dchess/search/match"
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
	res, err := SelfPlay(ctx, SelfPlayOptions{
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
		_, err := SelfPlay(ctx, SelfPlayOptions{
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
