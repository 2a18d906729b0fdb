// Package interop tests dchess against programs no one here wrote: the PGN
// that match, tournament and selfplay write must read back in pgn-extract
// and chess.js with the results dchess reported, and node-uci must be able
// to drive "dchess uci". .ci/run installs them (Debian's pgn-extract, the
// npm packages pinned in package-lock.json); without them the tests skip,
// except under CI=true.
package interop

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/dchess/dchess/internal/testenv"
)

func TestMain(m *testing.M) { os.Exit(testenv.RunRemovingDchess(m)) }

// dchess runs the binary with args and returns its standard output.
func dchess(t *testing.T, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithDeadline(context.Background(), testenv.ProgramDeadline(t))
	defer cancel()
	cmd := exec.CommandContext(ctx, testenv.Dchess(t), append([]string{"-q"}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("dchess %s: %v\n%s", strings.Join(args, " "), err, stderr.Bytes())
	}
	return out
}

// node returns the node binary with this folder's npm packages installed.
func node(t *testing.T) string {
	t.Helper()
	bin := testenv.Program(t, "node", "apt-get install nodejs")
	_, err := os.Stat(filepath.Join("node_modules", "chess.js"))
	testenv.Require(t, err == nil, "scripts/interop/node_modules missing (run npm ci in scripts/interop)")
	return bin
}

func pgnExtract(t *testing.T) string {
	t.Helper()
	return testenv.Program(t, "pgn-extract", "apt-get install pgn-extract", "/usr/games/pgn-extract")
}

// output runs a program until the test's deadline.
func output(t *testing.T, name string, args ...string) (stdout, stderr []byte, err error) {
	ctx, cancel := context.WithDeadline(context.Background(), testenv.ProgramDeadline(t))
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	var errBuf bytes.Buffer
	cmd.Stderr = &errBuf
	stdout, err = cmd.Output()
	return stdout, errBuf.Bytes(), err
}

// run runs a program and returns its standard output; a failure or
// anything on standard error fails the test.
func run(t *testing.T, name string, args ...string) []byte {
	t.Helper()
	out, stderr, err := output(t, name, args...)
	if err != nil || len(stderr) > 0 {
		t.Fatalf("%s %s: %v\n%s%s", filepath.Base(name), strings.Join(args, " "), err, stderr, out)
	}
	return out
}

// game is what a reader found in one game.
type game struct {
	White, Black, Result string
	Plies                int
}

// tally counts results per ordered pairing "white|black".
type tally map[string]map[string]int

func tallyOf(games []game) tally {
	t := tally{}
	for _, g := range games {
		key := g.White + "|" + g.Black
		if t[key] == nil {
			t[key] = map[string]int{}
		}
		t[key][g.Result]++
	}
	return t
}

// points is a's wins, losses and draws against b over both colours.
func (t tally) points(a, b string) (wins, losses, draws int) {
	wins = t[a+"|"+b]["1-0"] + t[b+"|"+a]["0-1"]
	losses = t[a+"|"+b]["0-1"] + t[b+"|"+a]["1-0"]
	draws = t[a+"|"+b]["1/2-1/2"] + t[b+"|"+a]["1/2-1/2"]
	return
}

var (
	tagLine  = regexp.MustCompile(`^\[(\w+) "(.*)"\]$`)
	resultRE = regexp.MustCompile(`^(1-0|0-1|1/2-1/2|\*)$`)
)

// parseGames reads tags and movetext of a PGN with one game's movetext per
// line, as pgn-extract writes it with -w (no comments, no move numbers):
// the plies are the movetext's tokens before the result.
func parseGames(t *testing.T, pgn []byte) []game {
	t.Helper()
	var games []game
	var tags map[string]string
	sc := bufio.NewScanner(bytes.NewReader(pgn))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch m := tagLine.FindStringSubmatch(line); {
		case line == "":
		case m != nil:
			if tags == nil {
				tags = map[string]string{}
			}
			tags[m[1]] = m[2]
		default:
			tokens := strings.Fields(line)
			marker := tokens[len(tokens)-1]
			if !resultRE.MatchString(marker) || tags == nil {
				t.Fatalf("pgn-extract's output: movetext line %q", line)
			}
			if marker != tags["Result"] {
				t.Errorf("pgn-extract: %s-%s: Result %s, movetext ends %s", tags["White"], tags["Black"], tags["Result"], marker)
			}
			if want := tags["PlyCount"]; fmt.Sprint(len(tokens)-1) != want {
				t.Errorf("pgn-extract: %s-%s: %d moves, PlyCount %s", tags["White"], tags["Black"], len(tokens)-1, want)
			}
			games = append(games, game{tags["White"], tags["Black"], tags["Result"], len(tokens) - 1})
			tags = nil
		}
	}
	return games
}

// pgnReaders are the programs that read the PGN files.
type pgnReaders struct{ pgnExtract, node string }

// findReaders finds them before a test spends time making games.
func findReaders(t *testing.T) pgnReaders {
	t.Helper()
	return pgnReaders{pgnExtract(t), node(t)}
}

// read reads file with pgn-extract and chess.js and returns what each
// found; both must read every one of want games without an error.
func (r pgnReaders) read(t *testing.T, file string, want int) map[string][]game {
	t.Helper()
	// -r -s reports errors (illegal moves, a result that contradicts a
	// mate) on standard error and nothing else; the exit status is 0 either way.
	if out := run(t, r.pgnExtract, "-r", "-s", file); len(out) > 0 {
		t.Errorf("pgn-extract -r -s %s:\n%s", file, out)
	}
	extracted := filepath.Join(t.TempDir(), "extracted.pgn")
	run(t, r.pgnExtract, "-s", "-C", "-N", "-V", "--nomovenumbers", "-w", "100000", "-o", extracted, file)
	out, err := os.ReadFile(extracted)
	if err != nil {
		t.Fatal(err)
	}
	found := map[string][]game{"pgn-extract": parseGames(t, out)}

	var checked struct{ Games []game }
	if err := json.Unmarshal(run(t, r.node, "check-pgn.js", file), &checked); err != nil {
		t.Fatal(err)
	}
	found["chess.js"] = checked.Games
	for reader, games := range found {
		if len(games) != want {
			t.Errorf("%s read %d games of %d", reader, len(games), want)
		}
	}
	if fmt.Sprint(found["pgn-extract"]) != fmt.Sprint(found["chess.js"]) {
		t.Errorf("pgn-extract and chess.js disagree:\n%v\n%v", found["pgn-extract"], found["chess.js"])
	}
	return found
}

// Heuristic against random mates in a few dozen moves; --max-moves adds
// adjudicated draws, so the files have both kinds of ending.
func TestMatchPGNReadsBack(t *testing.T) {
	readers := findReaders(t)
	pgn := filepath.Join(t.TempDir(), "match.pgn")
	var rep struct {
		A, B                string
		Wins, Losses, Draws int
		Terminations        map[string]int
	}
	out := dchess(t, "match", "--a", "heuristic:depth=1", "--b", "random", "--games", "8", "--depth", "1",
		"--max-moves", "20", "--pgn", pgn, "--json")
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if rep.Terminations["checkmate"] == 0 || rep.Terminations["max_moves"] == 0 {
		t.Fatalf("want mates and adjudicated draws, got %v", rep.Terminations)
	}
	for reader, games := range readers.read(t, pgn, rep.Wins+rep.Losses+rep.Draws) {
		w, l, d := tallyOf(games).points(rep.A, rep.B)
		if w != rep.Wins || l != rep.Losses || d != rep.Draws {
			t.Errorf("%s: %s scores +%d -%d =%d, dchess reported +%d -%d =%d", reader, rep.A, w, l, d, rep.Wins, rep.Losses, rep.Draws)
		}
	}
}

// On a clock every move's comment ends with the mover's time left
// ({+0.35/1 0.004s [%clk 0:00:04.9]}) and the tags say when each game was
// played; both readers still read every game with the reported results.
func TestClockedMatchPGNReadsBack(t *testing.T) {
	readers := findReaders(t)
	pgn := filepath.Join(t.TempDir(), "clocked.pgn")
	var rep struct {
		A, B                string
		Wins, Losses, Draws int
	}
	out := dchess(t, "match", "--a", "heuristic:depth=1", "--b", "random", "--games", "4", "--tc", "5+0.05",
		"--max-moves", "20", "--pgn", pgn, "--json")
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	data, err := os.ReadFile(pgn)
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`\{[+-](\d+\.\d\d|M\d+)/1 \d+\.\d{3}s \[%clk 0:00:0\d\.\d\]`).Match(data) ||
		!bytes.Contains(data, []byte("[GameStartTime ")) {
		t.Fatalf("no [%%clk] comments or GameStartTime tags:\n%s", data)
	}
	for reader, games := range readers.read(t, pgn, rep.Wins+rep.Losses+rep.Draws) {
		w, l, d := tallyOf(games).points(rep.A, rep.B)
		if w != rep.Wins || l != rep.Losses || d != rep.Draws {
			t.Errorf("%s: %s scores +%d -%d =%d, dchess reported +%d -%d =%d", reader, rep.A, w, l, d, rep.Wins, rep.Losses, rep.Draws)
		}
	}
}

func TestTournamentPGNReadsBack(t *testing.T) {
	readers := findReaders(t)
	pgn := filepath.Join(t.TempDir(), "tournament.pgn")
	var rep struct {
		Pairs []struct {
			A, B                string
			Wins, Losses, Draws int
		}
	}
	out := dchess(t, "tournament", "--players", "random,heuristic:depth=1,heuristic:depth=2", "--games-per-pair", "2",
		"--depth", "1", "--max-moves", "40", "--pgn", pgn, "--json")
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	games := 0
	for _, p := range rep.Pairs {
		games += p.Wins + p.Losses + p.Draws
	}
	if len(rep.Pairs) != 3 || games != 6 {
		t.Fatalf("report: %s", out)
	}
	for reader, found := range readers.read(t, pgn, games) {
		for _, p := range rep.Pairs {
			w, l, d := tallyOf(found).points(p.A, p.B)
			if w != p.Wins || l != p.Losses || d != p.Draws {
				t.Errorf("%s: %s-%s +%d -%d =%d, dchess reported +%d -%d =%d", reader, p.A, p.B, w, l, d, p.Wins, p.Losses, p.Draws)
			}
		}
	}
}

func TestSelfplayPGNReadsBack(t *testing.T) {
	readers := findReaders(t)
	pgn := filepath.Join(t.TempDir(), "selfplay.pgn")
	var rep struct {
		Games, Draws, Plies int
		WhiteWins           int `json:"white_wins"`
		BlackWins           int `json:"black_wins"`
	}
	out := dchess(t, "selfplay", "--a", "heuristic:depth=1", "--b", "random", "--games", "6", "--depth", "1",
		"--max-moves", "25", "-o", pgn, "--json")
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	for reader, games := range readers.read(t, pgn, rep.Games) {
		results, plies := map[string]int{}, 0
		for _, g := range games {
			results[g.Result]++
			plies += g.Plies
		}
		if results["1-0"] != rep.WhiteWins || results["0-1"] != rep.BlackWins || results["1/2-1/2"] != rep.Draws || plies != rep.Plies {
			t.Errorf("%s: results %v in %d plies, dchess reported %s", reader, results, plies, out)
		}
	}
}

// node-uci, a UCI client written for Stockfish, plays two short games
// against "dchess uci" (uci-client.js says what it checks).
func TestNodeUCIDrivesDchess(t *testing.T) {
	nodeBin := node(t)
	// node-uci starts the engine without arguments.
	wrapper := filepath.Join(t.TempDir(), "dchess-uci")
	script := fmt.Sprintf("#!/bin/sh\nexec %q uci --player heuristic:depth=2\n", testenv.Dchess(t))
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	out := run(t, nodeBin, "uci-client.js", wrapper, "12")
	var res struct {
		Plies    int
		Searches map[string]int
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if res.Plies < 12 || len(res.Searches) != 3 {
		t.Errorf("uci-client: %s", out)
	}
	t.Logf("%s", out)
}

// The readers' checks can fail: an illegal move and a result that
// contradicts the mate on the board are reported by both.
func TestReadersRejectBadGames(t *testing.T) {
	readers := findReaders(t)
	for name, c := range map[string]struct {
		movetext string
		plies    int
	}{
		"illegal move":         {"1. e4 e5 2. Ke3 1-0", 3},
		"result against mate":  {"1. f3 e5 2. g4 Qh4# 1-0", 4},
		"result against board": {"1. e4 e5 1-0", 2},
	} {
		file := filepath.Join(t.TempDir(), "bad.pgn")
		pgn := fmt.Sprintf("[Event \"bad\"]\n[White \"w\"]\n[Black \"b\"]\n[Result \"1-0\"]\n[Termination \"normal\"]\n"+
			"[PlyCount \"%d\"]\n\n%s\n\n", c.plies, c.movetext)
		if err := os.WriteFile(file, []byte(pgn), 0o644); err != nil {
			t.Fatal(err)
		}
		// pgn-extract knows nothing of Termination: a game that stops
		// without a mate is legal PGN for it.
		if name != "result against board" {
			if _, stderr, _ := output(t, readers.pgnExtract, "-r", "-s", file); len(stderr) == 0 {
				t.Errorf("%s: pgn-extract -r -s reported nothing", name)
			}
		}
		if _, stderr, err := output(t, readers.node, "check-pgn.js", file); err == nil {
			t.Errorf("%s: check-pgn.js passed it", name)
		} else {
			t.Logf("%s: %s", name, bytes.TrimSpace(stderr))
		}
	}
}
