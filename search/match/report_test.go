package match

import (
	"strings"
	"testing"
)

func TestReportTextOfAWhitewashPrintsBoundsNotInfinity(t *testing.T) {
	r := newReport("A", "B", nil)
	for n := 1; n <= 20; n++ {
		r.add(GameResult{Number: n, AIsWhite: n%2 == 1, Result: map[bool]string{true: "1-0", false: "0-1"}[n%2 == 1], Termination: "checkmate"})
	}
	text := r.Text()
	for _, want := range []string{
		"Score of A vs B: 20 - 0 - 0 [1.000] 20",
		// 0.05^(1/20) = 0.861 of a point (search/elo's exact bound vectors).
		"Elo difference: > +316 (one-sided 95 %), LOS:",
		"Ptnml(0-2): [0, 0, 0, 0, 10], Elo (pairs): > +182",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("report lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "inf") {
		t.Errorf("report prints an infinity:\n%s", text)
	}
	for _, line := range r.InterimLines() {
		if strings.Contains(line, "inf") {
			t.Errorf("interim line %q prints an infinity", line)
		}
	}
	if float64(r.EloLowerBound) < 316 || float64(r.EloLowerBound) > 317 {
		t.Errorf("EloLowerBound = %v, want about 316.6", r.EloLowerBound)
	}
}
