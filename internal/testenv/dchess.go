package testenv

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// built is the dchess binary Dchess builds, once per test binary.
var built struct {
	once sync.Once
	dir  string
	path string
	err  error
	out  []byte
}

// Dchess builds ./cmd/dchess on first use and returns its path, or fails the
// test. Packages that call it run their tests through RunRemovingDchess, so
// that the build does not outlive them.
func Dchess(t testing.TB) string {
	t.Helper()
	built.once.Do(func() {
		if built.dir, built.err = os.MkdirTemp("", "dchess-bin"); built.err != nil {
			return
		}
		built.path = filepath.Join(built.dir, "dchess")
		build := exec.Command("go", "build", "-o", built.path, "./cmd/dchess")
		build.Dir = RepoRoot()
		built.out, built.err = build.CombinedOutput()
	})
	if built.err != nil {
		t.Fatalf("go build ./cmd/dchess: %v\n%s", built.err, built.out)
	}
	return built.path
}

// RunRemovingDchess runs m's tests, removes the binary Dchess built and
// returns the exit code for TestMain to pass to os.Exit.
func RunRemovingDchess(m *testing.M) int {
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	return code
}
