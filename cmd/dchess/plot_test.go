package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeRun makes a run folder whose metrics.jsonl holds the given lines.
func writeRun(t *testing.T, dir string, lines ...string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "metrics.jsonl"), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestPlotComparesRunsAndKeepsExistingFiles(t *testing.T) {
	root := t.TempDir()
	policy := writeRun(t, filepath.Join(root, "policy"),
		`{"kind":"step","epoch":1,"step":10,"loss":3.1,"lr":0.001}`,
		`{"kind":"epoch","epoch":1,"step":20,"lr":0.001,"train_loss":3,"val_loss":3.2,"train_action_accuracy":0.1,"val_action_accuracy":0.125}`)
	diffusion := writeRun(t, filepath.Join(root, "diffusion"),
		`{"kind":"epoch","epoch":1,"step":20,"lr":0.001,"train_loss":0.4,"val_loss":0.3,"train_action_accuracy":0.1,"val_action_accuracy":0.2}`,
		`{"kind":"partial","epoch":2,"step":30,"lr":0.001,"train_loss":0.3,"val_loss":0.25,"train_action_accuracy":0.2,"val_action_accuracy":0.25}`)
	out := filepath.Join(root, "curves.png")
	s, stdout, _ := testDatasetStreams()
	opts := &plotOptions{RunDirs: []string{policy, diffusion}, Metric: "val_action_accuracy", X: "step", Output: out}
	if err := runPlot(context.Background(), opts, s); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"policy: val_action_accuracy 0.125 at step 20 (1 point)", "diffusion: val_action_accuracy 0.25 at step 30 (2 points)", "wrote " + out} {
		if !strings.Contains(stdout.String(), want) {
			t.Fatalf("output lacks %q:\n%s", want, stdout)
		}
	}
	// The picture is there now: a second run needs --force.
	if err := runPlot(context.Background(), opts, s); err == nil || !strings.Contains(err.Error(), "--force") {
		t.Fatalf("plot over an existing file: %v", err)
	}
	opts.Force = true
	opts.Metric = "val_pair_accuracy"
	if err := runPlot(context.Background(), opts, s); err == nil || !strings.Contains(err.Error(), "no val_pair_accuracy") {
		t.Fatalf("a metric the runs lack: %v", err)
	}
	opts.RunDirs = []string{filepath.Join(root, "missing")}
	if err := runPlot(context.Background(), opts, s); err == nil || !strings.Contains(err.Error(), "missing: no training metrics") {
		t.Fatalf("a folder without metrics: %v", err)
	}
}

// Against the samples each run trained on, the runs' own scores.jsonl
// figures: the points, where the two cross, and a usage error for an axis
// or a metric that is neither kind.
func TestPlotDrawsScoresAgainstComputeAndSaysWhereTheyCross(t *testing.T) {
	root := t.TempDir()
	run := func(name string, scores ...string) string {
		dir := writeRun(t, filepath.Join(root, name),
			`{"kind":"partial","epoch":1,"step":100,"lr":0.001,"train_loss":3,"samples":1000,"flops":2000000}`,
			`{"kind":"partial","epoch":2,"step":200,"lr":0.001,"train_loss":2,"samples":2000,"flops":4000000}`)
		if err := os.WriteFile(filepath.Join(dir, "scores.jsonl"), []byte(strings.Join(scores, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	policy := run("policy", `{"step":100,"test":{"action_accuracy":0.15}}`, `{"step":200,"test":{"action_accuracy":0.17}}`)
	diffusion := run("diffusion", `{"step":100,"test":{"action_accuracy":0.1}}`, `{"step":200,"test":{"action_accuracy":0.2}}`)
	s, stdout, _ := testDatasetStreams()
	opts := &plotOptions{RunDirs: []string{policy, diffusion}, Metric: "test.action_accuracy", X: "samples", LogX: true, Output: filepath.Join(root, "test.png")}
	if err := runPlot(context.Background(), opts, s); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"policy: test.action_accuracy 0.17 at step 200, 2000 samples (2 points)",
		// 0.15 + 0.02t = 0.1 + 0.1t at t = 5/8 of the way in log samples: 1000·2^(5/8)
		"policy and diffusion cross at samples 1542 (test.action_accuracy 0.1625)",
	} {
		if !strings.Contains(stdout.String(), want) {
			t.Fatalf("output lacks %q:\n%s", want, stdout)
		}
	}
	opts.Force = true
	for x, want := range map[string]string{"time": "--x: unknown axis", "samples": `unknown metric "test.legal"`} {
		opts.X, opts.Metric = x, "test.legal"
		if x == "samples" {
			opts.RunDirs = []string{writeRun(t, filepath.Join(root, "bare"), `{"kind":"step","epoch":1,"step":10,"loss":3.1,"lr":0.001}`)}
		}
		var usage *usageError
		if err := runPlot(context.Background(), opts, s); !errors.As(err, &usage) || !strings.Contains(err.Error(), want) {
			t.Errorf("--x %s --metric test.legal: %v, want a usage error saying %q", x, err, want)
		}
	}
}
