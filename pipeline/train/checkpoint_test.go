package train

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dchess/dchess/models/ann"
	"github.com/dchess/dchess/models/family"
)

// The reported bug: --resume gave up when the newest checkpoint was damaged
// though an older one was intact.
func TestResumeFallsBackToTheNewestIntactCheckpoint(t *testing.T) {
	data := materialDataset(t, 900)
	cfg := testConfig(t, ann.Family)
	cfg.Epochs = 2
	ctx := context.Background()
	whole := filepath.Join(t.TempDir(), "whole")
	if _, err := Run(ctx, Options{Config: cfg, Data: data, RunDir: whole}); err != nil {
		t.Fatal(err)
	}

	run := filepath.Join(t.TempDir(), "run")
	one := *cfg
	one.Epochs = 1
	if _, err := Run(ctx, Options{Config: &one, Data: data, RunDir: run}); err != nil {
		t.Fatal(err)
	}
	if _, err := Run(ctx, Options{Data: data, RunDir: run, Resume: true, Epochs: 2}); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(run, CheckpointDir)
	names, err := checkpointFiles(dir)
	if err != nil || len(names) < 2 {
		t.Fatalf("checkpoints %v, %v: want at least two", names, err)
	}
	older, newest := names[len(names)-2], names[len(names)-1]
	var olderStep, newestStep int64
	fmt.Sscanf(older, "step-%d.dcw", &olderStep)
	fmt.Sscanf(newest, "step-%d.dcw", &newestStep)
	data2, err := os.ReadFile(filepath.Join(dir, newest))
	if err != nil {
		t.Fatal(err)
	}
	data2[len(data2)/2] ^= 0x10
	os.WriteFile(filepath.Join(dir, newest), data2, 0o644)

	var said strings.Builder
	infof := func(format string, args ...any) { fmt.Fprintf(&said, format, args...) }
	if _, err := Run(ctx, Options{Data: data, RunDir: run, Resume: true, Epochs: 2, Infof: infof}); err != nil {
		t.Fatalf("resume with a damaged newest checkpoint: %v", err)
	}
	for _, want := range []string{newest, "damaged", "continuing from the newest intact checkpoint " + filepath.Join(dir, older),
		fmt.Sprintf("%d steps are repeated", newestStep-olderStep)} {
		if !strings.Contains(said.String(), want) {
			t.Errorf("resume said %q, want %q in it", said.String(), want)
		}
	}
	// Repeating the steps gives what the uninterrupted run gave.
	sameWeights(t, trainedWeights(t, whole), trainedWeights(t, run))

	// Nothing intact at all is still an error that names the files.
	names, _ = checkpointFiles(dir)
	for _, n := range names {
		os.WriteFile(filepath.Join(dir, n), []byte("junk"), 0o644)
	}
	if _, err := loadNewestCheckpoint(run); err == nil || !strings.Contains(err.Error(), "no intact checkpoint") || !strings.Contains(err.Error(), names[0]) {
		t.Fatalf("all damaged: %v", err)
	}
}

// The reported bug: after a run that failed before its first checkpoint
// (on a full disk; here its loss diverges at once), --resume said to
// "train with --out RUNDIR first", which is what had been run. It says
// that the run stopped before its first checkpoint and how to start over,
// and starting over works.
func TestResumeWithoutACheckpointSaysWhatIsMissing(t *testing.T) {
	data := materialDataset(t, 300)
	ctx := context.Background()
	cfg := testConfig(t, ann.Family)
	cfg.Epochs = 1
	exploding := *cfg
	exploding.Optimizer.LR = 1e30
	run := filepath.Join(t.TempDir(), "run")
	if _, err := Run(ctx, Options{Config: &exploding, Data: data, RunDir: run}); err == nil || !strings.Contains(err.Error(), "diverged") {
		t.Fatalf("exploding run: %v", err)
	}
	resume := func(dir string, want ...string) {
		t.Helper()
		_, err := Run(ctx, Options{Data: data, RunDir: dir, Resume: true})
		if !errors.Is(err, ErrNoCheckpoint) || strings.Contains(err.Error(), "\n") || strings.Contains(err.Error(), "train with --out") {
			t.Fatalf("resume of %s: %v", dir, err)
		}
		for _, w := range want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("resume of %s: %v\nwant %q in it", dir, err, w)
			}
		}
	}
	resume(run, "stopped before writing its first", "without --resume", "--config "+filepath.Join(run, family.ConfigFile))
	resume(filepath.Join(t.TempDir(), "missing"), "does not exist", "without --resume")
	resume(t.TempDir(), "no run has started there", "without --resume")

	// Starting over, as the message says: the config as run repeats the
	// run (and explodes again), a sane one trains.
	if _, err := Run(ctx, Options{Config: testConfigFile(t, run), Data: data, RunDir: run}); err == nil {
		t.Fatal("the config as run still explodes")
	}
	if _, err := Run(ctx, Options{Config: cfg, Data: data, RunDir: run}); err != nil {
		t.Fatalf("starting over: %v", err)
	}
}

// testConfigFile reads a run's config.yaml.
func testConfigFile(t *testing.T, run string) *family.Config {
	t.Helper()
	c, err := family.LoadConfig(filepath.Join(run, family.ConfigFile), "")
	if err != nil {
		t.Fatal(err)
	}
	return c
}
