package elo_test

import (
	"math"
	"strings"
	"testing"

	"github.com/dchess/dchess/search/elo"
)

func TestFormatElo(t *testing.T) {
	e := elo.FromWDL(136, 96, 111)
	for _, c := range []struct {
		elo, margin float64
		want        string
	}{
		{e.Elo, e.ErrorMargin, "+40.70 +/- 30.43"},
		{-e.Elo, e.ErrorMargin, "-40.70 +/- 30.43"},
		{0, 0, "+0.00 +/- 0.00"},
		{-0.001, 12, "+0.00 +/- 12.00"},
		{math.Inf(1), math.Inf(1), "+inf +/- inf"},
		{math.Inf(-1), math.Inf(1), "-inf +/- inf"},
	} {
		if got := elo.FormatElo(c.elo, c.margin); got != c.want {
			t.Errorf("FormatElo(%v, %v) = %q, want %q", c.elo, c.margin, got, c.want)
		}
	}
}

func TestCutechessLines(t *testing.T) {
	if got, want := elo.ScoreLine("A", "B", 136, 96, 111), "Score of A vs B: 136 - 96 - 111 [0.558] 343"; got != want {
		t.Errorf("ScoreLine = %q, want %q", got, want)
	}
	if got, want := elo.ScoreLine("A", "B", 0, 0, 0), "Score of A vs B: 0 - 0 - 0 [0.500] 0"; got != want {
		t.Errorf("ScoreLine = %q, want %q", got, want)
	}
	for _, c := range []struct {
		e    elo.Estimate
		want string
	}{
		{elo.FromWDL(136, 96, 111), "Elo difference: 40.70 +/- 30.43, LOS: 99.60 %, DrawRatio: 32.36 %"},
		{elo.FromWDL(96, 136, 111), "Elo difference: -40.70 +/- 30.43, LOS: 0.40 %, DrawRatio: 32.36 %"},
		// 4 wins: the one-sided bound 0.05^(1/4) = 0.473 of a point, -18.8 Elo.
		{elo.FromWDL(4, 0, 0), "Elo difference: > -19 (one-sided 95 %), LOS: 97.72 %, DrawRatio: 0.00 %"},
		{elo.FromWDL(0, 20, 0), "Elo difference: < -316 (one-sided 95 %), LOS: 0.00 %, DrawRatio: 0.00 %"},
		{elo.FromWDL(0, 0, 0), "Elo difference: 0.00 +/- inf, LOS: 50.00 %, DrawRatio: 0.00 %"},
	} {
		if got := elo.EloLine(c.e); got != c.want {
			t.Errorf("EloLine = %q, want %q", got, c.want)
		}
	}
	if got, want := elo.PentanomialLine([5]int{34, 54, 63, 64, 75}), "Ptnml(0-2): [34, 54, 63, 64, 75]"; got != want {
		t.Errorf("PentanomialLine = %q, want %q", got, want)
	}
}

func TestSPRTLine(t *testing.T) {
	test := elo.SPRT{Elo0: 0, Elo1: 10, Alpha: 0.01, Beta: 0.01}
	for _, c := range []struct {
		w, l, d int
		want    string
	}{
		{1477, 1351, 2942, "SPRT: llr 2.52 (54.9%), lbound -4.60, ubound 4.60"},
		{555, 555, 298, "SPRT: llr -0.74 (-16.1%), lbound -4.60, ubound 4.60"},
		{3, 149, 1, "SPRT: llr -4.69 (-102.1%), lbound -4.60, ubound 4.60 - H0 was accepted"},
	} {
		if got := elo.SPRTLine(test.Status(c.w, c.l, c.d)); got != c.want {
			t.Errorf("SPRTLine(W%d L%d D%d) = %q, want %q", c.w, c.l, c.d, got, c.want)
		}
	}
	st := elo.SPRT{Elo0: 0, Elo1: 10, Alpha: 0.05, Beta: 0.05}.Status(700, 500, 800)
	if got, want := elo.SPRTLine(st), "H1 was accepted"; len(got) < len(want) || got[len(got)-len(want):] != want {
		t.Errorf("SPRTLine = %q, want it to end %q", got, want)
	}
}

func TestFormatDiff(t *testing.T) {
	for _, c := range []struct {
		e    elo.Estimate
		want string
	}{
		{elo.FromWDL(136, 96, 111), "+40.7 ± 30.4"},
		{elo.FromWDL(96, 136, 111), "-40.7 ± 30.4"},
		{elo.FromWDL(0, 0, 7), "+0.0 ± 0.0"},
		{elo.FromWDL(10, 10, 0), "+0.0 ± 163.3"},
		// 100 % and 0 %: exact one-sided bounds (TestExactBoundVectors),
		// rounded outwards.
		{elo.FromWDL(20, 0, 0), "> +316"},
		{elo.FromWDL(100, 0, 0), "> +606"},
		{elo.FromWDL(0, 20, 0), "< -316"},
		// The normal interval reaches a score of 1 although the score is not.
		{elo.FromWDL(19, 1, 0), "> +223"},
		{elo.FromWDL(1, 19, 0), "< -223"},
		{elo.FromPentanomial([5]int{0, 0, 0, 0, 10}), "> +182"},
		{elo.FromWDL(0, 0, 0), "no games"},
	} {
		got := elo.FormatDiff(c.e)
		if got != c.want {
			t.Errorf("FormatDiff(%+v) = %q, want %q", c.e, got, c.want)
		}
		if strings.Contains(got, "inf") || strings.Contains(got, "NaN") {
			t.Errorf("FormatDiff printed %q", got)
		}
	}
	for w := 0; w < 12; w++ {
		for l := 0; l < 12; l++ {
			for d := 0; d < 4; d++ {
				if got := elo.FormatDiff(elo.FromWDL(w, l, d)); strings.Contains(got, "inf") || strings.Contains(got, "NaN") || strings.Contains(got, "-0.0 ") {
					t.Fatalf("W%d L%d D%d: %q", w, l, d, got)
				}
			}
		}
	}
}
