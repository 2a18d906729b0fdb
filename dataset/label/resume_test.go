package label

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/dchess/dchess/dataset"
	"github.com/dchess/dchess/internal/jobarray"
	"github.com/dchess/dchess/internal/testenv"
)

// TestKillNineThenResume runs the labeller in a child process, kills it
// with SIGKILL once labels are journalled, runs again and checks that the
// result equals an uninterrupted run, with no journalled label computed twice.
func TestKillNineThenResume(t *testing.T) { killNineThenResume(t, jobarray.Spec{}) }

// TestKilledShardCompletesOnRerun is the same for one task of a sharded
// run, whose journal counts only the records that task owns.
func TestKilledShardCompletesOnRerun(t *testing.T) {
	killNineThenResume(t, jobarray.Spec{Index: 1, Count: 2})
}

func killNineThenResume(t *testing.T, spec jobarray.Spec) {
	sf := testenv.Stockfish(t)
	fens := wacFENs(t, 0)
	dir := t.TempDir()
	in := writeInput(t, filepath.Join(dir, "in"), fens)
	opts := nodesOptions(sf, in, jobarray.Name(filepath.Join(dir, "out"), spec))
	opts.Shard = spec
	if spec.Count > 1 {
		// The shard's own positions: what the journal and summary count.
		var owned []string
		for _, fen := range fens {
			if spec.Owns(dataset.PositionKey(fen)) {
				owned = append(owned, fen)
			}
		}
		fens = owned
	}

	raw, _ := json.Marshal(opts)
	child := exec.Command(os.Args[0], "-test.run=^$")
	child.Env = append(os.Environ(), childRunEnv+"="+string(raw))
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- child.Wait() }()
	journal := filepath.Join(partialDir(opts.Output), journalFile)
	// Kill once two batches are on disk: mid-run, with more to come.
	for {
		if st, err := os.Stat(journal); err == nil && st.Size() > 0 && len(journalEntries(t, partialDir(opts.Output))) >= 2*batchEntries {
			break
		}
		select {
		case err := <-exited:
			t.Fatalf("child ended before it could be killed: %v", err)
		case <-time.After(2 * time.Millisecond):
		}
	}
	child.Process.Signal(os.Kill)
	if err := <-exited; err == nil {
		t.Fatal("child finished before the kill")
	}
	kept := journalEntries(t, partialDir(opts.Output))
	if len(kept) >= len(fens) {
		t.Fatalf("child labelled everything (%d) before the kill", len(kept))
	}
	if _, err := os.Stat(opts.Output); !os.IsNotExist(err) {
		t.Fatalf("killed run left an output dataset: %v", err)
	}

	sum, err := Run(context.Background(), opts, nil)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Resumed != int64(len(kept)) || sum.Labelled != int64(len(fens)-len(kept)) {
		t.Fatalf("resumed %d (journal held %d), labelled %d of %d", sum.Resumed, len(kept), sum.Labelled, len(fens))
	}
	if _, err := os.Stat(partialDir(opts.Output)); !os.IsNotExist(err) {
		t.Fatalf("journal not removed: %v", err)
	}

	uninterrupted := opts
	uninterrupted.Output = filepath.Join(dir, "reference")
	if _, err := Run(context.Background(), uninterrupted, nil); err != nil {
		t.Fatal(err)
	}
	sameLabels(t, readRecords(t, opts.Output), readRecords(t, uninterrupted.Output))
}
