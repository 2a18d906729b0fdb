package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dchess/dchess/search/match"
)

func playStreams(in string) (*IOStreams, *bytes.Buffer, *bytes.Buffer) {
	var out, errOut bytes.Buffer
	return &IOStreams{In: strings.NewReader(in), Out: &out, ErrOut: &errOut}, &out, &errOut
}

func TestMatchJSONAndPGN(t *testing.T) {
	s, out, errOut := playStreams("")
	pgn := filepath.Join(t.TempDir(), "games.pgn")
	opts := &matchOptions{A: "heuristic:depth=1", B: "random", Games: 4, ReportEvery: 2, JSON: true,
		SPRT: "elo0=0,elo1=10", gameFlags: gameFlags{Settings: match.Settings{Concurrency: 2, OpeningsOrder: "sequential", RandomPlies: 4, Seed: 1,
			Depth: 1, MaxMoves: 150, TimeMargin: 50 * time.Millisecond}, PGN: pgn}}
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
	// After game 2 of 4; after game 4 the report follows.
	if n := strings.Count(errOut.String(), "Score of heuristic:depth=1 vs random"); n != 1 {
		t.Errorf("%d interim reports on stderr, want 1:\n%s", n, errOut)
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
		gameFlags: gameFlags{Settings: match.Settings{Concurrency: 1, Openings: book, OpeningsOrder: "random", Seed: 1, Nodes: 500, MaxMoves: 150}}}
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
			gameFlags: gameFlags{Settings: match.Settings{Concurrency: 1, OpeningsOrder: "sequential", Depth: 1}}}
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
		if err == nil || !isUsageError(err) || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
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
	// So are the mistakes only the family finds, when it makes the player:
	// match and selfplay print nothing before them, and exit 2.
	for _, spec := range []string{"heuristic:foo=1", "random:depth=2", "heuristic:depth=x"} {
		out := filepath.Join(t.TempDir(), "games.pgn")
		for _, args := range [][]string{{"match", "--a", spec, "--b", "random", "--games", "2", "--depth", "1"},
			{"selfplay", "--a", spec, "--games", "2", "--depth", "1", "-o", out}} {
			code, output := runTour(args...)
			if code != exitUsage || !strings.HasPrefix(output, "dchess: ") {
				t.Errorf("%s: exit %d, want %d with nothing printed before the error:\n%s", strings.Join(args, " "), code, exitUsage, output)
			}
		}
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
	opts := &matchOptions{A: "random:seed=1", B: "random:seed=2", Games: 4, gameFlags: gameFlags{Settings: match.Settings{Concurrency: 1,
		OpeningsOrder: "sequential", RandomPlies: 2, Seed: 1, MaxMoves: 20, TimeMargin: 50 * time.Millisecond}}}
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

// searchDepths reads the depth of every scored move in a PGN file that
// dchess wrote ("{+0.35/5 0.010s}"), by the name of the player who made it.
func searchDepths(t *testing.T, path string) map[string][]int {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	tag := regexp.MustCompile(`(?m)^\[(\w+) "(.*)"\]$`)
	comment := regexp.MustCompile(`\{[+-][0-9.M]+/(\d+) `)
	depths := map[string][]int{}
	for _, game := range strings.Split(string(data), "[Event ")[1:] {
		tags := map[string]string{}
		for _, m := range tag.FindAllStringSubmatch("[Event "+game, -1) {
			tags[m[1]] = m[2]
		}
		mover := [2]string{tags["White"], tags["Black"]}
		if strings.Fields(tags["FEN"])[1] == "b" {
			mover[0], mover[1] = mover[1], mover[0]
		}
		for i, m := range comment.FindAllStringSubmatch(game, -1) {
			d, _ := strconv.Atoi(m[1])
			depths[mover[i%2]] = append(depths[mover[i%2]], d)
		}
	}
	return depths
}

// TestDefaultDepthLeavesAPlayersOwnLimit: without --depth, --nodes,
// --movetime or --tc, depth 4 is for players that set no limit of their own;
// heuristic:depth=5 searches to depth 5, not 4, in match, tournament and
// selfplay alike (they share the game flags).
func TestDefaultDepthLeavesAPlayersOwnLimit(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		args []string
	}{
		{"match", []string{"match", "--a", "heuristic:depth=5", "--b", "heuristic", "--games", "2", "--pgn", filepath.Join(dir, "match")}},
		{"tournament", []string{"tournament", "--players", "heuristic:depth=5,heuristic", "--games-per-pair", "2", "--pgn", filepath.Join(dir, "tournament")}},
		{"selfplay", []string{"selfplay", "--a", "heuristic:depth=5", "--b", "heuristic", "--games", "2", "-o", filepath.Join(dir, "selfplay")}},
	} {
		s, _, _ := playStreams("")
		if err := runCLI(s, append(c.args, "--max-moves", "6", "--quiet")...); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		depths := searchDepths(t, filepath.Join(dir, c.name))
		own, others := depths["heuristic:depth=5"], depths["heuristic"]
		if len(own) == 0 || len(others) == 0 {
			t.Fatalf("%s: no scored moves of both players: %v", c.name, depths)
		}
		for _, d := range own {
			if d != 5 {
				t.Errorf("%s: heuristic:depth=5 searched to depths %v, want 5", c.name, own)
				break
			}
		}
		for _, d := range others {
			if d != 4 {
				t.Errorf("%s: heuristic without a depth of its own searched to depths %v, want 4", c.name, others)
				break
			}
		}
	}
}

// actOnLine is an error stream that runs act at the n-th write holding
// marker: with --report-every 1, a stop or a fault after a known game.
type actOnLine struct {
	bytes.Buffer
	marker string
	n      int
	act    func()
}

func (w *actOnLine) Write(p []byte) (int, error) {
	if strings.Contains(string(p), w.marker) {
		if w.n--; w.n == 0 {
			w.act()
		}
	}
	return w.Buffer.Write(p)
}

// withoutTimes drops from a PGN what the clock decides: each move's time
// and the tags of when the game was played and how long it took.
func withoutTimes(pgn string) string {
	pgn = regexp.MustCompile(`\[Game(Duration|EndTime|StartTime) "[^"]*"\]\n`).ReplaceAllString(pgn, "")
	return regexp.MustCompile(` \d+\.\d{3}s([,}])`).ReplaceAllString(pgn, "$1")
}

func resumableMatch(pgn string, games int) *matchOptions {
	return &matchOptions{A: "heuristic:depth=1", B: "random", Games: games, ReportEvery: 1,
		gameFlags: gameFlags{Settings: match.Settings{Concurrency: 1, OpeningsOrder: "sequential", RandomPlies: 4, Seed: 5, Depth: 1, MaxMoves: 60,
			TimeMargin: 50 * time.Millisecond}, PGN: pgn}}
}

// TestStoppedMatchLeavesNoPGNAndContinues: a match stopped after two of six
// games leaves no PGN file, only its journal beside it; the same command
// run again plays the other four and writes the file an uninterrupted
// match writes.
func TestStoppedMatchLeavesNoPGNAndContinues(t *testing.T) {
	dir := t.TempDir()
	pgn := filepath.Join(dir, "games.pgn")
	journal := filepath.Join(dir, ".games.pgn.journal.jsonl")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s, _, _ := playStreams("")
	s.ErrOut = &actOnLine{marker: "Score of ", n: 2, act: cancel}
	err := runMatch(ctx, resumableMatch(pgn, 6), s)
	if err == nil || !strings.Contains(err.Error(), "interrupted after 2 games") || !strings.Contains(err.Error(), journal) ||
		!strings.Contains(err.Error(), "run the same command again") {
		t.Fatalf("stopped match: %v", err)
	}
	if _, err := os.Stat(pgn); !os.IsNotExist(err) {
		t.Fatalf("a stopped match left a PGN file that looks finished: %v", err)
	}
	if _, err := os.Stat(journal); err != nil {
		t.Fatalf("no journal: %v", err)
	}

	s, out, errOut := playStreams("")
	s.ProgressInterval = time.Nanosecond
	if err := runMatch(context.Background(), resumableMatch(pgn, 6), s); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"continuing an interrupted match: 2 of the games are in its journal", "match: done, 4/4 games"} {
		if !strings.Contains(errOut.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	// The report counts the journal's games too.
	if !regexp.MustCompile(`Score of heuristic:depth=1 vs random: \d+ - \d+ - \d+ \[[0-9.]+\] 6\n`).MatchString(out.String()) {
		t.Errorf("report of the continued match:\n%s", out)
	}
	if _, err := os.Stat(journal); !os.IsNotExist(err) {
		t.Errorf("journal left after the match ended: %v", err)
	}
	whole := filepath.Join(dir, "whole.pgn")
	s, _, _ = playStreams("")
	if err := runMatch(context.Background(), resumableMatch(whole, 6), s); err != nil {
		t.Fatal(err)
	}
	continued, _ := os.ReadFile(pgn)
	uninterrupted, _ := os.ReadFile(whole)
	if strings.Count(string(continued), "[Event ") != 6 || withoutTimes(string(continued)) != withoutTimes(string(uninterrupted)) {
		t.Errorf("continued PGN\n%s\nuninterrupted\n%s", continued, uninterrupted)
	}
}

// TestMatchFailsWhenThePGNCannotBeWritten: a PGN file that cannot be
// written fails the match with the games kept in the journal, and no report
// reads as if they were in the file; the rerun writes it without playing.
func TestMatchFailsWhenThePGNCannotBeWritten(t *testing.T) {
	dir := t.TempDir()
	pgn := filepath.Join(dir, "games.pgn")
	s, out, _ := playStreams("")
	// A folder in the file's place: no file can be put there.
	s.ErrOut = &actOnLine{marker: "Score of ", n: 1, act: func() {
		os.Remove(pgn)
		if err := os.Mkdir(pgn, 0o755); err != nil {
			t.Error(err)
		}
	}}
	err := runMatch(context.Background(), resumableMatch(pgn, 4), s)
	if err == nil || !strings.Contains(err.Error(), pgn) || !strings.Contains(err.Error(), ".games.pgn.journal.jsonl") {
		t.Fatalf("match whose PGN cannot be written: %v", err)
	}
	if out.Len() != 0 {
		t.Errorf("printed a report though the PGN was not written:\n%s", out)
	}
	if err := os.Remove(pgn); err != nil {
		t.Fatal(err)
	}
	s, _, errOut := playStreams("")
	s.ProgressInterval = time.Nanosecond
	if err := runMatch(context.Background(), resumableMatch(pgn, 4), s); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(errOut.String(), "continuing an interrupted match: 4 of the games are in its journal") {
		t.Errorf("stderr:\n%s", errOut)
	}
	if data, _ := os.ReadFile(pgn); strings.Count(string(data), "[Event ") != 4 {
		t.Errorf("PGN after the rerun:\n%s", data)
	}
}

// TestPGNIsNotReplacedWithoutForce: match --pgn and tournament --pgn leave
// an existing file alone, as selfplay -o does, and say so before any game
// is played (no header, no engine started); --force replaces it.
func TestPGNIsNotReplacedWithoutForce(t *testing.T) {
	dir := t.TempDir()
	const theirs = "[Event \"someone's games\"]\n\n1. e4 e5 *\n"
	for _, c := range []struct {
		name  string
		args  []string // a game of --a against --b fails: its engine cannot start
		force []string
	}{
		{"match", []string{"match", "--a", "random:seed=1", "--b", "uci:/nonexistent/engine", "--games", "2"},
			[]string{"match", "--a", "random:seed=1", "--b", "random:seed=2", "--games", "2"}},
		{"tournament", []string{"tournament", "--players", "random:seed=1,random:seed=2", "--games-per-pair", "2"}, nil},
	} {
		pgn := filepath.Join(dir, c.name+".pgn")
		if err := os.WriteFile(pgn, []byte(theirs), 0o644); err != nil {
			t.Fatal(err)
		}
		code, stderr := runMain(append(c.args, "--max-moves", "10", "--pgn", pgn)...)
		if want := "dchess: " + pgn + " exists: pass --force to replace it\n"; code != 1 || stderr != want {
			t.Errorf("%s over an existing --pgn: exit %d, stderr\n%s\nwant\n%s", c.name, code, stderr, want)
		}
		if data, _ := os.ReadFile(pgn); string(data) != theirs {
			t.Errorf("%s replaced the file without --force:\n%s", c.name, data)
		}
		if c.force == nil {
			c.force = c.args
		}
		if code, stderr := runMain(append(c.force, "--max-moves", "10", "--pgn", pgn, "--force")...); code != 0 {
			t.Fatalf("%s --force: exit %d\n%s", c.name, code, stderr)
		}
		if data, _ := os.ReadFile(pgn); strings.Count(string(data), "[Event \"dchess "+c.name+"\"]") != 2 {
			t.Errorf("%s --force did not replace the file:\n%s", c.name, data)
		}
	}
}
