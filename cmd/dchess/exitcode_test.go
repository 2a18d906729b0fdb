package main

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
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

// TestMissingInputsExit2 runs every command that reads an input named on
// its command line with one that does not exist: each exits 2 with one
// line naming it, before it does anything. Every input a command declares
// (inputFlags, inputArgs) must have a row here, so a new one is tested too.
func TestMissingInputsExit2(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing")
	out := filepath.Join(dir, "out")
	rows := []struct {
		args []string
		// covers is the declared input the row tests ("" for inputs checked
		// by the command itself, such as ingest's globs).
		covers string
	}{
		{[]string{"ingest", missing, "-o", out}, ""},
		{[]string{"experience", "build", missing, "--db", out}, ""},
		{[]string{"label", "--stockfish", "/usr/games/stockfish", "-i", missing, "-o", out}, "label --input"},
		{[]string{"dataset", "info", missing}, "dataset info ARGS"},
		{[]string{"dataset", "split", missing}, "dataset split ARGS"},
		{[]string{"dataset", "export", missing, "-o", out}, "dataset export ARGS"},
		{[]string{"dataset", "verify", missing}, "dataset verify ARGS"},
		{[]string{"dataset", "merge", missing, "-o", out}, "dataset merge ARGS"},
		{[]string{"dataset", "merge", filepath.Join(missing, "labels"), "-o", out}, "dataset merge ARGS"},
		{[]string{"dataset", "merge", dir, "--input", missing, "-o", out}, "dataset merge --input"},
		{[]string{"train", "--model", "cnn", "--data", missing, "--out", out}, "train --data"},
		{[]string{"train", "--model", "cnn", "--data", dir + "," + missing, "--out", out}, "train --data"},
		{[]string{"train", "--model", "cnn", "--data", dir, "--config", missing, "--out", out}, "train --config"},
		{[]string{"train", "--model", "siamese", "--data", dir, "--init", missing, "--out", out}, "train --init"},
		{[]string{"eval", "--epd", missing}, "eval --epd"},
		{[]string{"eval", "--puzzles", missing}, "eval --puzzles"},
		{[]string{"eval", "--data", missing}, "eval --data"},
		{[]string{"match", "--a", "random", "--b", "random", "--openings", missing}, "match --openings"},
		{[]string{"tournament", "--players", "random,random", "--openings", missing}, "tournament --openings"},
		{[]string{"selfplay", "--a", "random", "--openings", missing, "-o", out}, "selfplay --openings"},
		{[]string{"datagen", "--a", "random", "--openings", missing, "--depth", "1", "-o", out}, "datagen --openings"},
		{[]string{"match", "merge", missing}, "match merge ARGS"},
		{[]string{"tournament", "merge", missing}, "tournament merge ARGS"},
		{[]string{"plot", dir, missing, "-o", out}, "plot ARGS"},
		{[]string{"export", missing, "-o", out}, "export ARGS"},
		{[]string{"experience", "stats", "--db", missing}, "experience stats --db"},
		{[]string{"perft", "--suite", missing}, "perft --suite"},
		{[]string{"pipeline", "run", missing}, "pipeline run ARGS"},
	}
	covered := map[string]bool{}
	for _, r := range rows {
		covered[r.covers] = true
		code, stderr := runMain(r.args...)
		first, _, _ := strings.Cut(stderr, "\n\nUsage: ")
		name := filepath.Base(missing)
		if code != exitUsage || !strings.HasPrefix(first, "dchess: ") || strings.Contains(first, "\n") || !strings.Contains(first, name) {
			t.Errorf("%v: exit %d, want %d with one line naming %s:\n%s", r.args, code, exitUsage, name, stderr)
		}
		if _, err := os.Stat(out); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%v wrote %s", r.args, out)
		}
	}
	var visit func(c *cobra.Command)
	visit = func(c *cobra.Command) {
		path := strings.TrimPrefix(c.CommandPath(), "dchess ")
		if _, ok := c.Annotations[inputAnnotation]; ok && !covered[path+" ARGS"] {
			t.Errorf("%s declares its arguments as inputs, but no row tests a missing one", path)
		}
		c.Flags().VisitAll(func(f *pflag.Flag) {
			if _, ok := f.Annotations[inputAnnotation]; ok && !covered[path+" --"+f.Name] {
				t.Errorf("%s declares --%s as an input, but no row tests a missing one", path, f.Name)
			}
		})
		for _, sub := range c.Commands() {
			visit(sub)
		}
	}
	s, _, _ := playStreams("")
	visit(newRootCmd(s))
}

// An input that exists is not the check's business: a dataset folder
// that holds no dataset fails while working, as before.
func TestExistingInputIsLeftToTheCommand(t *testing.T) {
	code, stderr := runMain("dataset", "info", t.TempDir())
	if code != exitFailure || !strings.Contains(stderr, "not a dchess dataset") {
		t.Errorf("exit %d:\n%s", code, stderr)
	}
}
