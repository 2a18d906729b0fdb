package evaluate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dchess/dchess/models/family"
)

// TestReadEPDSuiteReportsTheFirstTen: every bad line is counted, the first
// ten are kept with their line numbers, and the good lines are read.
func TestReadEPDSuiteReportsTheFirstTen(t *testing.T) {
	var text strings.Builder
	for range 12 {
		text.WriteString("k7/8/8/8/8/8/r7/7K w - - bm Kh2;\n")
	}
	text.WriteString("k7/8/8/8/8/8/r7/7K w - - bm Kg1;\n")
	path := filepath.Join(t.TempDir(), "suite.epd")
	if err := os.WriteFile(path, []byte(text.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	list, bad, err := ReadEPDSuite(path, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || bad == nil || bad.Count != 12 || len(bad.First) != 10 ||
		bad.First[9] != "line 10: bm Kh2 is not a legal move for White in this position" {
		t.Fatalf("%d positions, bad lines %+v", len(list), bad)
	}
	if _, _, err := ReadEPDSuite(path, 0, true); err == nil || !strings.HasPrefix(err.Error(), "--epd: line 1: bm Kh2") {
		t.Errorf("strict: %v", err)
	}
	if want := strings.Join(bad.First, "\n") + "\n... and 2 more errors\n"; bad.Text() != want {
		t.Errorf("printed as %q, want %q", bad.Text(), want)
	}
	// A clean suite reports no bad lines at all (the JSON leaves them out).
	os.WriteFile(path, []byte("k7/8/8/8/8/8/r7/7K w - - bm Kg1;\n"), 0o644)
	if _, bad, err := ReadEPDSuite(path, 0, false); err != nil || bad != nil || bad.Text() != "" {
		t.Errorf("clean suite: %+v, %v", bad, err)
	}
}

func TestEvaluationsComeFromTheRegistry(t *testing.T) {
	cases := []struct {
		family string
		e      family.Evaluations
		want   bool
	}{
		{"diffusion", family.EvalActions, true}, {"diffusion", family.EvalStepsSweep, true}, {"diffusion", family.EvalPairs, false},
		{"flow", family.EvalStepsSweep, true},
		{"policy", family.EvalActions, true}, {"policy", family.EvalStepsSweep, false},
		{"siamese", family.EvalPairs, true}, {"siamese", family.EvalActions, false},
		{"cnn", family.EvalStatic, true}, {"heuristic", family.EvalActions, false}, {"heuristic", family.EvalPairs, false},
	}
	for _, c := range cases {
		if got := family.Supports(c.family, c.e); got != c.want {
			t.Errorf("Supports(%s, %d) = %v", c.family, c.e, got)
		}
	}
}

func TestCheckSteps(t *testing.T) {
	for _, c := range []struct {
		steps []int
		want  string
	}{
		{nil, ""},
		{[]int{1, 2, 5, family.MaxDecodingSteps}, ""},
		{[]int{1, 0}, "--steps: 0 must be in 1.."},
		{[]int{family.MaxDecodingSteps + 1}, "must be in 1.."},
		{[]int{2, 5, 2}, "--steps lists 2 twice"},
	} {
		err := CheckSteps(c.steps)
		if (c.want == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), c.want) {
			t.Errorf("CheckSteps(%v) = %v, want %q", c.steps, err, c.want)
		}
	}
}
