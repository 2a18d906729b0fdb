package board

import (
	"strings"
	"testing"
)

func TestPerftReportText(t *testing.T) {
	r, err := PerftFEN("", 1, true)
	if err != nil {
		t.Fatal(err)
	}
	r.Seconds, r.NPS = 0.5, 40
	got := r.Text()
	if !strings.HasPrefix(got, "a2a3: 1\n") || !strings.HasSuffix(got, "h2h4: 1\n\nmoves: 20\nperft(1) = 20  (0.500s, 40 nodes/s)\n") || strings.Count(got, ": 1\n") != 20 {
		t.Errorf("divided:\n%s", got)
	}
	r, err = PerftFEN("", 2, false)
	if err != nil {
		t.Fatal(err)
	}
	r.Seconds, r.NPS = 0.25, 1600
	if got, want := r.Text(), "perft(2) = 400  (0.250s, 1600 nodes/s)\n"; got != want {
		t.Errorf("undivided: %q, want %q", got, want)
	}
}

func TestPerftSuiteReportText(t *testing.T) {
	r := PerftSuiteReport{Suite: "s.epd", Positions: 4, Checked: 3, Passed: 1, Skipped: 1, Nodes: 1000, Seconds: 0.5, NPS: 2000,
		Failures: []PerftFailure{{Line: 2, Error: "bad FEN"}, {Line: 3, FEN: StartFEN, Depth: 2, Got: 399, Want: 400}}}
	want := "FAIL line 2: bad FEN\n" +
		"FAIL line 3: " + StartFEN + " perft(2) = 399, want 400\n" +
		"s.epd: 4 positions, 3 checked, 1 passed, 2 failed, 1 skipped; 1000 nodes in 0.50s (2000 nodes/s)\n"
	if got := r.Text(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
