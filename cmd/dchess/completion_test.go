package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/dchess/dchess/models/dcw"
	"github.com/dchess/dchess/models/family"
	"github.com/dchess/dchess/search/player"
)

// complete asks the completion a shell asks: "dchess __complete ARGS...",
// the last argument being the word typed so far. It returns the candidates
// and the directive line (":4" is no file completion).
func complete(t *testing.T, args ...string) (candidates []string, directive string) {
	t.Helper()
	s, out, errOut := playStreams("")
	if err := runCLI(s, append([]string{cobra.ShellCompRequestCmd}, args...)...); err != nil {
		t.Fatalf("__complete %q: %v\n%s", args, err, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if strings.Contains(errOut.String(), "[Error]") {
		t.Errorf("__complete %q: %s", args, errOut)
	}
	return lines[:len(lines)-1], lines[len(lines)-1]
}

// writeWeights writes a small .dcw file of family at path.
func writeWeights(t *testing.T, path, family string) {
	t.Helper()
	f := &dcw.File{Family: family, Arch: []byte(`{}`), Tensors: []dcw.Tensor{{Name: "w", Shape: []int{1}, Data: []float32{1}}}}
	if err := dcw.Write(path, f); err != nil {
		t.Fatal(err)
	}
}

func TestCompletionOfPlayerSpecs(t *testing.T) {
	families := player.Families()
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"match", "--a", ""}, families},
		{[]string{"match", "--b", "ra"}, []string{"random"}},
		{[]string{"match", "-a", "heu"}, []string{"heuristic"}},
		{[]string{"match", "--a", "random", "--b", "HEU"}, []string{"heuristic"}},
		{[]string{"tournament", "--players", "heuristic:depth=2,ra"}, []string{"heuristic:depth=2,random"}},
		{[]string{"tournament", "--players", "u"}, []string{"uci"}},
		{[]string{"eval", "--player", "rand"}, []string{"random"}},
		{[]string{"play", "--player", "heur"}, []string{"heuristic"}},
		{[]string{"uci", "--player", "heur"}, []string{"heuristic"}},
		{[]string{"match", "--a", "zzz"}, nil},
	} {
		got, directive := complete(t, c.args...)
		if !slices.Equal(got, c.want) || directive != ":4" {
			t.Errorf("%q completes to %q %s, want %q :4", c.args, got, directive, c.want)
		}
	}
	if !slices.Contains(families, "heuristic") || !slices.Contains(families, "nnue") {
		t.Errorf("families %v: the registry lacks the players the test expects", families)
	}
}

// After "family:" come that family's weights under runs/, read from each
// file's header: a run of another family, a checkpoint and a file that is
// not weights are left out.
func TestCompletionOfWeightsUnderRuns(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	for path, family := range map[string]string{
		"runs/nnue-a/model.dcw":      "nnue",
		"runs/nnue-b/model.dcw":      "nnue",
		"runs/nnue-b/best.dcw":       "nnue",
		"runs/nnue-b/checkpoint.dcw": "checkpoint/nnue",
		"runs/cnn-a/model.dcw":       "cnn",
	} {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		writeWeights(t, path, family)
	}
	if err := os.WriteFile("runs/nnue-a/notes.dcw", []byte("not weights"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"match", "--a", "nnue:"}, []string{"nnue:runs/nnue-a/model.dcw", "nnue:runs/nnue-b/best.dcw", "nnue:runs/nnue-b/model.dcw"}},
		{[]string{"match", "--a", "nnue:runs/nnue-b/m"}, []string{"nnue:runs/nnue-b/model.dcw"}},
		{[]string{"tournament", "--players", "random,cnn:"}, []string{"random,cnn:runs/cnn-a/model.dcw"}},
		{[]string{"match", "--b", "heuristic:"}, nil},
	} {
		if got, directive := complete(t, c.args...); !slices.Equal(got, c.want) || directive != ":4" {
			t.Errorf("%q completes to %q %s, want %q :4", c.args, got, directive, c.want)
		}
	}
	// uci: completes an engine's path, a folder with its slash and no space.
	if err := os.WriteFile("runs/engine", nil, 0o755); err != nil {
		t.Fatal(err)
	}
	if got, directive := complete(t, "match", "--a", "uci:ru"); !slices.Equal(got, []string{"uci:runs/"}) || directive != ":6" {
		t.Errorf("uci:ru completes to %q %s", got, directive)
	}
	if got, _ := complete(t, "match", "--a", "uci:runs/e"); !slices.Equal(got, []string{"uci:runs/engine"}) {
		t.Errorf("uci:runs/e completes to %q", got)
	}
}

func TestCompletionOfFlagValues(t *testing.T) {
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"dataset", "export", "data", "--format", ""}, []string{"jsonl", "csv", "plain", "binpack", "bullet"}},
		{[]string{"ingest", "games.pgn", "--format", ""}, []string{"pgn", "lichess-evals", "csv", "epd", "puzzles", "plain", "binpack", "bullet"}},
		{[]string{"ingest", "--format", "l"}, []string{"lichess-evals"}},
		{[]string{"train", "--model", ""}, family.Names()},
		{[]string{"train", "--model", "nn"}, []string{"nnue"}},
		{[]string{"match", "--openings-order", ""}, []string{"sequential", "random"}},
		{[]string{"tournament", "--openings-order", "r"}, []string{"random"}},
	} {
		if got, directive := complete(t, c.args...); !slices.Equal(got, c.want) || directive != ":4" {
			t.Errorf("%q completes to %q %s, want %q :4", c.args, got, directive, c.want)
		}
	}
}

// Every flag the completion tables name is a flag of some command, so a
// renamed flag cannot leave its completion behind.
func TestCompletionTablesNameRealFlags(t *testing.T) {
	s, _, _ := playStreams("")
	root := newRootCmd(s)
	defined := map[string]bool{}
	paths := map[string]*cobra.Command{}
	var visit func(*cobra.Command)
	visit = func(c *cobra.Command) {
		paths[c.CommandPath()] = c
		c.Flags().VisitAll(func(f *pflag.Flag) { defined[f.Name] = true })
		for _, sub := range c.Commands() {
			visit(sub)
		}
	}
	visit(root)
	names := append(slices.Clone(specFlags), specListFlags...)
	for name := range valueFlags {
		names = append(names, name)
	}
	for _, name := range names {
		if !defined[name] {
			t.Errorf("completion of --%s: no command has that flag", name)
		}
	}
	for path := range formatValues {
		if c := paths[path]; c == nil || c.Flags().Lookup("format") == nil {
			t.Errorf("completion of %s --format: no such command or flag", path)
		}
	}
}
