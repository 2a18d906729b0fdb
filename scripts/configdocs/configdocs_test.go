package main

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/dchess/dchess/internal/cmdref"
	"github.com/dchess/dchess/internal/testenv"
	"github.com/dchess/dchess/models/families"
	"github.com/dchess/dchess/models/family"
	"github.com/dchess/dchess/pipeline"
)

// TestConfigReferenceIsUpToDate: the checked-in docs/reference/config is
// what the code generates now. A key added, removed, given another
// default, bound or comment without regenerating fails here, with the
// command that regenerates; a key no comment explains fails here too,
// naming the field to comment.
func TestConfigReferenceIsUpToDate(t *testing.T) {
	root := testenv.RepoRoot()
	want, err := generate(root)
	if err != nil {
		t.Fatalf("%v\nSay what each field means in a comment on it, then regenerate from the repository's root with\n\t%s", err, regenerate)
	}
	dir := filepath.Join(root, filepath.FromSlash(referenceDir))
	got := map[string][]byte{}
	entries, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".md") {
			if got[e.Name()], err = os.ReadFile(filepath.Join(dir, e.Name())); err != nil {
				t.Fatal(err)
			}
		}
	}
	drift := cmdref.Drift(want, got)
	if len(drift) > 0 {
		t.Errorf("%s is out of date with the code's configs:\n\t%s\nRegenerate it from the repository's root with\n\t%s",
			referenceDir, strings.Join(drift, "\n\t"), regenerate)
	}
}

// keysOfYAML lists the keys a YAML document holds, as the pages write
// them: a.b, and list[].c for the mappings of a list.
func keysOfYAML(n *yaml.Node, prefix string, out map[string]bool) {
	switch n.Kind {
	case yaml.DocumentNode:
		for _, c := range n.Content {
			keysOfYAML(c, prefix, out)
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			key := join(prefix, n.Content[i].Value)
			out[key] = true
			keysOfYAML(n.Content[i+1], key, out)
		}
	case yaml.SequenceNode:
		for _, c := range n.Content {
			keysOfYAML(c, prefix+"[]", out)
		}
	}
}

func yamlKeys(t *testing.T, data []byte) map[string]bool {
	t.Helper()
	var n yaml.Node
	if err := yaml.Unmarshal(data, &n); err != nil {
		t.Fatal(err)
	}
	keys := map[string]bool{}
	keysOfYAML(&n, "", keys)
	return keys
}

// Every key a config holds has its row, or its section for a mapping at
// the top level: each family's default config as
// written out, and the quickstart's run config, which sets every key.
func TestEveryKeyHasItsRow(t *testing.T) {
	root := testenv.RepoRoot()
	pages, err := generate(root)
	if err != nil {
		t.Fatal(err)
	}
	check := func(page string, data []byte) {
		t.Helper()
		keys := yamlKeys(t, data)
		if len(keys) < 10 {
			t.Fatalf("%s: only %d keys: %v", page, len(keys), keys)
		}
		for key := range keys {
			if !bytes.Contains(pages[page], []byte("| `"+key+"` |")) && !bytes.Contains(pages[page], []byte("\n## `"+key+"`\n")) {
				t.Errorf("%s has no row or section for %s", page, key)
			}
		}
	}
	families.RegisterAll()
	for _, name := range family.Names() {
		c, err := family.DefaultConfig(name)
		if err != nil {
			t.Fatal(err)
		}
		data, err := c.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		check(pageName(name), data)
	}
	cfg, err := pipeline.LoadRunConfig(filepath.Join(root, "configs", "quickstart.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	data, err := yaml.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	check("pipeline.md", data)
}

// parseStruct parses a struct type called T from source.
func parseStruct(t *testing.T, src string) *ast.StructType {
	t.Helper()
	file, err := parser.ParseFile(token.NewFileSet(), "x.go", "package x\n"+src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range file.Decls {
		if g, ok := d.(*ast.GenDecl); ok {
			for _, s := range g.Specs {
				if ts, ok := s.(*ast.TypeSpec); ok && ts.Name.Name == "T" {
					return ts.Type.(*ast.StructType)
				}
			}
		}
	}
	t.Fatal("no type T")
	return nil
}

// A field's meaning is its own comment, or the comment of the fields
// declared with it when that comment names it; else there is none, which
// the generator reports.
func TestFieldComment(t *testing.T) {
	st := parseStruct(t, `type T struct {
	// InputMin and InputMax are mapped to -1 and 1.
	InputMin float32 `+"`yaml:\"input_min\"`"+`
	InputMax float32 `+"`yaml:\"input_max\"`"+`
	// Schedule is cosine after warmup_steps of warm-up.
	Schedule string
	WarmupSteps int `+"`yaml:\"warmup_steps\"`"+`
	Undocumented int
	Trailing int // a line comment counts
	// Own is documented.
	Own int
	Other int
}`)
	for _, c := range []struct{ name, key, want string }{
		{"InputMin", "input_min", "InputMin and InputMax are mapped to -1 and 1."},
		{"InputMax", "input_max", "InputMin and InputMax are mapped to -1 and 1."},
		{"WarmupSteps", "warmup_steps", "Schedule is cosine after warmup_steps of warm-up."},
		{"Undocumented", "undocumented", ""},
		{"Trailing", "trailing", "a line comment counts"},
		{"Other", "other", ""},
		{"Missing", "missing", ""},
	} {
		if got := fieldComment(st, c.name, c.key); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

// The Go names of fields become their keys where they are names: a name
// of several words anywhere, a one-word name starting a sentence, never a
// qualified name or a one-word name inside a sentence.
func TestKeyed(t *testing.T) {
	keys := map[string]string{"MaxSteps": "max_steps", "Stockfish": "stockfish", "PV": "pv", "LegalMask": "legal_mask", "Nodes": "nodes"}
	for in, want := range map[string]string{
		"MaxSteps stops training (0: no MaxSteps).":        "`max_steps` stops training (0: no `max_steps`).",
		"Stockfish is the engine's path.":                  "`stockfish` is the engine's path.",
		"PV keeps Stockfish's principal variation.":        "`pv` keeps Stockfish's principal variation.",
		"as diffusion.Config.LegalMask; or LegalMask() is": "as diffusion.Config.LegalMask; or LegalMask() is",
		"Depth is the depth; Nodes the nodes.":             "Depth is the depth; `nodes` the nodes.",
	} {
		if got := keyed(in, keys); got != want {
			t.Errorf("keyed(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestNumber(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 65536: "65536", 100_000: "100000", 1_000_000_000_000_000: "10^15", 1 << 40: "2^40", 10_000_000: "10^7", 3_000_000: "3000000"} {
		if got := number(n); got != want {
			t.Errorf("number(%d) = %s, want %s", n, got, want)
		}
	}
}

// A family's figures are listed with their meanings, and a figure without
// one stops the generator as an unexplained key does.
func TestWriteMetrics(t *testing.T) {
	var b bytes.Buffer
	w := &walker{}
	writeMetrics(&b, w, "fam", []family.MetricInfo{
		{Name: "train_loss, val_loss", Meaning: "the loss | its pipe"},
		{Name: "stage"},
	})
	if !bytes.Contains(b.Bytes(), []byte("| `train_loss`, `val_loss` | the loss \\| its pipe |\n")) {
		t.Errorf("no escaped row for the loss:\n%s", b.String())
	}
	if len(w.problems) != 1 || !strings.Contains(w.problems[0], "fam: the figure stage") {
		t.Errorf("problems %q, want one for stage", w.problems)
	}
}
