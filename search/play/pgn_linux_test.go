package play

import (
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestAppendPGNCutsBackAFailedWrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "games.pgn")
	before := strings.TrimSuffix(matedPGN, "\n\n")
	if err := os.WriteFile(path, []byte(before), 0o644); err != nil {
		t.Fatal(err)
	}
	// A limit on file size just past the old end stops the append's write
	// part way, as a full disk would; the signal it raises would kill the test.
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
		t.Skip(err)
	}
	limit := old
	limit.Cur = uint64(len(before) + 100)
	signal.Ignore(syscall.SIGXFSZ)
	defer signal.Reset(syscall.SIGXFSZ)
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &limit); err != nil {
		t.Skip(err)
	}
	err := AppendPGN(path, matedGame("Tester"))
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
		t.Fatal(err)
	}
	if err == nil {
		t.Fatal("the write past the limit did not fail")
	}
	data, _ := os.ReadFile(path)
	if string(data) != before {
		t.Errorf("after a failed append (%v) the file is\n%q\nwant it as it was:\n%q", err, data, before)
	}
}
