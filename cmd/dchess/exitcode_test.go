package main

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPlayerSpecMistakesExit2 runs every command that takes a player SPEC
// with a spec that is wrong in each way player.Check or the family finds:
// all exit 2 with one line and the usage, before anything is played.
func TestPlayerSpecMistakesExit2(t *testing.T) {
	dir := t.TempDir()
	typoDB := filepath.Join(dir, "TYPO.db")
	missingWeights := filepath.Join(dir, "missing.dcw")
	commands := map[string][]string{
		"eval":       {"eval", "--fen", scholarsMate, "--player"},
		"uci":        {"uci", "--player"},
		"play":       {"play", "--player"},
		"match --a":  {"match", "--b", "random", "--games", "2", "--a"},
		"match --b":  {"match", "--a", "random", "--games", "2", "--b"},
		"selfplay":   {"selfplay", "--games", "2", "-o", filepath.Join(dir, "sp.pgn"), "--a"},
		"tournament": {"tournament", "--players", "random", "--players"},
	}
	for _, c := range []struct {
		spec, want string
		// early: player.Check finds it, so the command fails before it
		// prints anything; the family's own checks of its settings run
		// when the player is made, in match and selfplay after the header.
		early bool
	}{
		{"heur", `unknown player "heur" (known: `, true},
		{"heur", "did you mean heuristic?", true},
		{"he uristic", "is not a player name", true},
		{"experience:" + typoDB, typoDB + ": no such file", true},
		{"experience:" + typoDB + "?learn=true&fallback=rnadom", "did you mean random?", true},
		{"cnn:" + missingWeights, "weights " + missingWeights + ": no such file", true},
		{"heuristic:dept=3", `unknown setting "dept"`, false},
		{"uci", "needs an engine path", false},
	} {
		for name, args := range commands {
			code, stderr := runMain(append(append([]string(nil), args...), c.spec)...)
			if code != exitUsage || !strings.Contains(stderr, c.want) {
				t.Errorf("%s %s: exit %d, want %d and %q:\n%s", name, c.spec, code, exitUsage, c.want, stderr)
			}
			if first, _, _ := strings.Cut(stderr, "\n\nUsage: "); c.early && (!strings.HasPrefix(stderr, "dchess: ") || strings.Contains(first, "\n")) {
				t.Errorf("%s %s: want only the error and the usage:\n%s", name, c.spec, stderr)
			}
		}
	}
	if _, err := os.Stat(typoDB); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a refused experience spec made its file: %v", err)
	}
}
