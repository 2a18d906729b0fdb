package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dchess/dchess/search/player"
)

func playStreams(in string) (*IOStreams, *bytes.Buffer, *bytes.Buffer) {
	var out, errOut bytes.Buffer
	return &IOStreams{In: strings.NewReader(in), Out: &out, ErrOut: &errOut}, &out, &errOut
}

func TestMatchJSONAndPGN(t *testing.T) {
	s, out, errOut := playStreams("")
	pgn := filepath.Join(t.TempDir(), "games.pgn")
	opts := &matchOptions{A: "heuristic:depth=1", B: "random", Games: 4, ReportEvery: 2, JSON: true,
		SPRT: "elo0=0,elo1=10", gameFlags: gameFlags{Concurrency: 2, OpeningsOrder: "sequential", RandomPlies: 4, Seed: 1,
			Depth: 1, PGN: pgn, MaxMoves: 150, TimeMargin: 50 * time.Millisecond}}
	if err := runMatch(context.Background(), opts, s); err != nil {
		t.Fatal(err)
	}
	var rep map[string]any
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("not one JSON object: %v\n%s", err, out)
	}
	for _, key := range []string{"a", "b", "games", "wins", "losses", "draws", "score", "elo", "elo_error", "los",
		"draw_ratio", "pentanomial", "sprt", "terminations"} {
		if _, ok := rep[key]; !ok {
			t.Errorf("JSON lacks %q", key)
		}
	}
	if rep["games"] != 4.0 || rep["a"] != "heuristic:depth=1" {
		t.Errorf("JSON %s", out)
	}
	if n := strings.Count(errOut.String(), "Score of heuristic:depth=1 vs random"); n != 2 {
		t.Errorf("%d interim reports on stderr, want 2:\n%s", n, errOut)
	}
	data, err := os.ReadFile(pgn)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(data), "[Event "); n != 4 {
		t.Errorf("PGN holds %d games", n)
	}
}

func TestMatchTextWithOpeningsFile(t *testing.T) {
	book := filepath.Join(t.TempDir(), "book.epd")
	os.WriteFile(book, []byte("rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq -\n"), 0o644)
	s, out, errOut := playStreams("")
	s.Quiet = true
	opts := &matchOptions{A: "heuristic:depth=1", B: "random", Games: 2, ReportEvery: 1,
		gameFlags: gameFlags{Concurrency: 1, Openings: book, OpeningsOrder: "random", Seed: 1, Nodes: 500, MaxMoves: 150}}
	if err := runMatch(context.Background(), opts, s); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Score of heuristic:depth=1 vs random: ", "Elo difference: ", "LOS: ", "DrawRatio: ", "Ptnml(0-2): ["} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	if errOut.Len() != 0 {
		t.Errorf("--quiet still wrote %q", errOut)
	}
}

func TestMatchBadInput(t *testing.T) {
	base := func() *matchOptions {
		return &matchOptions{A: "heuristic", B: "random", Games: 2,
			gameFlags: gameFlags{Concurrency: 1, OpeningsOrder: "sequential", Depth: 1}}
	}
	cases := map[string]func(o *matchOptions){
		"--a is required":         func(o *matchOptions) { o.A = "" },
		"--b: player spec":        func(o *matchOptions) { o.B = "uci:x?=3" },
		"--tc":                    func(o *matchOptions) { o.TC = "fast" },
		"--sprt":                  func(o *matchOptions) { o.SPRT = "elo0=0" },
		"--games must be":         func(o *matchOptions) { o.Games = 0 },
		"--openings-order must":   func(o *matchOptions) { o.OpeningsOrder = "alphabetical" },
		"--draw-adjudication":     func(o *matchOptions) { o.DrawAdj = "score=3" },
		"--tc and --movetime":     func(o *matchOptions) { o.TC, o.MoveTimeMS = "1+0", 100 },
		"--concurrency must":      func(o *matchOptions) { o.Concurrency = 0 },
		"--resign-adjudication: ": func(o *matchOptions) { o.ResignAdj = "movecount=2" },
	}
	for want, mutate := range cases {
		opts := base()
		mutate(opts)
		s, _, _ := playStreams("")
		err := runMatch(context.Background(), opts, s)
		var usage *usageError
		if !errors.As(err, &usage) || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: got %v", want, err)
		}
	}
	opts := base()
	opts.B = "nosuch"
	s, _, _ := playStreams("")
	if err := runMatch(context.Background(), opts, s); err == nil || !strings.Contains(err.Error(), `unknown player "nosuch"`) {
		t.Errorf("unknown player: %v", err)
	}
	// A misspelt family is a usage error found before the header is printed.
	opts = base()
	opts.A = "heurstic:depth=2"
	s, _, errOut := playStreams("")
	err := runMatch(context.Background(), opts, s)
	var usage *usageError
	if !errors.As(err, &usage) || !strings.Contains(err.Error(), `--a: unknown player "heurstic"`) || !strings.Contains(err.Error(), "did you mean heuristic?") {
		t.Errorf("misspelt family: %v", err)
	}
	if errOut.Len() != 0 {
		t.Errorf("printed before failing: %q", errOut)
	}
}

func TestMatchHelpHasExample(t *testing.T) {
	for _, name := range []string{"match", "tournament", "uci", "eval"} {
		s, out, _ := playStreams("")
		root := newRootCmd(s)
		root.SetArgs([]string{name, "--help"})
		if err := root.Execute(); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.String(), "Examples:") || !strings.Contains(out.String(), "dchess "+name) {
			t.Errorf("%s --help:\n%s", name, out)
		}
	}
}

func TestNewestWeights(t *testing.T) {
	// The search itself is pipeline.NewestWeights's (tested there); this
	// checks the resolver a bare model name goes through is wired to it.
	t.Chdir(t.TempDir())
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	if _, err := resolveModel(nil)(context.Background(), "ann"); err == nil || !strings.Contains(err.Error(), "dchess train --model ann") {
		t.Errorf("no runs folder, none shipped: %v", err)
	}
	_, err := player.New(context.Background(), "ann")
	if err == nil || !strings.Contains(err.Error(), "dchess train --model ann") {
		t.Errorf("bare ann without runs: %v", err)
	}
	// cnn's weights ship with dchess: a bare cnn plays them.
	path, err := resolveModel(nil)(context.Background(), "cnn")
	if err != nil || !strings.Contains(path, "shipped") {
		t.Errorf("bare cnn without runs: %q, %v", path, err)
	}
}

func TestUCICommand(t *testing.T) {
	s, out := guiStreams("uci\nisready\nposition startpos moves e2e4\ngo depth 2\n")
	if err := runUCI(context.Background(), &uciOptions{Player: "heuristic"}, s); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"id name dchess heuristic", "uciok", "readyok", "info depth 2 ", "bestmove "} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	s, _, _ = playStreams("")
	if err := runUCI(context.Background(), &uciOptions{Player: "heuristic:depth=x"}, s); err == nil {
		t.Error("a bad player spec started the engine")
	}
}

func TestMatchProgressLinesInALog(t *testing.T) {
	opts := &matchOptions{A: "random:seed=1", B: "random:seed=2", Games: 4, gameFlags: gameFlags{Concurrency: 1,
		OpeningsOrder: "sequential", RandomPlies: 2, Seed: 1, MaxMoves: 20, TimeMargin: 50 * time.Millisecond}}
	// Not a terminal: a line per interval (here every game) names the count.
	s, _, errOut := playStreams("")
	s.ProgressInterval = time.Nanosecond
	if err := runMatch(context.Background(), opts, s); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"match: 1/4 games (25 %)", "match: 4/4 games (100 %)", "match: done, 4/4 games (100 %) in "} {
		if !strings.Contains(errOut.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	// --quiet silences them.
	s, _, errOut = playStreams("")
	s.ProgressInterval, s.Quiet = time.Nanosecond, true
	if err := runMatch(context.Background(), opts, s); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(errOut.String(), "match:") {
		t.Errorf("--quiet printed progress:\n%s", errOut)
	}
}
