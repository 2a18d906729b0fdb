package interop

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/dchess/dchess/internal/testenv"
)

// fastchessBinary returns the fastchess to run: $FASTCHESS, else fastchess
// on PATH. Without one the test skips, under CI=true too: fastchess is
// neither a Debian nor an npm package, and its source is on GitHub, which
// the machines CI runs on cannot reach. fastchess.sh builds it from a
// clone or a source folder.
func fastchessBinary(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("FASTCHESS"); p != "" {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("FASTCHESS=%s: %v", p, err)
		}
		return p
	}
	if p, err := exec.LookPath("fastchess"); err == nil {
		return p
	}
	t.Skip("fastchess not found: FASTCHESS=$(scripts/interop/fastchess.sh) builds it (not in CI, which cannot fetch its source)")
	return ""
}

// fastchessOpenings are three common openings, one with Black to move.
const fastchessOpenings = `rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2
rnbqkb1r/pppppppp/5n2/8/3P4/8/PPP1PPPP/RNBQKBNR w KQkq - 1 2
rnbqkbnr/pp1ppppp/8/2p5/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2
`

// fastchess, a match runner written elsewhere, plays six games between two
// "dchess uci" heuristic players, one on a clock showing two lines
// (MultiPV 2), the other to depth 3, from three openings with colours
// swapped. fastchess checks every move, every pv line's legality and that
// bestmove is the first move of the last line 1; every game must end on
// the board or by its move-limit adjudication, with no loss on time, no
// illegal move, no stalled or lost engine and no warning.
func TestFastchessPlaysDchess(t *testing.T) {
	fastchess := fastchessBinary(t)
	dchess := testenv.Dchess(t)
	dir := t.TempDir()
	book := filepath.Join(dir, "openings.epd")
	if err := os.WriteFile(book, []byte(fastchessOpenings), 0o644); err != nil {
		t.Fatal(err)
	}
	pgn := filepath.Join(dir, "games.pgn")
	const games = 6
	cmd := exec.Command(fastchess,
		"-engine", "cmd="+dchess, "args=uci --player heuristic", "name=clock", "tc=2+0.05", "option.MultiPV=2",
		"-engine", "cmd="+dchess, "args=uci --player heuristic", "name=depth3", "depth=3",
		"-openings", "file="+book, "format=epd", "order=sequential",
		"-rounds", fmt.Sprint(games/2), "-games", "2", "-concurrency", "1", "-maxmoves", "60",
		"-pgnout", "file="+pgn)
	cmd.Dir = dir
	log, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("fastchess: %v\n%s", err, log)
	}
	data, err := os.ReadFile(pgn)
	if err != nil {
		t.Fatal(err)
	}
	for _, problem := range fastchessProblems(log, data, games) {
		t.Error(problem)
	}
	if t.Failed() {
		t.Logf("fastchess's output:\n%s", log)
	}
}

var (
	fastchessTag = regexp.MustCompile(`(?m)^\[(Event|Result|Termination) "(.*)"\]$`)
	// What fastchess says when an engine misbehaves: a warning (an illegal
	// pv move, a bestmove that is not the pv's, an option it lacks, no
	// answer to uci), or a game lost off the board.
	fastchessTrouble = regexp.MustCompile(`(?m)^.*(Warning;|loses on time|disconnects|stalls|Illegal move|Timeouts: [1-9]|Crashed: [1-9]).*$`)
)

// fastchessProblems returns what is wrong in a fastchess run that should
// have played games games cleanly, from its output and its PGN: the
// count, each game's result and termination, and any trouble it reported.
func fastchessProblems(log, pgn []byte, games int) []string {
	var problems []string
	for _, line := range fastchessTrouble.FindAll(log, -1) {
		problems = append(problems, fmt.Sprintf("fastchess reported %q", line))
	}
	if !bytes.Contains(log, []byte(fmt.Sprintf("Games: %d,", games))) {
		problems = append(problems, fmt.Sprintf("fastchess's summary does not count %d games", games))
	}
	found, results := 0, 0
	for _, m := range fastchessTag.FindAllSubmatch(pgn, -1) {
		switch tag, value := string(m[1]), string(m[2]); tag {
		case "Event":
			found++
		case "Result":
			results++
			if value != "1-0" && value != "0-1" && value != "1/2-1/2" {
				problems = append(problems, fmt.Sprintf("game %d: result %q", found, value))
			}
		case "Termination":
			// "normal" is the end on the board, "adjudication" -maxmoves's draw.
			if value != "normal" && value != "adjudication" {
				problems = append(problems, fmt.Sprintf("game %d: termination %q", found, value))
			}
		}
	}
	if found != games || results != games {
		problems = append(problems, fmt.Sprintf("the PGN has %d games with %d results, want %d", found, results, games))
	}
	return problems
}

// The checks can fail: a time loss, an illegal move, a warning, a game
// missing from the PGN are each reported.
func TestFastchessProblemsAreFound(t *testing.T) {
	game := func(result, termination string) string {
		return fmt.Sprintf("[Event \"Fastchess Tournament\"]\n[Result \"%s\"]\n[Termination \"%s\"]\n\n1. e4 %s\n\n", result, termination, result)
	}
	clean := []byte("Games: 2, Wins: 1, Losses: 0, Draws: 1, Points: 1.5 (75.00 %)\n")
	twoGood := game("1-0", "normal") + game("1/2-1/2", "adjudication")
	if got := fastchessProblems(clean, []byte(twoGood), 2); len(got) != 0 {
		t.Fatalf("a clean run: %q", got)
	}
	for name, c := range map[string]struct {
		log, pgn string
		want     string
	}{
		"time":    {string(clean) + "Engine clock loses on time by 12ms\n", game("0-1", "time forfeit") + game("1-0", "normal"), "time forfeit"},
		"illegal": {string(clean), game("1-0", "illegal move") + game("1-0", "normal"), "illegal move"},
		"warning": {string(clean) + "Warning; Illegal pv move e2e5 from clock\n", twoGood, "Warning; Illegal pv move"},
		"crash":   {string(clean) + "Player: clock\n  Timeouts: 0\n  Crashed: 1\n", game("0-1", "abandoned") + game("1-0", "normal"), "abandoned"},
		"missing": {string(clean), game("1-0", "normal"), "the PGN has 1 games"},
		"count":   {"Games: 1, Wins: 1\n", twoGood, "does not count 2 games"},
	} {
		got := strings.Join(fastchessProblems([]byte(c.log), []byte(c.pgn), 2), "\n")
		if !strings.Contains(got, c.want) {
			t.Errorf("%s: found %q, want %q among them", name, got, c.want)
		}
	}
}
