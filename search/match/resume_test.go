package match_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/dchess/dchess/search/elo"
	"github.com/dchess/dchess/search/match"
)

// stopAfter is an OnGame that ends the match's context once n games count.
func stopAfter(n int, cancel context.CancelFunc) func(match.GameResult, *match.Report) {
	return func(_ match.GameResult, r *match.Report) {
		if r.Games == n {
			cancel()
		}
	}
}

// plainRun is what an uninterrupted match.Run of cfg reports and writes.
func plainRun(t *testing.T, cfg match.Config) (*match.Report, string) {
	t.Helper()
	var pgn bytes.Buffer
	cfg.PGN = &pgn
	rep, err := match.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return rep, pgn.String()
}

// TestResumableMatchContinues stops a match with a PGN file after three
// games, tears its journal's last line as a kill would, and checks that no
// PGN file was left, that the rerun plays only the other games, and that
// it ends with the report and the PGN file of an uninterrupted run.
func TestResumableMatchContinues(t *testing.T) {
	config := func() match.Config {
		cfg := shardedConfig(t)
		cfg.SPRT = nil // its test decides in three games
		return cfg
	}
	pgn := filepath.Join(t.TempDir(), "games.pgn")
	ctx, cancel := context.WithCancel(context.Background())
	cfg := config()
	cfg.OnGame = stopAfter(3, cancel)
	res, err := match.RunResumable(ctx, match.ResumableOptions{Config: cfg, Settings: shardedSettings(1), PGN: pgn})
	if !errors.Is(err, context.Canceled) || res.Report == nil || res.Report.Games != 3 {
		t.Fatalf("stopping the match: %v, %+v", err, res)
	}
	if _, err := os.Stat(pgn); !os.IsNotExist(err) {
		t.Fatalf("a stopped match left its PGN file: %v", err)
	}
	if res.Journal != match.JournalBeside(pgn) {
		t.Fatalf("journal %s, want %s", res.Journal, match.JournalBeside(pgn))
	}
	f, err := os.OpenFile(res.Journal, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"settings_hash":"torn`)
	f.Close()

	played := 0
	cfg = config()
	cfg.OnGame = func(match.GameResult, *match.Report) { played++ }
	var started [2]int
	res, err = match.RunResumable(context.Background(), match.ResumableOptions{Config: cfg, Settings: shardedSettings(1), PGN: pgn,
		OnStart: func(games, resumed int) { started = [2]int{games, resumed} }})
	if err != nil {
		t.Fatal(err)
	}
	if res.Resumed != 3 || played != 10 || started != [2]int{13, 3} {
		t.Fatalf("resumed %d, played %d, told %v; want 3 resumed and 10 played of 13", res.Resumed, played, started)
	}
	if _, err := os.Stat(res.Journal); !os.IsNotExist(err) {
		t.Fatalf("journal left after the match ended: %v", err)
	}
	whole, wholePGN := plainRun(t, config())
	if !reflect.DeepEqual(counts(res.Report), counts(whole)) {
		t.Fatalf("continued %v\nuninterrupted %v", counts(res.Report), counts(whole))
	}
	data, err := os.ReadFile(pgn)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := withoutClock(string(data)), withoutClock(wholePGN); got != want {
		t.Fatalf("continued PGN differs from the uninterrupted run's:\n%s\nwant\n%s", got, want)
	}
}

// TestResumableMatchCountsTheJournalInTheSPRT: the journalled games count
// in the test, so a continued match stops where an uninterrupted one
// does, and one whose journal already decided it plays nothing more.
func TestResumableMatchCountsTheJournalInTheSPRT(t *testing.T) {
	test, err := elo.ParseSPRT("elo0=0,elo1=200,alpha=0.05,beta=0.05")
	if err != nil {
		t.Fatal(err)
	}
	config := func() match.Config {
		return match.Config{A: specEntrant(t, "heuristic:depth=1"), B: specEntrant(t, "random"), Games: 200, Depth: 1,
			MaxMoves: 100, Seed: 3, SPRT: &test}
	}
	settings := map[string]any{"sprt": test.String()}
	whole, wholePGN := plainRun(t, config())
	if whole.StoppedEarly != "sprt" || whole.Games < 4 {
		t.Fatalf("the uninterrupted match did not stop on the test after a few games:\n%s", whole.Text())
	}

	pgn := filepath.Join(t.TempDir(), "games.pgn")
	ctx, cancel := context.WithCancel(context.Background())
	cfg := config()
	cfg.OnGame = stopAfter(2, cancel)
	if _, err := match.RunResumable(ctx, match.ResumableOptions{Config: cfg, Settings: settings, PGN: pgn}); !errors.Is(err, context.Canceled) {
		t.Fatalf("stopping the match: %v", err)
	}
	res, err := match.RunResumable(context.Background(), match.ResumableOptions{Config: config(), Settings: settings, PGN: pgn})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(counts(res.Report), counts(whole)) || res.Report.StoppedEarly != "sprt" {
		t.Fatalf("continued %v\nuninterrupted %v", counts(res.Report), counts(whole))
	}
	if data, _ := os.ReadFile(pgn); withoutClock(string(data)) != withoutClock(wholePGN) {
		t.Fatalf("continued PGN differs from the uninterrupted run's")
	}

	// Killed after the deciding game was journalled, before the file was
	// written: the rerun plays nothing and writes it.
	os.Remove(pgn)
	ctx, cancel = context.WithCancel(context.Background())
	cfg = config()
	cfg.OnGame = stopAfter(whole.Games, cancel)
	if _, err := match.RunResumable(ctx, match.ResumableOptions{Config: cfg, Settings: settings, PGN: pgn}); !errors.Is(err, context.Canceled) {
		t.Fatalf("stopping the match at its deciding game: %v", err)
	}
	played := 0
	cfg = config()
	cfg.OnGame = func(match.GameResult, *match.Report) { played++ }
	res, err = match.RunResumable(context.Background(), match.ResumableOptions{Config: cfg, Settings: settings, PGN: pgn})
	if err != nil {
		t.Fatal(err)
	}
	if played != 0 || res.Resumed != whole.Games || !reflect.DeepEqual(counts(res.Report), counts(whole)) || res.Report.StoppedEarly != "sprt" {
		t.Fatalf("rerun of a decided journal played %d games: %v", played, counts(res.Report))
	}
	if data, _ := os.ReadFile(pgn); withoutClock(string(data)) != withoutClock(wholePGN) {
		t.Fatalf("PGN of a decided journal differs from the uninterrupted run's")
	}
}
