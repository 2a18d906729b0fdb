// Package layering holds the test that keeps the imports between dchess's
// folders pointing one way, as the README's layout table states:
// cmd -> pipeline -> {models, search, dataset} -> internal, with search
// seeing models only through its interfaces. Inside models, the family
// contract (models/family) and the sequence families' shared layer
// (models/transformer, with its objective in models/transformer/sequence)
// sit beneath every family: a family imports them, never the other way,
// and only models/families imports every family. flow sits on the shared
// transformer, not on diffusion.
// Inside pipeline, the training loop (pipeline/train) links no plotting
// library, and self-play and the evaluations do not link the loop; a
// UCI-only binary (search/uciengine and the families it plays) links no
// training loop either. A change that adds an import against that
// direction fails here, naming the package and the import.
package layering

import (
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/dchess/dchess/"

// forbidden maps a package prefix (relative to the module) to the prefixes
// none of its packages may depend on, directly or through others: a prefix
// inside the module is written relative to it, one outside it (a domain
// first) as its import path.
var forbidden = []struct {
	from string
	not  []string
}{
	{"search", []string{"cmd", "pipeline", "models", "dataset"}},
	{"dataset", []string{"cmd", "pipeline", "models", "search"}},
	{"models", []string{"cmd", "pipeline", "models/families"}},
	{"models/family", familyPackages},
	{"models/transformer", familyPackages},
	{"models/flow", []string{"models/diffusion"}},
	{"pipeline", []string{"cmd"}},
	// The loop draws nothing itself: its callers hand it pipeline/plot.
	{"pipeline/train", []string{"pipeline/plot", "pipeline/evaluate", "gonum.org/v1/plot"}},
	{"pipeline/selfplay", []string{"pipeline/train"}},
	{"pipeline/evaluate", []string{"pipeline/train"}},
	{"pipeline/plot", []string{"pipeline/evaluate"}},
	{"internal", []string{"cmd", "pipeline", "models", "search", "dataset"}},
	{"scripts", []string{"cmd"}},
}

// familyPackages are the families' own packages, which register
// themselves when models/families tells them to.
var familyPackages = []string{"models/ann", "models/cnn", "models/deepchess", "models/diffusion",
	"models/experience", "models/flow", "models/nnue"}

// under says whether rel is the package prefix or inside it.
func under(rel, prefix string) bool {
	return rel == prefix || strings.HasPrefix(rel, prefix+"/")
}

func TestImportsPointOneWay(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}}{{range .Deps}} {{.}}{{end}}`, module+"...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	checked := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg := strings.TrimPrefix(fields[0], module)
		for _, rule := range forbidden {
			if !under(pkg, rule.from) {
				continue
			}
			checked++
			for _, dep := range fields[1:] {
				rel, _ := strings.CutPrefix(dep, module)
				for _, no := range rule.not {
					if under(rel, no) {
						t.Errorf("%s depends on %s: %s may not depend on %s/", pkg, rel, rule.from, no)
					}
				}
			}
		}
	}
	if checked < 20 {
		t.Fatalf("only %d packages checked: go list printed\n%s", checked, out)
	}
}

// TestUCIBinaryLinksNoTrainingLoop: what a binary that only plays over UCI
// links (the engine loop and every family's player) holds no training
// loop. models/family may pull Gorgonia for the objectives; the loop that
// runs them stays out.
func TestUCIBinaryLinksNoTrainingLoop(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", module+"search/uciengine", module+"models/families").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 20 {
		t.Fatalf("only %d dependencies listed: %q", len(deps), deps)
	}
	for _, dep := range deps {
		if rel, ok := strings.CutPrefix(dep, module); ok && (under(rel, "pipeline/train") || under(rel, "cmd")) {
			t.Errorf("search/uciengine with models/families depends on %s: a UCI-only binary would link it", rel)
		}
	}
}
