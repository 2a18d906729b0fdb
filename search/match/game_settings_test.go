package match_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dchess/dchess/search/match"
)

func TestSettingsConfig(t *testing.T) {
	base := match.Settings{Concurrency: 2, OpeningsOrder: "sequential", RandomPlies: 4, Seed: 7, MaxMoves: 80}
	cfg, err := base.Config(3)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Concurrency != 2 || cfg.RandomPlies != 4 || cfg.Seed != 7 || cfg.MaxMoves != 80 || cfg.Openings != nil {
		t.Errorf("config %+v", cfg)
	}
	// No limit at all: a player that sets none searches to DefaultDepth.
	if cfg.DefaultDepth != match.DefaultDepth || match.LimitText(cfg) != "depth 4 unless a player sets its own" {
		t.Errorf("default depth %d, %q", cfg.DefaultDepth, match.LimitText(cfg))
	}

	limited := base
	limited.TC, limited.Depth, limited.Nodes = "10+0.1", 3, 500
	limited.DrawAdj, limited.ResignAdj = "movenumber=40,movecount=8,score=10", "movecount=3,score=600"
	cfg, err = limited.Config(1)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.DefaultDepth != 0 || cfg.Draw == nil || cfg.Draw.MoveNumber != 40 || cfg.Resign == nil || cfg.Resign.Score != 600 {
		t.Errorf("config %+v", cfg)
	}
	if got := match.LimitText(cfg); got != "tc 10+0.1, depth 3, 500 nodes" {
		t.Errorf("LimitText = %q", got)
	}
	movetime := base
	movetime.MoveTimeMS = 100
	if cfg, _ := movetime.Config(1); cfg.MoveTime != 100*time.Millisecond || match.LimitText(cfg) != "100ms/move" {
		t.Errorf("movetime: %+v, %q", cfg, match.LimitText(cfg))
	}

	book := filepath.Join(t.TempDir(), "book.epd")
	if err := os.WriteFile(book, []byte("rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq -\n"+
		"rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fromBook := base
	fromBook.Openings = book
	if cfg, err := fromBook.Config(3); err != nil || len(cfg.Openings) != 3 || cfg.Openings[2].Source != "book.epd:1" {
		t.Errorf("openings from a book: %+v, %v", cfg.Openings, err)
	}
	fromBook.Openings = filepath.Join(t.TempDir(), "missing.epd")
	var settingsErr *match.SettingsError
	if _, err := fromBook.Config(1); err == nil || errors.As(err, &settingsErr) {
		t.Errorf("a book that cannot be read is not a wrong setting: %v", err)
	}

	for want, mutate := range map[string]func(s *match.Settings){
		"--concurrency must be at least 1": func(s *match.Settings) { s.Concurrency = 0 },
		"must not be negative":             func(s *match.Settings) { s.Nodes = -1 },
		"--tc and --movetime":              func(s *match.Settings) { s.TC, s.MoveTimeMS = "1+0", 100 },
		"--tc: ":                           func(s *match.Settings) { s.TC = "fast" },
		"--draw-adjudication: ":            func(s *match.Settings) { s.DrawAdj = "score=3" },
		"--resign-adjudication: ":          func(s *match.Settings) { s.ResignAdj = "movecount=2" },
		"--openings-order must":            func(s *match.Settings) { s.OpeningsOrder = "alphabetical" },
	} {
		s := base
		mutate(&s)
		_, err := s.Config(1)
		if !errors.As(err, &settingsErr) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v", want, err)
		}
	}
}

func TestSettingsShardRun(t *testing.T) {
	s := match.Settings{Openings: "book.epd", OpeningsOrder: "random", RandomPlies: 6, Seed: 9, TC: "10+0.1",
		MoveTimeMS: 0, DrawAdj: "movecount=8,score=10", ResignAdj: "movecount=3,score=600", MaxMoves: 100}
	want := match.ShardRun{A: "heuristic", B: "random", Games: 20, Openings: "book.epd", OpeningsOrder: "random",
		RandomPlies: 6, Seed: 9, TC: "10+0.1", DrawAdj: "movecount=8,score=10", ResignAdj: "movecount=3,score=600",
		MaxMoves: 100, SPRT: "elo0=0,elo1=10"}
	if got := s.ShardRun("heuristic", "random", 20, "elo0=0,elo1=10"); got != want {
		t.Errorf("ShardRun = %+v, want %+v", got, want)
	}
}
