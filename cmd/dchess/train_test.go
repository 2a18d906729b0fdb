package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dchess/dchess/dataset"
	"github.com/dchess/dchess/dataset/testenv"
	"github.com/dchess/dchess/models/cnn"
	"github.com/dchess/dchess/models/nn/nntest"
	"github.com/dchess/dchess/pipeline"
)

func labelledDataset(t *testing.T, n int) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "data")
	w, err := dataset.Create(dir, dataset.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range nntest.MaterialRecords(nntest.RandomBoards(n, 4)) {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
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
	var res pipeline.TrainResult
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

	out.Reset()
	dst := filepath.Join(t.TempDir(), "copy.dcw")
	if err := runExport(context.Background(), &exportOptions{RunDir: run, Output: dst, Last: true}, s); err != nil {
		t.Fatal(err)
	}
	if _, err := cnn.Load(dst); err != nil || !strings.Contains(out.String(), dst) {
		t.Fatalf("export: %v, output %q", err, out.String())
	}
	if err := runExport(context.Background(), &exportOptions{RunDir: t.TempDir()}, s); !errors.Is(err, pipeline.ErrNoCheckpoint) {
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
		{trainOptions{Model: "siamese", Data: "d"}, "not built yet"},
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
