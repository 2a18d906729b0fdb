package main

import (
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/dchess/dchess/internal/testenv"
	"github.com/dchess/dchess/models/family"
)

// TestReadmeTour walks the README's "A tour of the commands" in its order,
// at tiny sizes, as a new user would from a fresh folder: self-play,
// ingest, label with lines (--pv), inspect and split, train three families
// (an evaluator and the two sequence models) with --max-steps, export,
// eval --data, matches between the trained players and the heuristic, a
// tournament with a bare model name. Every command must succeed, and every
// `dchess ...` its output suggests must name a command and flags that
// exist.
func TestReadmeTour(t *testing.T) {
	if testing.Short() {
		t.Skip("the tour trains three models and labels with Stockfish")
	}
	stockfish := testenv.Stockfish(t)
	config := func(name string) string {
		return filepath.Join(testenv.RepoRoot(), "configs", "test", name+".yaml")
	}
	t.Chdir(t.TempDir()) // runs/ is where a bare model name looks
	// The split draws each game's side at random from its ID, which the
	// PGN's date enters: 30 games leave the 20 % test split empty about once
	// in a thousand days (8 games did one day in six).
	for _, args := range [][]string{
		{"selfplay", "--a", "heuristic:depth=1", "--random-rate", "0.1", "--random-rate-plies", "20", "--max-moves", "40",
			"--games", "30", "-o", "games.pgn", "--concurrency", "2", "--balance-depth", "1"},
		{"ingest", "games.pgn", "-o", "data/games", "--min-ply", "4", "--positions-per-game", "12", "--seed", "1"},
		{"label", "--stockfish", stockfish, "-i", "data/games", "-o", "data/pv4", "--depth", "2", "--pv", "4", "--workers", "2"},
		{"dataset", "info", "data/pv4", "--json"},
		{"dataset", "split", "data/pv4", "--val", "0.2", "--test", "0.2", "--seed", "1"},
		{"dataset", "verify", "data/pv4"},
		{"train", "--model", "cnn", "--data", "data/pv4", "--config", config("cnn"), "--max-steps", "10", "--out", "runs/cnn"},
		{"export", "runs/cnn", "-o", "cnn.dcw"},
		{"train", "--model", "diffusion", "--data", "data/pv4", "--config", config("diffusion"), "--max-steps", "4", "--out", "runs/diffusion"},
		{"train", "--model", "policy", "--data", "data/pv4", "--config", config("policy"), "--max-steps", "4", "--out", "runs/policy"},
		{"eval", "--player", "cnn:cnn.dcw", "--data", "data/pv4", "--limit", "20", "--depth", "2"},
		{"eval", "--player", "diffusion:runs/diffusion/model.dcw?steps=2", "--data", "data/pv4", "--limit", "20"},
		{"match", "--a", "diffusion:runs/diffusion/model.dcw", "--b", "policy:runs/policy/model.dcw", "--games", "2", "--max-moves", "40"},
		{"match", "--a", "cnn:runs/cnn/model.dcw?depth=1", "--b", "heuristic:depth=1", "--games", "2", "--max-moves", "40"},
		{"match", "--a", "heuristic", "--b", "policy", "--games", "2", "--depth", "1", "--max-moves", "40"},
		{"tournament", "--players", "random,heuristic:depth=1,cnn", "--anchor", "random=0", "--games-per-pair", "2", "--max-moves", "40",
			"--movetime", "50"},
	} {
		code, output := runTour(args...)
		if code != 0 {
			t.Fatalf("dchess %s: exit %d\n%s", strings.Join(args, " "), code, output)
		}
		checkSuggestions(t, strings.Join(args, " "), output)
	}
}

// TestTourShippedWeights is what a newcomer meets first: a bare model
// name with nothing under runs/ plays the weights shipped with dchess and
// says so; a family with none shipped fails before any game, with one
// message naming the family's first run and the data it needs.
func TestTourShippedWeights(t *testing.T) {
	if testing.Short() {
		t.Skip("plays two games")
	}
	t.Chdir(t.TempDir())
	t.Setenv("XDG_CACHE_HOME", t.TempDir()) // where the shipped weights are written out
	// The weights are said once, on a line of their own; the player is
	// named as typed; the final score is printed once, the interim lines
	// being due after the last game too.
	code, output := runTour("match", "--a", "heuristic", "--b", "diffusion", "--games", "2", "--depth", "1", "--report-every", "2")
	weights := regexp.MustCompile(`(?m)^diffusion: weights .*shipped.*diffusion-[0-9a-f]+\.dcw, the ones shipped with dchess: none under runs/`)
	if code != 0 || len(weights.FindAllString(output, -1)) != 1 || strings.Count(output, "Score of heuristic vs diffusion: ") != 1 ||
		strings.Count(output, ".dcw") != 1 || !strings.Contains(output, "Match heuristic vs diffusion: 2 games") {
		t.Fatalf("exit %d, want 0 with the shipped weights said once and the players named as typed:\n%s", code, output)
	}
	code, output = runTour("match", "--a", "heuristic", "--b", "ann", "--games", "2")
	if code != 1 || !strings.Contains(output, "dchess train --model ann") || strings.Contains(output, "Match heuristic vs ann") {
		t.Fatalf("exit %d, want 1 before any game, naming a first run:\n%s", code, output)
	}
	checkSuggestions(t, "match --b ann", output)
	for _, name := range family.Names() {
		_, err := family.NewestWeights(family.DefaultRunsDir, name)
		if err == nil {
			t.Fatalf("%s: weights in an empty folder", name)
		}
		checkSuggestions(t, name, err.Error())
	}
}

// runTour runs dchess with args as main does, without progress lines,
// and returns its exit code and everything it printed.
func runTour(args ...string) (int, string) {
	s, out, errOut := playStreams("")
	root := newRootCmd(s)
	root.SetArgs(args)
	cmd, err := root.ExecuteContextC(context.Background())
	code := reportError(errOut, cmd, err)
	return code, out.String() + errOut.String()
}

// suggestion is a command line quoted in a message: "dchess" and what
// follows up to the end of the quote, clause or line.
var suggestion = regexp.MustCompile("dchess ([^`'\"();,\n]+)")

// checkSuggestions fails when output suggests a dchess command, or a flag
// of one, that the command tree does not have.
func checkSuggestions(t *testing.T, context, output string) {
	t.Helper()
	root := newRootCmd(&IOStreams{})
	for _, m := range suggestion.FindAllStringSubmatch(output, -1) {
		if err := checkCommandLine(root, strings.Fields(m[1])); err != nil {
			t.Errorf("%s: the output suggests %q: %v", context, "dchess "+m[1], err)
		}
	}
}

// checkCommandLine finds the command words of fields in the tree and
// checks every flag after them; prose ("dchess did not write") names no
// command and no flag and passes.
func checkCommandLine(root *cobra.Command, fields []string) error {
	cmd, rest := root, fields
	for len(rest) > 0 && !strings.HasPrefix(rest[0], "-") {
		sub := subcommand(cmd, rest[0])
		if sub == nil {
			break
		}
		cmd, rest = sub, rest[1:]
	}
	cmd.InitDefaultHelpFlag() // cobra adds --help only when a command runs
	for _, f := range rest {
		name, isFlag := strings.CutPrefix(f, "--")
		if !isFlag {
			if short, ok := strings.CutPrefix(f, "-"); ok && len(short) == 1 && cmd != root {
				if cmd.Flags().ShorthandLookup(short) == nil && cmd.InheritedFlags().ShorthandLookup(short) == nil {
					return errNoFlag(cmd, f)
				}
			}
			continue
		}
		name, _, _ = strings.Cut(name, "=")
		if cmd == root {
			return errNoFlag(cmd, f) // a flag after no known command
		}
		if cmd.Flags().Lookup(name) == nil && cmd.InheritedFlags().Lookup(name) == nil {
			return errNoFlag(cmd, f)
		}
	}
	return nil
}

func subcommand(cmd *cobra.Command, name string) *cobra.Command {
	for _, sub := range cmd.Commands() {
		if sub.Name() == name || sub.HasAlias(name) {
			return sub
		}
	}
	return nil
}

func errNoFlag(cmd *cobra.Command, flag string) error {
	if !cmd.HasParent() {
		return &usageError{msg: "no dchess command takes " + flag + " there"}
	}
	return &usageError{msg: cmd.CommandPath() + " has no flag " + flag}
}

// TestCheckSuggestions: the tour's checker accepts real command lines and
// prose, and refuses a misspelt flag, a flag of another command and a flag
// after no command.
func TestCheckSuggestions(t *testing.T) {
	root := newRootCmd(&IOStreams{})
	for line, ok := range map[string]bool{
		"train --model diffusion --data DATASET --config configs/diffusion-small.yaml --max-steps 500": true,
		"label --pv 4":                    true,
		"dataset split data/x --val 0.05": true,
		"ingest x.pgn -o data/x":          true,
		"match --help":                    true,
		"did not write there":             true,
		"label --pvv 4":                   false,
		"train --pv 4":                    false,
		"export runs/cnn -x out.dcw":      false,
		"lable --pv 4":                    false,
	} {
		if err := checkCommandLine(root, strings.Fields(line)); (err == nil) != ok {
			t.Errorf("dchess %s: %v, want ok=%v", line, err, ok)
		}
	}
}

// TestReadmeCommandLinesExist: every dchess command line in the README's and the guide's
// code blocks names a command and flags the tree has, so the tour's text
// does not send a reader to a flag that is gone.
func TestReadmeCommandLinesExist(t *testing.T) {
	root := newRootCmd(&IOStreams{})
	command := regexp.MustCompile(`(?:^|\|\s*|&&\s*)dchess ([^|]+)`)
	var lines int
	var joined string
	for _, line := range readmeCodeLines(t) {
		if cont, ok := strings.CutSuffix(strings.TrimSpace(line), "\\"); ok {
			joined += cont + " "
			continue
		}
		line, joined = joined+line, ""
		line, _, _ = strings.Cut(line, " #")
		for _, m := range command.FindAllStringSubmatch(line, -1) {
			lines++
			if err := checkCommandLine(root, strings.Fields(m[1])); err != nil {
				t.Errorf("README: dchess %s: %v", m[1], err)
			}
		}
	}
	if lines < 40 {
		t.Fatalf("found only %d dchess command lines in the README", lines)
	}
}
