package interop

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dchess/dchess/internal/testenv"
)

// sfTools returns the Stockfish binary with the training-data tools (the
// `convert` command of Stockfish's tools branch) that DCHESS_SF_TOOLS
// names. No Debian or npm package ships those tools (Debian's stockfish
// has no `convert`), so CI cannot install them: this test skips without
// the variable, under CI=true too, and is run by hand as
// docs/dataset-format.md says.
func sfTools(t *testing.T) string {
	t.Helper()
	p := os.Getenv("DCHESS_SF_TOOLS")
	if p == "" {
		t.Skip("DCHESS_SF_TOOLS is not set: no Stockfish tools-branch binary to check the binpack export against")
	}
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("DCHESS_SF_TOOLS: %v", err)
	}
	return p
}

// convert runs Stockfish's converter on pairs of (from, to) paths in dir.
func convert(t *testing.T, sf, dir string, pairs ...[2]string) {
	t.Helper()
	var script strings.Builder
	for _, p := range pairs {
		script.WriteString("convert " + p[0] + " " + p[1] + " validate\n")
	}
	script.WriteString("quit\n")
	cmd := exec.Command(sf)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(script.String())
	out, err := cmd.CombinedOutput()
	if err != nil || bytes.Contains(out, []byte("Illegal move")) || bytes.Count(out, []byte("Finished.")) != len(pairs) {
		t.Fatalf("%s: %v\n%s", sf, err, out)
	}
}

func read(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestBinpackAgainstStockfishTools: Stockfish's converter turns dchess's
// binpack into the plain file dchess exports, and dchess's plain file into
// dchess's binpack byte for byte; dchess reads the converter's binpack
// back into the same records.
func TestBinpackAgainstStockfishTools(t *testing.T) {
	sf := sfTools(t)
	dir := t.TempDir()
	sample := filepath.Join(testenv.RepoRoot(), "internal", "chess", "binpack", "testdata", "sample.plain")
	ds := filepath.Join(dir, "ds")
	dchess(t, "ingest", "--format", "plain", sample, "-o", ds)
	dchess(t, "dataset", "export", ds, "--format", "plain", "-o", filepath.Join(dir, "d.plain"))
	dchess(t, "dataset", "export", ds, "--format", "binpack", "-o", filepath.Join(dir, "d.binpack"))
	convert(t, sf, dir, [2]string{"d.binpack", "s.plain"}, [2]string{"d.plain", "s.binpack"})
	plain := read(t, filepath.Join(dir, "d.plain"))
	if n := bytes.Count(plain, []byte("\ne\n")); n < 40 {
		t.Fatalf("dchess exported only %d entries", n)
	}
	if s := read(t, filepath.Join(dir, "s.plain")); !bytes.Equal(s, plain) {
		t.Errorf("Stockfish reads dchess's binpack as\n%s\ndchess's plain export is\n%s", s, plain)
	}
	if s, d := read(t, filepath.Join(dir, "s.binpack")), read(t, filepath.Join(dir, "d.binpack")); !bytes.Equal(s, d) {
		t.Errorf("Stockfish's binpack of dchess's plain export differs from dchess's binpack:\n% x\n% x", s, d)
	}
	back := filepath.Join(dir, "back")
	dchess(t, "ingest", "--format", "binpack", filepath.Join(dir, "s.binpack"), "-o", back)
	again := dchess(t, "dataset", "export", back, "--format", "plain")
	if !bytes.Equal(again, plain) {
		t.Errorf("dchess reads Stockfish's binpack as\n%s\nwant\n%s", again, plain)
	}
}
