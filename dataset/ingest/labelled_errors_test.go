package ingest

import (
	"strings"
	"testing"
)

// The reported bugs: a CSV row with extra columns was accepted, and a bad
// Lichess line was explained in Go's types ("Go struct field .evals.pvs.cp
// of type int32").
func TestLabelledLineErrorsSpeakTheUsersTerms(t *testing.T) {
	const fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
	_, sum := labelledRun(t, FormatCSV, ViewDefault, fen+",+12\n"+fen+",+12,extra\n")
	if sum.LinesKept != 1 || sum.LinesBad != 1 || sum.FirstErrors[0] != "line 2: 3 columns, want 2: FEN,Evaluation" {
		t.Errorf("csv: summary %+v", sum)
	}

	lines := []string{
		`{"fen":"` + fen + `","evals":[{"pvs":[{"cp":"12","line":"e2e4"}],"depth":5}]}`,
		`{"fen":"` + fen + `","evals":[{"pvs":[{"cp":1.5,"line":"e2e4"}],"depth":5}]}`,
		`{"fen":"` + fen + `","evals":[{"pvs":[{"cp":99999999999,"line":"e2e4"}],"depth":5}]}`,
		`{"fen":"` + fen + `","evals":{"depth":5}}`,
		`{"fen":`,
	}
	want := []string{
		"line 1: bad JSON: evals.pvs.cp is text, want a whole number",
		"line 2: bad JSON: evals.pvs.cp is 1.5 (not a whole number), want a whole number",
		"line 3: bad JSON: evals.pvs.cp is 99999999999 (out of range), want a whole number",
		"line 4: bad JSON: evals is an object, want a list",
		"line 5: bad JSON: unexpected end of JSON input at byte 7",
	}
	opts := DefaultOptions()
	opts.Format = FormatLichessEvals
	sum, _ = ingestNothing(t, strings.Join(lines, "\n"), opts)
	if len(sum.FirstErrors) != len(want) {
		t.Fatalf("errors %q", sum.FirstErrors)
	}
	for i := range want {
		if sum.FirstErrors[i] != want[i] {
			t.Errorf("got  %q\nwant %q", sum.FirstErrors[i], want[i])
		}
		if strings.Contains(sum.FirstErrors[i], "Go ") || strings.Contains(sum.FirstErrors[i], "int32") {
			t.Errorf("%q speaks Go", sum.FirstErrors[i])
		}
	}
}
