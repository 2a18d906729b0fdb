package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dchess/dchess/dataset"
	"github.com/dchess/dchess/dataset/datasettest"
	"github.com/dchess/dchess/internal/testenv"
	"github.com/dchess/dchess/models/cnn"
	"github.com/dchess/dchess/models/deepchess"
	"github.com/dchess/dchess/models/family"
	"github.com/dchess/dchess/models/nn/nntest"
	"github.com/dchess/dchess/pipeline/train"
)

// labelledDataset writes n random positions labelled by material, split
// 80/20 into train and val.
func labelledDataset(t *testing.T, n int) string {
	t.Helper()
	dir := datasettest.Write(t, filepath.Join(t.TempDir(), "data"), dataset.WriteOptions{}, nntest.MaterialRecords(nntest.RandomBoards(n, 4)))
	if _, err := dataset.WriteSplit(dir, 0.2, 0, 1); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestTrainAndExportCommands(t *testing.T) {
	data := labelledDataset(t, 500)
	run := filepath.Join(t.TempDir(), "run")
	var out, progress bytes.Buffer
	// A terminal on ErrOut makes the command draw its progress bar.
	s := &IOStreams{Out: &out, ErrOut: &progress, ErrIsTerminal: true}
	opts := &trainOptions{Model: "cnn", Data: data, Out: run, JSON: true, Epochs: 2,
		Config: filepath.Join(testenv.RepoRoot(), "configs", "test", "cnn.yaml")}
	if err := runTrain(context.Background(), opts, s); err != nil {
		t.Fatal(err)
	}
	var res train.Result
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatalf("--json output %q: %v", out.String(), err)
	}
	if res.Family != "cnn" || res.Epochs != 2 || res.Steps == 0 || res.BestEpoch == 0 {
		t.Fatalf("result %+v", res)
	}
	if _, err := cnn.Load(res.Model); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(progress.String(), "samples") {
		t.Fatalf("no progress bar drawn: %q", progress.String())
	}

	// Resuming asks for the run's family and extends it.
	err := runTrain(context.Background(), &trainOptions{Model: "ann", Data: data, Out: run, Resume: true, Epochs: 3}, s)
	if err == nil || !strings.Contains(err.Error(), "not \"ann\"") {
		t.Fatalf("resuming a cnn run as ann: %v", err)
	}
	out.Reset()
	if err := runTrain(context.Background(), &trainOptions{Model: "cnn", Data: data, Out: run, Resume: true, Epochs: 3}, s); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "3 epochs") {
		t.Fatalf("resumed output: %s", out.String())
	}

	// A run that max_steps stops in its first epoch still reports its validation.
	out.Reset()
	short := &trainOptions{Model: "ann", Data: data, Out: filepath.Join(t.TempDir(), "short"), MaxSteps: 1,
		Config: filepath.Join(testenv.RepoRoot(), "configs", "test", "ann.yaml")}
	if err := runTrain(context.Background(), short, s); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "stopped by max_steps") || !strings.Contains(out.String(), "val loss") {
		t.Fatalf("max_steps output: %s", out.String())
	}

	out.Reset()
	dst := filepath.Join(t.TempDir(), "copy.dcw")
	if err := runExport(context.Background(), &exportOptions{RunDir: run, Output: dst, Last: true}, s); err != nil {
		t.Fatal(err)
	}
	if _, err := cnn.Load(dst); err != nil || !strings.Contains(out.String(), dst) {
		t.Fatalf("export: %v, output %q", err, out.String())
	}
	if err := runExport(context.Background(), &exportOptions{RunDir: t.TempDir()}, s); !errors.Is(err, train.ErrNoCheckpoint) {
		t.Fatalf("export of an empty folder: %v", err)
	}
}

func TestTrainUsageErrors(t *testing.T) {
	s := &IOStreams{Out: &bytes.Buffer{}, ErrOut: &bytes.Buffer{}}
	cases := []struct {
		opts trainOptions
		want string
	}{
		{trainOptions{Data: "d"}, "--model is required"},
		{trainOptions{Model: "policy", Data: "d", Init: "runs/ae"}, "--init starts a new run"},
		{trainOptions{Model: "ann", Data: "d", Init: "runs/ae"}, "--init starts a new run"},
		{trainOptions{Model: "gpt", Data: "d"}, "unknown model family"},
		{trainOptions{Model: "ann"}, "--data is required"},
		{trainOptions{Model: "ann", Data: "d", Resume: true}, "--resume needs --out"},
		{trainOptions{Model: "ann", Data: "d", Config: "/nonexistent.yaml"}, "nonexistent"},
	}
	for _, c := range cases {
		err := runTrain(context.Background(), &c.opts, s)
		var usage *usageError
		if err == nil || !strings.Contains(err.Error(), c.want) || !errors.As(err, &usage) {
			t.Errorf("%+v: got %v, want a usage error containing %q", c.opts, err, c.want)
		}
	}
}

// decisiveDataset writes random positions as if from decisive games: the
// side ahead in material won, the position's move is its first quiet one.
func decisiveDataset(t *testing.T, n int) string {
	t.Helper()
	dir := datasettest.Write(t, filepath.Join(t.TempDir(), "games"), dataset.WriteOptions{}, nntest.DecisiveRecords(nntest.RandomBoards(n, 8)))
	if _, err := dataset.WriteSplit(dir, 0.2, 0, 1); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestTrainDeepChessCommands(t *testing.T) {
	data := decisiveDataset(t, 800)
	t.Chdir(t.TempDir()) // runs/ is looked up in the working folder
	var out bytes.Buffer
	s := &IOStreams{Out: &out, ErrOut: &bytes.Buffer{}}
	root := testenv.RepoRoot()
	siamese := func(init string) *trainOptions {
		return &trainOptions{Model: "siamese", Data: data, Init: init, Epochs: 2, Out: filepath.Join(t.TempDir(), "siamese"),
			Config: filepath.Join(root, "configs", "test", "siamese.yaml")}
	}
	err := runTrain(context.Background(), siamese(""), s)
	if err == nil || !strings.Contains(err.Error(), "dchess train --model autoencoder") || !strings.Contains(err.Error(), "--init") {
		t.Fatalf("siamese without an autoencoder run: %v", err)
	}

	ae := filepath.Join("runs", "pos2vec")
	if err := runTrain(context.Background(), &trainOptions{Model: "autoencoder", Data: data, Out: ae, Epochs: 1,
		Config: filepath.Join(root, "configs", "test", "autoencoder.yaml")}, s); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"trained autoencoder", "layer 1: 1 epochs, reconstruction error", "layer 2:", "val "} {
		if !strings.Contains(out.String(), want) {
			t.Fatalf("autoencoder output lacks %q:\n%s", want, out.String())
		}
	}
	out.Reset()
	// The newest autoencoder run under runs/ is the default.
	if err := runTrain(context.Background(), siamese(""), s); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "pair accuracy") {
		t.Fatalf("siamese output:\n%s", out.String())
	}
	out.Reset()
	opts := siamese(ae)
	opts.JSON = true
	if err := runTrain(context.Background(), opts, s); err != nil {
		t.Fatal(err)
	}
	var res train.Result
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatalf("--json output %q: %v", out.String(), err)
	}
	if res.Family != "siamese" || res.Epochs != 2 || res.ValPairAccuracy == 0 {
		t.Fatalf("result %+v", res)
	}
	if _, err := deepchess.Load(res.Model); err != nil {
		t.Fatal(err)
	}

	// eval --data draws its test pairs as validation draws its pairs: with
	// the split redrawn so that the test games are the validation games,
	// it must give the validation accuracy of the exported epoch.
	if _, err := dataset.WriteSplit(data, 0, 0.2, 1); err != nil {
		t.Fatal(err)
	}
	rep := evalPairsJSON(t, &evalOptions{Player: "siamese:" + res.Model, Data: data})
	metrics, err := os.ReadFile(filepath.Join(res.RunDir, "metrics.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	want := -1.0
	for _, line := range strings.Split(strings.TrimSpace(string(metrics)), "\n") {
		var m train.Metric
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatal(err)
		}
		if m.Kind == "epoch" && m.Epoch == res.BestEpoch && m.ValPairAccuracy != nil {
			want = *m.ValPairAccuracy
		}
	}
	if rep.Split != "test" || rep.Pairs < 20 || math.Abs(rep.Accuracy-want) > 1.5/float64(rep.Pairs) {
		t.Fatalf("eval --data: %+v, the exported epoch %d validated at %v", rep, res.BestEpoch, want)
	}
}

// A run folder whose run stopped before its first checkpoint (its
// config.yaml written, no checkpoint: a full disk) cannot be resumed, and
// the message says so and how to start over, not to run what was run.
func TestTrainResumeWithoutACheckpoint(t *testing.T) {
	run := filepath.Join(t.TempDir(), "run")
	cfg, err := os.ReadFile(filepath.Join(testenv.RepoRoot(), "configs", "test", "ann.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(run, train.CheckpointDir), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(run, family.ConfigFile), cfg, 0o644); err != nil {
		t.Fatal(err)
	}
	s := &IOStreams{Out: &bytes.Buffer{}, ErrOut: &bytes.Buffer{}}
	err = runTrain(context.Background(), &trainOptions{Model: "ann", Data: "d", Out: run, Resume: true}, s)
	if err == nil || !strings.Contains(err.Error(), "stopped before writing its first") || !strings.Contains(err.Error(), "without --resume") ||
		strings.Contains(err.Error(), "train with --out") {
		t.Fatalf("resume without a checkpoint: %v", err)
	}
}

// The reported bug: `train` on an unlabelled dataset printed "0 steps, 0
// samples", exited 0 and wrote random weights. It is refused, and no run
// folder is made.
func TestTrainRefusesADatasetWithoutLabels(t *testing.T) {
	data := decisiveDataset(t, 200) // games' positions, no labels
	run := filepath.Join(t.TempDir(), "run")
	var out bytes.Buffer
	s := &IOStreams{Out: &out, ErrOut: &bytes.Buffer{}}
	err := runTrain(context.Background(), &trainOptions{Model: "cnn", Data: data, Out: run,
		Config: filepath.Join(testenv.RepoRoot(), "configs", "test", "cnn.yaml")}, s)
	if err == nil || !strings.Contains(err.Error(), "no position labelled by Stockfish") || !strings.Contains(err.Error(), "dchess label") {
		t.Fatalf("cnn on an unlabelled dataset: %v (printed %q)", err, out.String())
	}
	if _, err := os.Stat(run); !os.IsNotExist(err) {
		t.Fatalf("the refused run made its folder (%v)", err)
	}
}
