package dataset

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dchess/dchess/internal/safefile"
)

const killedWriterEnv = "DCHESS_DATASET_KILLED_WRITER"

// TestKilledWriterHelper is the child of TestRerunClearsAKilledWritersTemp:
// it starts writing the dataset named by the environment, says so and
// waits to be killed.
func TestKilledWriterHelper(t *testing.T) {
	dir := os.Getenv(killedWriterEnv)
	if dir == "" {
		t.Skip("helper process only")
	}
	w, err := Create(dir, WriteOptions{Shard: 10, Dedupe: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range sampleRecords(100, 10) {
		w.Write(r)
	}
	// Kept reachable: a collected writer's lock file is closed by its
	// finalizer, which frees the lock, and the parent then clears the
	// temporary folder of a writer that still runs (a CI run under load).
	killedWriter = w
	os.Stdout.WriteString("writing\n")
	// Asleep on a timer, not on select {}: once the writer's goroutines
	// finish, a process with nothing left to wake it dies of "all
	// goroutines are asleep", freeing the lock (a CI run under load).
	for {
		time.Sleep(time.Hour)
	}
}

var killedWriter *Writer

// The reported bug: a killed ingest left its temporary folder forever, and
// reruns did not remove it.
func TestRerunClearsAKilledWritersTemp(t *testing.T) {
	if !safefile.LocksWork {
		t.Skip("no file locks here")
	}
	parent := t.TempDir()
	dir := filepath.Join(parent, "ds")
	child := exec.Command(os.Args[0], "-test.run=^TestKilledWriterHelper$")
	child.Env = append(os.Environ(), killedWriterEnv+"="+dir)
	child.Stderr = os.Stderr // a helper that dies says why
	out, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	if line, _ := bufio.NewReader(out).ReadString('\n'); line != "writing\n" {
		child.Process.Kill()
		t.Fatalf("helper said %q", line)
	}
	temps := func() []string {
		entries, _ := os.ReadDir(parent)
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		return names
	}
	// A running writer's temporary folder is left alone.
	other, err := Create(filepath.Join(parent, "ds"), WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	other.Abort()
	if got := temps(); len(got) != 2 || !strings.HasPrefix(got[0], ".ds.tmp-") || got[1] != got[0]+lockSuffix {
		t.Fatalf("while the first writer runs, its parent holds %v", got)
	}
	child.Process.Kill()
	child.Wait()

	w, err := Create(dir, WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(&Record{FEN: "4k3/8/8/8/8/8/8/4K3 w - - 0 1"}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if got := temps(); len(got) != 1 || got[0] != "ds" {
		t.Fatalf("after the killed writer's rerun the parent holds %v", got)
	}
}

func TestStaleTempsWithoutALockAreCleared(t *testing.T) {
	if !safefile.LocksWork {
		t.Skip("no file locks here")
	}
	parent := t.TempDir()
	// Left by an older dchess (no lock file), and the lock file of a writer
	// killed after its rename.
	os.MkdirAll(filepath.Join(parent, ".ds.tmp-0badf00d", "scratch"), 0o755)
	os.WriteFile(filepath.Join(parent, ".ds.tmp-12345678"+lockSuffix), nil, 0o644)
	// The moved-aside old copy while the dataset is missing is the only copy.
	os.MkdirAll(filepath.Join(parent, ".ds.tmp-0000abcd.old"), 0o755)
	// Other datasets' temporaries are theirs.
	os.MkdirAll(filepath.Join(parent, ".other.tmp-0badf00d"), 0o755)
	removed, err := removeStaleTemps(parent, "ds")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(removed, " ") != ".ds.tmp-0badf00d .ds.tmp-12345678.lock" {
		t.Fatalf("removed %v", removed)
	}
	for _, kept := range []string{".ds.tmp-0000abcd.old", ".other.tmp-0badf00d"} {
		if _, err := os.Stat(filepath.Join(parent, kept)); err != nil {
			t.Errorf("%s: %v", kept, err)
		}
	}
	if entries, _ := os.ReadDir(parent); len(entries) != 2 {
		t.Errorf("left %v", entries)
	}
}

// startHelper runs the test named helper in a child process with env set to
// value, waits until it says "ready" and returns the child for the caller
// to kill: a run killed with SIGKILL, which cannot clean up after itself.
func startHelper(t *testing.T, helper, env, value string) *exec.Cmd {
	t.Helper()
	child := exec.Command(os.Args[0], "-test.run=^"+helper+"$")
	child.Env = append(os.Environ(), env+"="+value)
	child.Stderr = os.Stderr // a helper that dies says why
	out, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		child.Process.Kill()
		child.Wait()
	})
	if line, _ := bufio.NewReader(out).ReadString('\n'); line != "ready\n" {
		t.Fatalf("helper %s said %q", helper, line)
	}
	return child
}

// sayReadyAndSleep tells startHelper the helper is where it is to be
// killed, and waits for it. Asleep on a timer, not on select {}: a
// process whose goroutines all block dies of "all goroutines are asleep".
func sayReadyAndSleep() {
	os.Stdout.WriteString("ready\n")
	for {
		time.Sleep(time.Hour)
	}
}

func kill(t *testing.T, child *exec.Cmd) {
	t.Helper()
	if err := child.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	child.Wait()
}

// A split killed while it wrote the manifest left the temporary copy in the
// dataset; the next manifest write removes it.
func TestManifestRewriteClearsAKilledWritersTemp(t *testing.T) {
	if !safefile.LocksWork {
		t.Skip("no file locks here")
	}
	dir := filepath.Join(t.TempDir(), "ds")
	writeDataset(t, dir, WriteOptions{}, sampleRecords(30, 10))
	stale := filepath.Join(dir, "."+ManifestFile+".tmp-0badf00d")
	if err := os.WriteFile(stale, []byte(`{"format": "dchess-da`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := WriteSplit(dir, 0.2, 0.2, 1); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the killed manifest write's temporary is still there: %v", err)
	}
}

const killedSplitEnv = "DCHESS_DATASET_KILLED_SPLIT"

// killedSplitUnlock keeps the helper's lock reachable: a collected lock
// file is closed by its finalizer, which frees the lock.
var killedSplitUnlock func()

// TestKilledSplitHelper is the child of TestSplitClearsAKilledSplitsScratch:
// it makes a split's scratch folder in the dataset named by the
// environment, as WriteSplit does, fills it and waits to be killed.
func TestKilledSplitHelper(t *testing.T) {
	dir := os.Getenv(killedSplitEnv)
	if dir == "" {
		t.Skip("helper process only")
	}
	scratch, unlock, err := makeLockedTempDir(dir, splitScratchPrefix)
	if err != nil {
		t.Fatal(err)
	}
	killedSplitUnlock = unlock
	if _, err := newKeySpill(filepath.Join(scratch, "games"), gamePartitions, 4<<10); err != nil {
		t.Fatal(err)
	}
	sayReadyAndSleep()
}

// The reported bug: a split killed with kill -9 left its .split-* folder
// inside the dataset, and later splits never removed it.
func TestSplitClearsAKilledSplitsScratch(t *testing.T) {
	if !safefile.LocksWork {
		t.Skip("no file locks here")
	}
	dir := filepath.Join(t.TempDir(), "ds")
	writeDataset(t, dir, WriteOptions{Shard: 20}, sampleRecords(40, 10))
	// Left by a dchess from before the locks (os.MkdirTemp's name, no lock file).
	older := filepath.Join(dir, splitScratchPrefix+"123456789")
	if err := os.MkdirAll(filepath.Join(older, "games"), 0o755); err != nil {
		t.Fatal(err)
	}
	scratch := func() []string {
		names, _ := filepath.Glob(filepath.Join(dir, splitScratchPrefix+"*"))
		return names
	}
	child := startHelper(t, "TestKilledSplitHelper", killedSplitEnv, dir)
	running := scratch()
	if len(running) != 3 {
		t.Fatalf("the dataset holds %v: want the older scratch and the running split's folder and lock", running)
	}
	if _, err := WriteSplit(dir, 0.2, 0.2, 1); err != nil {
		t.Fatal(err)
	}
	// The running split's folder and lock stay; the dead one's folder goes.
	if got := scratch(); len(got) != 2 || slices.Contains(got, older) || !strings.HasSuffix(got[1], lockSuffix) {
		t.Fatalf("while a split runs, a second split left %v", got)
	}
	kill(t, child)
	if _, err := WriteSplit(dir, 0.2, 0.2, 2); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), "shard-") && e.Name() != ManifestFile {
			t.Errorf("after the killed split's rerun the dataset holds %s", e.Name())
		}
	}
	if d, err := Open(dir); err != nil || d.Manifest().Split.Seed != 2 {
		t.Fatalf("the rerun's split: %v", err)
	}
}
