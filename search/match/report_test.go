package match

import (
	"encoding/json"
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
	for _, line := range r.InterimLines(20) {
		if strings.Contains(line, "inf") {
			t.Errorf("interim line %q prints an infinity", line)
		}
	}
	if float64(r.EloLowerBound) < 316 || float64(r.EloLowerBound) > 317 {
		t.Errorf("EloLowerBound = %v, want about 316.6", r.EloLowerBound)
	}
}

// The JSON of a whitewash: the unbounded values are null, never a string,
// and the one-sided bounds beside them are numbers.
func TestReportJSONOfAWhitewashHasNullsAndBounds(t *testing.T) {
	r := newReport("A", "B", nil)
	for n := 1; n <= 20; n++ {
		r.add(GameResult{Number: n, AIsWhite: n%2 == 1, Result: map[bool]string{true: "1-0", false: "0-1"}[n%2 == 1], Termination: "checkmate"})
	}
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var fields map[string]any
	if err := json.Unmarshal(data, &fields); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"elo", "elo_error", "elo_upper_bound", "pentanomial_elo", "pentanomial_elo_error", "pentanomial_elo_upper_bound"} {
		if v, ok := fields[key]; !ok || v != nil {
			t.Errorf("%s = %v, want null", key, v)
		}
	}
	for key, want := range map[string]float64{"elo_lower_bound": 316, "pentanomial_elo_lower_bound": 182} {
		if v, ok := fields[key].(float64); !ok || v < want || v > want+1 {
			t.Errorf("%s = %v, want a number just above %v", key, fields[key], want)
		}
	}
}
