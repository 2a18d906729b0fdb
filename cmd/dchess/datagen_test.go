package main

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dchess/dchess/dataset"
)

func TestDatagenThroughTheCommandLine(t *testing.T) {
	out := filepath.Join(t.TempDir(), "gen")
	s, stdout, _ := playStreams("")
	err := runCLI(s, "datagen", "--a", "heuristic", "--games", "2", "--depth", "1", "--max-moves", "30",
		"--skip-in-check", "--max-score", "500", "-o", out, "--json", "--quiet")
	if err != nil {
		t.Fatal(err)
	}
	var res map[string]any
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, stdout)
	}
	d, err := dataset.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	m := d.Manifest()
	if res["records"] != float64(m.Counts.Records) || m.Counts.Labelled != m.Counts.Records || m.Counts.Records == 0 {
		t.Errorf("summary %s, dataset counts %+v", stdout, m.Counts)
	}
	if m.Settings["skip_in_check"] != true || m.Settings["max_score"] != 500.0 {
		t.Errorf("settings %v", m.Settings)
	}
}

func TestDatagenUsage(t *testing.T) {
	for _, args := range [][]string{
		{"datagen", "--games", "2", "--depth", "1", "-o", "x"},
		{"datagen", "--a", "heuristic", "--games", "2", "--depth", "1"},
		{"datagen", "--a", "heuristic", "--games", "2", "-o", "x"},
		{"datagen", "--a", "heuristic", "--games", "2", "--depth", "1", "--max-score", "-1", "-o", "x"},
	} {
		s, _, _ := playStreams("")
		err := runCLI(s, args...)
		var usage *usageError
		if !errors.As(err, &usage) {
			t.Errorf("%s: %v, want a usage error", strings.Join(args, " "), err)
		}
	}
}
