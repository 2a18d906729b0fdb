// Package testenv finds what tests need from outside the project: a
// Stockfish binary, other programs and the shared data folder. A test skips when one is
// missing, except under CI=true, where missing is a failure. It also says how
// long a test waits for a program it runs.
package testenv

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// StockfishPath looks for Stockfish in DCHESS_STOCKFISH, then PATH, then
// /usr/games/stockfish, and returns "" when none is found.
func StockfishPath() string {
	if p := os.Getenv("DCHESS_STOCKFISH"); p != "" {
		return p
	}
	if p, err := exec.LookPath("stockfish"); err == nil {
		return p
	}
	const debian = "/usr/games/stockfish"
	if st, err := os.Stat(debian); err == nil && !st.IsDir() {
		return debian
	}
	return ""
}

// Stockfish returns the Stockfish path or skips the test (fails under CI=true).
func Stockfish(t testing.TB) string {
	t.Helper()
	p := StockfishPath()
	if p == "" {
		missing(t, "Stockfish not found (set DCHESS_STOCKFISH, put stockfish on PATH or apt-get install stockfish)")
	}
	return p
}

// Program finds a program the tests run, on PATH and then at the given
// paths (Debian puts some in /usr/games), or skips the test (fails under
// CI=true) with install as the hint.
func Program(t testing.TB, name, install string, paths ...string) string {
	t.Helper()
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	for _, p := range paths {
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p
		}
	}
	missing(t, name+" not found ("+install+")")
	return ""
}

// Require skips the test with msg (fails under CI=true) unless ok.
func Require(t testing.TB, ok bool, msg string) {
	t.Helper()
	if !ok {
		missing(t, msg)
	}
}

// SharedData returns the path of rel inside ../shared/data (found by walking
// up from this source file), or skips the test (fails under CI=true).
func SharedData(t testing.TB, rel string) string {
	t.Helper()
	if dir := os.Getenv("DCHESS_SHARED_DATA"); dir != "" {
		return existing(t, filepath.Join(dir, rel))
	}
	_, file, _, _ := runtime.Caller(0)
	// file is <repo>/internal/testenv/testenv.go; shared/ sits beside <repo>.
	repo := filepath.Dir(filepath.Dir(filepath.Dir(file)))
	return existing(t, filepath.Join(filepath.Dir(repo), "shared", "data", rel))
}

// RepoRoot returns the repository's root folder.
func RepoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(filepath.Dir(filepath.Dir(file)))
}

func existing(t testing.TB, p string) string {
	t.Helper()
	if _, err := os.Stat(p); err != nil {
		missing(t, "shared data not found: "+p+" (set DCHESS_SHARED_DATA)")
	}
	return p
}

func missing(t testing.TB, msg string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
}

// ProgramDeadline is when a test gives up on a program it runs: shortly
// before the test binary's own -timeout, so the program's output is still
// reported. Fixed limits failed the suite whenever other work shared the
// cores and Stockfish labelled at a third of its idle speed.
func ProgramDeadline(t testing.TB) time.Time {
	if d, ok := t.(interface{ Deadline() (time.Time, bool) }); ok {
		if deadline, ok := d.Deadline(); ok {
			return deadline.Add(-30 * time.Second)
		}
	}
	return time.Now().Add(20 * time.Minute)
}
