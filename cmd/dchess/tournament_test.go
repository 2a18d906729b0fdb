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
)

func TestTournamentRatingsWithAnchor(t *testing.T) {
	s, out, _ := playStreams("")
	opts := &tournamentOptions{Players: []string{"heuristic:depth=2,random", "heuristic:depth=1"}, Anchor: "random=1000",
		GamesPerPair: 4, JSON: true, gameFlags: gameFlags{Concurrency: 2, OpeningsOrder: "sequential", RandomPlies: 4, Seed: 3, Depth: 2, MaxMoves: 120}}
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
		if m["name"] != "random" && m["error"].(float64) <= 0 {
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
		GamesPerPair: 2, gameFlags: gameFlags{Concurrency: 1, OpeningsOrder: "sequential", RandomPlies: 2, Seed: 1, Depth: 1, MaxMoves: 100}}
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
		`--anchor: no player named "x"`: {Players: []string{"heuristic,random"}, Anchor: "x=5", GamesPerPair: 2},
		"--anchor wants NAME=ELO":       {Players: []string{"heuristic,random"}, Anchor: "random", GamesPerPair: 2},
		"--games-per-pair":              {Players: []string{"heuristic,random"}},
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
	opts := &tournamentOptions{Players: []string{"heuristic,random"}, Anchor: "x=5", GamesPerPair: 2,
		gameFlags: gameFlags{Concurrency: 1, OpeningsOrder: "sequential", Depth: 1, PGN: pgn}}
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
		gameFlags: gameFlags{Concurrency: 1, OpeningsOrder: "sequential", RandomPlies: 4, Seed: 3, Depth: 1, MaxMoves: 60, PGN: pgn}}
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
