package pipeline

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/dchess/dchess/internal/testenv"
)

// Every size of a run config is bounded before anything runs: the shipped
// configs load, and each bounded key set absurdly large in a copy of the
// quickstart config is a one-line error naming it, not memory exhausted
// part way (the reported bug: selfplay games of 10^11 crashed the run).
func TestRunConfigSizesAreBounded(t *testing.T) {
	configs := filepath.Join(testenv.RepoRoot(), "configs")
	for _, name := range []string{"quickstart.yaml", "quickstart-short.yaml"} {
		if _, err := LoadRunConfig(filepath.Join(configs, name)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	text, err := os.ReadFile(filepath.Join(configs, "quickstart.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	// The keys of the form "section.key: N" in the file, each set to 10^15.
	dir := t.TempDir()
	tried := 0
	section := ""
	lines := strings.Split(string(text), "\n")
	for i, line := range lines {
		if m := regexp.MustCompile(`^([a-z_]+):`).FindStringSubmatch(line); m != nil {
			section = m[1]
		}
		m := regexp.MustCompile(`^  ([a-z_]+): *([0-9]+) *(#.*)?$`).FindStringSubmatch(line)
		if m == nil {
			continue
		}
		key := section + "." + m[1]
		if _, bounded := runBounds[key]; !bounded {
			if !strings.HasSuffix(key, ".seed") {
				t.Errorf("%s has no bound", key)
			}
			continue
		}
		changed := append([]string(nil), lines...)
		changed[i] = strings.Replace(line, m[2], "1000000000000000", 1)
		path := filepath.Join(dir, "quickstart.yaml")
		if err := os.WriteFile(path, []byte(strings.Join(changed, "\n")), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := LoadRunConfig(path)
		if err == nil || !strings.Contains(err.Error(), key+" 1000000000000000 is out of bounds") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s = 10^15: %v", key, err)
		}
		tried++
	}
	if tried < 10 {
		t.Fatalf("only %d keys tried", tried)
	}
}
