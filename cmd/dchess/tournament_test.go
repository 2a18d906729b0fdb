package main

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dchess/dchess/search/match"
	"github.com/dchess/dchess/search/tournament"
)

func TestTournamentRatingsWithAnchor(t *testing.T) {
	s, out, _ := playStreams("")
	opts := &tournamentOptions{Players: []string{"heuristic:depth=2,random", "heuristic:depth=1"}, Anchors: []string{"random=1000"},
		GamesPerPair: 4, JSON: true, gameFlags: gameFlags{Settings: match.Settings{Concurrency: 2, OpeningsOrder: "sequential", RandomPlies: 4, Seed: 3, Depth: 2, MaxMoves: 120}}}
	if err := runTournament(context.Background(), opts, s); err != nil {
		t.Fatal(err)
	}
	var raw map[string]any
	if err := json.Unmarshal(out.Bytes(), &raw); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	players := raw["players"].([]any)
	if len(players) != 3 || len(raw["pairs"].([]any)) != 3 {
		t.Fatalf("JSON %s", out)
	}
	elos := map[string]float64{}
	for _, p := range players {
		m := p.(map[string]any)
		elos[m["name"].(string)] = m["elo"].(float64)
		if m["games"].(float64) != 8 {
			t.Errorf("%s played %v games, want 8", m["name"], m["games"])
		}
		if e, ok := m["elo_error"].(float64); m["name"] != "random" && (!ok || e <= 0) {
			t.Errorf("%s has no error bar", m["name"])
		}
	}
	if elos["random"] != 1000 || math.Abs(elos["random"]-1000) > 1e-9 {
		t.Errorf("anchor moved: %v", elos)
	}
	if !(elos["heuristic:depth=2"] > elos["random"] && elos["heuristic:depth=1"] > elos["random"]) {
		t.Errorf("ratings %v: both heuristics should rate above random", elos)
	}
	if players[0].(map[string]any)["rank"].(float64) != 1 {
		t.Error("players are not ranked")
	}
}

func TestTournamentGauntletTable(t *testing.T) {
	s, out, errOut := playStreams("")
	opts := &tournamentOptions{Players: []string{"heuristic:depth=1", "random:seed=1", "random:seed=2"}, Gauntlet: true,
		GamesPerPair: 2, gameFlags: gameFlags{Settings: match.Settings{Concurrency: 1, OpeningsOrder: "sequential", RandomPlies: 2, Seed: 1, Depth: 1, MaxMoves: 100}}}
	if err := runTournament(context.Background(), opts, s); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	for _, want := range []string{"Rank", "Elo", "+/-", "heuristic:depth=1", "random:seed=2", "Anchor: heuristic:depth=1 = 0"} {
		if !strings.Contains(text, want) {
			t.Errorf("table lacks %q:\n%s", want, text)
		}
	}
	// A gauntlet plays only the first player's two pairings, not random against random.
	if !strings.Contains(errOut.String(), "[2/2] heuristic:depth=1 vs random:seed=2") || strings.Contains(errOut.String(), "[3/") {
		t.Errorf("pairings:\n%s", errOut)
	}
}

func TestTournamentBadInput(t *testing.T) {
	for want, opts := range map[string]*tournamentOptions{
		"at least two":                  {Players: []string{"heuristic"}, GamesPerPair: 2},
		`--anchor: no player named "x"`: {Players: []string{"heuristic,random"}, Anchors: []string{"random=1,x=5"}, GamesPerPair: 2},
		"--anchor wants NAME=ELO":       {Players: []string{"heuristic,random"}, Anchors: []string{"random"}, GamesPerPair: 2},
		`--anchor wants NAME=ELO with a finite ELO, got "random=abc"`: {Players: []string{"heuristic,random"}, Anchors: []string{"heuristic=0", "random=abc"}, GamesPerPair: 2},
		`--anchor: "random" is anchored twice`:                        {Players: []string{"heuristic,random"}, Anchors: []string{"random=1", "random=2"}, GamesPerPair: 2},
		"--games-per-pair":                                            {Players: []string{"heuristic,random"}},
	} {
		opts.Concurrency, opts.OpeningsOrder, opts.Depth = 1, "sequential", 1
		s, _, _ := playStreams("")
		err := runTournament(context.Background(), opts, s)
		var usage *usageError
		if !errors.As(err, &usage) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v", want, err)
		}
	}
}

// TestTournamentBadAnchorLeavesPGN: an anchor that names no player is
// found before the --pgn file is opened, so an existing file is kept.
func TestTournamentBadAnchorLeavesPGN(t *testing.T) {
	pgn := filepath.Join(t.TempDir(), "games.pgn")
	if err := os.WriteFile(pgn, []byte("[Event \"kept\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	opts := &tournamentOptions{Players: []string{"heuristic,random"}, Anchors: []string{"x=5"}, GamesPerPair: 2,
		gameFlags: gameFlags{Settings: match.Settings{Concurrency: 1, OpeningsOrder: "sequential", Depth: 1}, PGN: pgn}}
	s, _, _ := playStreams("")
	var usage *usageError
	if err := runTournament(context.Background(), opts, s); !errors.As(err, &usage) {
		t.Fatalf("got %v", err)
	}
	if data, _ := os.ReadFile(pgn); string(data) != "[Event \"kept\"]\n" {
		t.Errorf("the PGN file became %q", data)
	}
}

// TestTournamentJournalBesidePGN: with --pgn the tournament keeps its
// journal beside the file; one of other settings (here a foreign line) is
// refused unless --force, and the journal is gone when the tournament ends.
func TestTournamentJournalBesidePGN(t *testing.T) {
	pgn := filepath.Join(t.TempDir(), "rr.pgn")
	opts := &tournamentOptions{Players: []string{"heuristic:depth=1,random"}, GamesPerPair: 2,
		gameFlags: gameFlags{Settings: match.Settings{Concurrency: 1, OpeningsOrder: "sequential", RandomPlies: 4, Seed: 3, Depth: 1, MaxMoves: 60}, PGN: pgn}}
	journal := filepath.Join(filepath.Dir(pgn), ".rr.pgn.journal.jsonl")
	other := `{"settings_hash":"other","a":"x","b":"y","game":{"n":1,"result":"1-0","a_white":true,"termination":"checkmate"},"pgn":""}` + "\n"
	if err := os.WriteFile(journal, []byte(other), 0o644); err != nil {
		t.Fatal(err)
	}
	s, _, _ := playStreams("")
	if err := runTournament(context.Background(), opts, s); err == nil || !strings.Contains(err.Error(), journal) || !strings.Contains(err.Error(), "--force") {
		t.Fatalf("a journal of other settings: %v", err)
	}
	opts.Force = true
	if err := runTournament(context.Background(), opts, s); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(pgn)
	if err != nil || strings.Count(string(data), "[Event ") != 2 {
		t.Fatalf("PGN: %v\n%s", err, data)
	}
	if _, err := os.Stat(journal); !os.IsNotExist(err) {
		t.Fatalf("journal left after the tournament ended: %v", err)
	}
}

// TestStoppedTournamentLeavesNoPGNAndContinues: a tournament stopped as its
// second pairing starts leaves no PGN file, only its journal; the same
// command run again takes the first pairing's games from the journal and
// writes the file whole.
func TestStoppedTournamentLeavesNoPGNAndContinues(t *testing.T) {
	pgn := filepath.Join(t.TempDir(), "rr.pgn")
	journal := filepath.Join(filepath.Dir(pgn), ".rr.pgn.journal.jsonl")
	options := func() *tournamentOptions {
		return &tournamentOptions{Players: []string{"heuristic:depth=1,random:seed=1,random:seed=2"}, GamesPerPair: 2,
			gameFlags: gameFlags{Settings: match.Settings{Concurrency: 1, OpeningsOrder: "sequential", RandomPlies: 4, Seed: 3, Depth: 1, MaxMoves: 60}, PGN: pgn}}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s, _, _ := playStreams("")
	s.ErrOut = &actOnLine{marker: "[2/3] ", n: 1, act: cancel}
	err := runTournament(ctx, options(), s)
	if !errors.Is(err, tournament.ErrInterrupted) || !strings.Contains(err.Error(), journal) {
		t.Fatalf("stopped tournament: %v", err)
	}
	if _, err := os.Stat(pgn); !os.IsNotExist(err) {
		t.Fatalf("a stopped tournament left a PGN file that looks finished: %v", err)
	}
	s, _, errOut := playStreams("")
	if err := runTournament(context.Background(), options(), s); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(errOut.String(), "(2 of 2 games from the journal)") {
		t.Errorf("the rerun did not continue from the journal:\n%s", errOut)
	}
	if data, err := os.ReadFile(pgn); err != nil || strings.Count(string(data), "[Event ") != 6 {
		t.Errorf("PGN: %v\n%s", err, data)
	}
	if _, err := os.Stat(journal); !os.IsNotExist(err) {
		t.Errorf("journal left after the tournament ended: %v", err)
	}
}

// TestTournamentProgressLinesInALog: not on a terminal, a tournament prints
// a progress line over all its games beside each pairing's lines; --quiet
// silences both.
func TestTournamentProgressLinesInALog(t *testing.T) {
	opts := &tournamentOptions{Players: []string{"random:seed=1,random:seed=2,random:seed=3"}, GamesPerPair: 2,
		gameFlags: gameFlags{Settings: match.Settings{Concurrency: 1, OpeningsOrder: "sequential", RandomPlies: 2, Seed: 1, MaxMoves: 20, TimeMargin: 50 * time.Millisecond}}}
	s, _, errOut := playStreams("")
	s.ProgressInterval = time.Nanosecond
	if err := runTournament(context.Background(), opts, s); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"tournament: 1/6 games (16 %)", "tournament: done, 6/6 games (100 %) in ", "\n[3/3] random:seed=2 vs random:seed=3\n"} {
		if !strings.Contains(errOut.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	s, _, errOut = playStreams("")
	s.ProgressInterval, s.Quiet = time.Nanosecond, true
	if err := runTournament(context.Background(), opts, s); err != nil {
		t.Fatal(err)
	}
	if errOut.Len() != 0 {
		t.Errorf("--quiet printed:\n%s", errOut)
	}
}

// TestTournamentAnchorFlags: --anchor is repeatable and comma-separated,
// and a bad one exits 2 with one line before anything is played.
func TestTournamentAnchorFlags(t *testing.T) {
	for _, c := range []struct {
		anchors []string
		want    string
	}{
		{[]string{"--anchor", "random=0,random=1"}, `--anchor: "random" is anchored twice`},
		{[]string{"--anchor", "random=0", "--anchor", "heuristic=x"}, `--anchor wants NAME=ELO with a finite ELO, got "heuristic=x"`},
		{[]string{"--anchor", "random=0", "--anchor", "stockfish=2200"}, `--anchor: no player named "stockfish" (players: heuristic, random)`},
	} {
		args := append([]string{"tournament", "--players", "heuristic,random", "--games-per-pair", "2"}, c.anchors...)
		code, stderr := runMain(args...)
		if code != 2 || !strings.HasPrefix(stderr, "dchess: "+c.want+"\n") {
			t.Errorf("%q: exit %d, stderr\n%s", c.anchors, code, stderr)
		}
	}
}

// TestTournamentMergeReadsTournamentJSON pools two tournaments' --json
// outputs, played on other seeds, through the command.
func TestTournamentMergeReadsTournamentJSON(t *testing.T) {
	dir := t.TempDir()
	var files []string
	for _, seed := range []uint64{1, 2} {
		s, out, _ := playStreams("")
		opts := &tournamentOptions{Players: []string{"heuristic:depth=1,random"}, Anchors: []string{"random=1000"}, GamesPerPair: 2, JSON: true,
			gameFlags: gameFlags{Settings: match.Settings{Concurrency: 2, OpeningsOrder: "sequential", RandomPlies: 4, Seed: seed, Depth: 1, MaxMoves: 100}}}
		if err := runTournament(context.Background(), opts, s); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, "seed"+string(rune('0'+seed))+".json")
		if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, path)
	}
	s, out, errOut := playStreams("")
	if err := runTournamentMerge(&tournamentMergeOptions{Files: files}, s); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(errOut.String(), "Merged 2 standings files: 4 games") {
		t.Errorf("stderr %q", errOut)
	}
	text := out.String()
	for _, want := range []string{"heuristic:depth=1", "Anchor: random = 1000", "heuristic:depth=1 vs random: +"} {
		if !strings.Contains(text, want) {
			t.Errorf("table lacks %q:\n%s", want, text)
		}
	}
	var usage *usageError
	if err := runTournamentMerge(&tournamentMergeOptions{Files: files, Anchors: []string{"nobody=5"}}, s); !errors.As(err, &usage) || !strings.Contains(err.Error(), `no player named "nobody"`) {
		t.Errorf("unknown anchor: %v", err)
	}
	s, out, _ = playStreams("")
	if err := runTournamentMerge(&tournamentMergeOptions{Files: files, Anchors: []string{"heuristic:depth=1=1500"}, JSON: true}, s); err != nil {
		t.Fatal(err)
	}
	var st tournament.Standings
	if err := json.Unmarshal(out.Bytes(), &st); err != nil || len(st.Players) != 2 || st.Anchor.Name != "heuristic:depth=1" || st.Players[0].Games != 4 {
		t.Errorf("JSON %s (%v)", out, err)
	}
}
