package elo_test

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/dchess/dchess/search/elo"
)

// within checks got against a reference value printed to two decimals.
func within(t *testing.T, name string, got, want, tolerance float64) {
	t.Helper()
	if math.IsNaN(got) || math.Abs(got-want) > tolerance {
		t.Errorf("%s = %.4f, want %.2f ± %g", name, got, want, tolerance)
	}
}

func TestFromWDLReferenceVector(t *testing.T) {
	e := elo.FromWDL(136, 96, 111)
	within(t, "Elo", e.Elo, 40.70, 0.01)
	within(t, "ErrorMargin", e.ErrorMargin, 30.43, 0.01)
	within(t, "LOS %", 100*e.LOS, 99.60, 0.01)
	within(t, "DrawRatio %", 100*e.DrawRatio, 32.36, 0.01)
	within(t, "Score", e.Score, 0.5583, 0.0001)
	if e.Games != 343 {
		t.Errorf("Games = %d, want 343", e.Games)
	}
}

func TestFromPentanomialReferenceVector(t *testing.T) {
	e := elo.FromPentanomial([5]int{34, 54, 63, 64, 75})
	within(t, "Elo", e.Elo, 55.58, 0.01)
	within(t, "ErrorMargin", e.ErrorMargin, 27.65, 0.01)
	if e.Games != 290 {
		t.Errorf("Games = %d pairs, want 290", e.Games)
	}
	within(t, "DrawRatio", e.DrawRatio, 63.0/290, 1e-12)
}

func TestEloFromScore(t *testing.T) {
	for _, c := range []struct{ score, want float64 }{
		{0.5, 0}, {0.75, 190.85}, {0.25, -190.85}, {10.0 / 11, 400}, {0.64, 99.95},
	} {
		within(t, "EloFromScore", elo.EloFromScore(c.score), c.want, 0.01)
	}
	if got := elo.EloFromScore(1); !math.IsInf(got, 1) {
		t.Errorf("EloFromScore(1) = %v, want +Inf", got)
	}
	if got := elo.EloFromScore(0); !math.IsInf(got, -1) {
		t.Errorf("EloFromScore(0) = %v, want -Inf", got)
	}
	if got := elo.EloFromScore(1.5); !math.IsInf(got, 1) {
		t.Errorf("EloFromScore(1.5) = %v, want +Inf", got)
	}
}

func TestScoreFromEloInvertsEloFromScore(t *testing.T) {
	previous := math.Inf(-1)
	for s := 0.001; s < 1; s += 0.001 {
		d := elo.EloFromScore(s)
		if d <= previous {
			t.Fatalf("EloFromScore not increasing at %v", s)
		}
		previous = d
		if back := elo.ScoreFromElo(d); math.Abs(back-s) > 1e-12 {
			t.Fatalf("ScoreFromElo(EloFromScore(%v)) = %v", s, back)
		}
		if sym := elo.EloFromScore(1 - s); math.Abs(sym+d) > 1e-9 {
			t.Fatalf("EloFromScore(1-%v) = %v, want %v", s, sym, -d)
		}
	}
}

func TestFromWDLEdgeCases(t *testing.T) {
	inf := math.Inf(1)
	for _, c := range []struct {
		name           string
		w, l, d        int
		elo, margin    float64
		los, drawRatio float64
	}{
		{"no games", 0, 0, 0, 0, inf, 0.5, 0},
		// The variance is zero, so LOS falls back to 0.5(1+erf(W/√(2W))).
		{"one win", 1, 0, 0, inf, inf, 0.5 * (1 + math.Erf(1/math.Sqrt2)), 0},
		{"all wins", 20, 0, 0, inf, inf, 0.5 * (1 + math.Erf(20/math.Sqrt(40))), 0},
		{"all losses", 0, 20, 0, -inf, inf, 0.5 * (1 + math.Erf(-20/math.Sqrt(40))), 0},
		{"all draws", 0, 0, 7, 0, 0, 0.5, 1},
		// s + 1.96·se passes 1: the interval is unbounded above.
		{"interval reaches 1", 5, 0, 1, elo.EloFromScore(5.5 / 6), inf, -1, 1.0 / 6},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := elo.FromWDL(c.w, c.l, c.d)
			same := func(name string, got, want float64) {
				if got != want && math.Abs(got-want) > 1e-12 {
					t.Errorf("%s = %v, want %v", name, got, want)
				}
			}
			same("Elo", e.Elo, c.elo)
			same("ErrorMargin", e.ErrorMargin, c.margin)
			if c.los >= 0 {
				same("LOS", e.LOS, c.los)
			}
			same("DrawRatio", e.DrawRatio, c.drawRatio)
		})
	}
}

// noNaN reports whether every field a report prints is free of NaN.
func noNaN(e elo.Estimate) bool {
	for _, v := range []float64{e.Score, e.ScoreStdErr, e.Elo, e.ErrorMargin, e.LOS, e.DrawRatio, e.LowerBound, e.UpperBound} {
		if math.IsNaN(v) {
			return false
		}
	}
	return true
}

func TestFromWDLProperties(t *testing.T) {
	for w := 0; w <= 8; w++ {
		for l := 0; l <= 8; l++ {
			for d := 0; d <= 8; d++ {
				e := elo.FromWDL(w, l, d)
				if !noNaN(e) {
					t.Fatalf("W%d L%d D%d: NaN in %+v", w, l, d, e)
				}
				if e.LOS < 0 || e.LOS > 1 || e.ErrorMargin < 0 {
					t.Fatalf("W%d L%d D%d: out of range %+v", w, l, d, e)
				}
				if _, err := json.Marshal(e); err != nil {
					t.Fatalf("W%d L%d D%d: %v", w, l, d, err)
				}
				// Swapping sides negates the Elo and mirrors LOS.
				m := elo.FromWDL(l, w, d)
				if m.Elo != -e.Elo && math.Abs(m.Elo+e.Elo) > 1e-9 {
					t.Fatalf("W%d L%d D%d: mirrored Elo %v, want %v", w, l, d, m.Elo, -e.Elo)
				}
				if m.ErrorMargin != e.ErrorMargin && math.Abs(m.ErrorMargin-e.ErrorMargin) > 1e-9 {
					t.Fatalf("W%d L%d D%d: mirrored margin %v, want %v", w, l, d, m.ErrorMargin, e.ErrorMargin)
				}
				if math.Abs(m.LOS+e.LOS-1) > 1e-9 {
					t.Fatalf("W%d L%d D%d: LOS %v and mirrored %v do not sum to 1", w, l, d, e.LOS, m.LOS)
				}
			}
		}
	}
}

func TestMoreGamesNarrowTheMargin(t *testing.T) {
	base := elo.FromWDL(136, 96, 111)
	for _, k := range []int{4, 16, 100} {
		e := elo.FromWDL(136*k, 96*k, 111*k)
		within(t, "Elo at same score", e.Elo, base.Elo, 1e-9)
		// The margin is nearly linear in the standard error, which falls as 1/√N.
		ratio := e.ErrorMargin / base.ErrorMargin * math.Sqrt(float64(k))
		if math.Abs(ratio-1) > 0.01 {
			t.Errorf("×%d games: margin %.3f, want about %.3f", k, e.ErrorMargin, base.ErrorMargin/math.Sqrt(float64(k)))
		}
		if e.LOS <= base.LOS {
			t.Errorf("×%d games: LOS %v did not grow from %v", k, e.LOS, base.LOS)
		}
	}
}

func TestDrawsNarrowTheMargin(t *testing.T) {
	// Same score (0.6) over 100 games; the one with draws varies less.
	decisive := elo.FromWDL(60, 40, 0)
	drawish := elo.FromWDL(30, 10, 60)
	within(t, "Elo", drawish.Elo, decisive.Elo, 1e-9)
	if drawish.ErrorMargin >= decisive.ErrorMargin {
		t.Errorf("margin with draws %v not below decisive %v", drawish.ErrorMargin, decisive.ErrorMargin)
	}
}

func TestPentanomialMatchesGamesScore(t *testing.T) {
	// Built from the same games, the pentanomial and trinomial scores agree.
	rng := rand.New(rand.NewPCG(7, 11))
	outcome := func() elo.Outcome {
		switch r := rng.Float64(); {
		case r < 0.4:
			return elo.Win
		case r < 0.7:
			return elo.Draw
		}
		return elo.Loss
	}
	var counts [5]int
	var w, l, d int
	for pair := 0; pair < 500; pair++ {
		first, second := outcome(), outcome()
		counts[elo.PairBucket(first, second)]++
		for _, o := range []elo.Outcome{first, second} {
			switch o {
			case elo.Win:
				w++
			case elo.Loss:
				l++
			default:
				d++
			}
		}
	}
	pent, tri := elo.FromPentanomial(counts), elo.FromWDL(w, l, d)
	within(t, "pentanomial score", pent.Score, tri.Score, 1e-12)
	within(t, "pentanomial Elo", pent.Elo, tri.Elo, 1e-9)
	// Independent games: a pair's variance is half a game's, over half as
	// many samples, so the margins agree up to sampling noise.
	if r := pent.ErrorMargin / tri.ErrorMargin; r < 0.85 || r > 1.15 {
		t.Errorf("independent games: pentanomial margin %v vs trinomial %v", pent.ErrorMargin, tri.ErrorMargin)
	}
}

func TestPentanomialEdgeCases(t *testing.T) {
	if e := elo.FromPentanomial([5]int{}); e.Elo != 0 || !math.IsInf(e.ErrorMargin, 1) || e.LOS != 0.5 || e.Games != 0 {
		t.Errorf("no pairs: %+v", e)
	}
	if e := elo.FromPentanomial([5]int{0, 0, 9, 0, 0}); e.Elo != 0 || e.ErrorMargin != 0 || e.LOS != 0.5 || e.DrawRatio != 1 {
		t.Errorf("all balanced pairs: %+v", e)
	}
	e := elo.FromPentanomial([5]int{0, 0, 0, 0, 5})
	if !math.IsInf(e.Elo, 1) || !math.IsInf(e.ErrorMargin, 1) || !noNaN(e) {
		t.Errorf("all WW pairs: %+v", e)
	}
	// Every pair WD: score 3/4, zero variance; LOS falls back to pairs won.
	e = elo.FromPentanomial([5]int{0, 0, 0, 4, 0})
	within(t, "WD Elo", e.Elo, elo.EloFromScore(0.75), 1e-9)
	if e.ErrorMargin != 0 || math.Abs(e.LOS-0.5*(1+math.Erf(4/math.Sqrt(8)))) > 1e-12 {
		t.Errorf("all WD pairs: %+v", e)
	}
}

func TestPairBucket(t *testing.T) {
	want := map[[2]elo.Outcome]int{
		{elo.Loss, elo.Loss}: 0, {elo.Loss, elo.Draw}: 1, {elo.Draw, elo.Loss}: 1,
		{elo.Win, elo.Loss}: 2, {elo.Loss, elo.Win}: 2, {elo.Draw, elo.Draw}: 2,
		{elo.Win, elo.Draw}: 3, {elo.Draw, elo.Win}: 3, {elo.Win, elo.Win}: 4,
	}
	for pair, bucket := range want {
		if got := elo.PairBucket(pair[0], pair[1]); got != bucket {
			t.Errorf("PairBucket(%v, %v) = %d, want %d", pair[0], pair[1], got, bucket)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("PairBucket accepted an invalid outcome")
		}
	}()
	elo.PairBucket(elo.Outcome(3), elo.Win)
}

func TestNegativeCountsPanic(t *testing.T) {
	for name, f := range map[string]func(){
		"FromWDL":         func() { elo.FromWDL(1, -1, 0) },
		"FromPentanomial": func() { elo.FromPentanomial([5]int{0, 0, -2, 0, 0}) },
		"LLR":             func() { elo.SPRT{Elo0: 0, Elo1: 5, Alpha: 0.05, Beta: 0.05}.LLR(0, 0, -1) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s accepted a negative count", name)
				}
			}()
			f()
		}()
	}
}

func TestEstimateJSON(t *testing.T) {
	data, err := json.Marshal(elo.FromWDL(3, 0, 0))
	if err != nil {
		t.Fatal(err)
	}
	var fields map[string]any
	if err := json.Unmarshal(data, &fields); err != nil {
		t.Fatal(err)
	}
	// An unbounded value is null, never a string: one type per field.
	for _, key := range []string{"elo", "error_margin", "elo_upper_bound"} {
		if v, ok := fields[key]; !ok || v != nil {
			t.Errorf("all wins: %s is %v, want null: %s", key, v, data)
		}
	}
	if fields["score"] != 1.0 || fields["games"] != 3.0 {
		t.Errorf("all wins JSON = %s", data)
	}
	if low, ok := fields["elo_lower_bound"].(float64); !ok || low >= 0 {
		t.Errorf("all wins JSON bounds = %s", data)
	}
	for _, e := range []elo.Estimate{elo.FromWDL(136, 96, 111), elo.FromWDL(0, 4, 0), elo.FromWDL(0, 0, 0),
		elo.FromWDL(3, 0, 0), elo.FromWDL(3, 0, 1), elo.FromPentanomial([5]int{0, 0, 1, 0, 3})} {
		data, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		var back elo.Estimate
		if err := json.Unmarshal(data, &back); err != nil {
			t.Fatal(err)
		}
		if back != e {
			t.Errorf("round trip of %s: got %+v, want %+v", data, back, e)
		}
	}
	// What older versions wrote reads back too.
	var old elo.Estimate
	if err := json.Unmarshal([]byte(`{"games":3,"score":1,"score_stderr":0,"elo":"+inf","error_margin":"+inf","los":0.96,`+
		`"draw_ratio":0,"elo_lower_bound":-1.5,"elo_upper_bound":"+inf"}`), &old); err != nil ||
		!math.IsInf(old.Elo, 1) || !math.IsInf(old.ErrorMargin, 1) || !math.IsInf(old.UpperBound, 1) || old.LowerBound != -1.5 {
		t.Errorf("old JSON reads as %+v, %v", old, err)
	}
	if err := json.Unmarshal([]byte(`{"elo":"lots"}`), new(elo.Estimate)); err == nil {
		t.Error("accepted a non-numeric elo")
	}
	if _, err := json.Marshal(elo.Estimate{Elo: math.NaN()}); err == nil {
		t.Error("marshalled NaN")
	}
}

func FuzzEstimatesStayFinite(f *testing.F) {
	f.Add(uint32(136), uint32(96), uint32(111), uint32(0))
	f.Add(uint32(0), uint32(0), uint32(0), uint32(0))
	f.Add(uint32(1<<31), uint32(0), uint32(5), uint32(1<<30))
	f.Fuzz(func(t *testing.T, w, l, d, extra uint32) {
		for _, e := range []elo.Estimate{
			elo.FromWDL(int(w), int(l), int(d)),
			elo.FromPentanomial([5]int{int(w), int(l), int(d), int(extra), int(w ^ extra)}),
		} {
			if !noNaN(e) || e.LOS < 0 || e.LOS > 1 || e.ErrorMargin < 0 || e.LowerBound > e.Elo || e.UpperBound < e.Elo {
				t.Fatalf("W%d L%d D%d (extra %d): %+v", w, l, d, extra, e)
			}
			if _, err := json.Marshal(e); err != nil {
				t.Fatal(err)
			}
		}
		test := elo.SPRT{Elo0: -1000, Elo1: 1000, Alpha: 0.05, Beta: 0.05}
		if llr := test.LLR(int(w), int(l), int(d)); math.IsNaN(llr) || math.IsInf(llr, 0) {
			t.Fatalf("W%d L%d D%d: LLR %v", w, l, d, llr)
		}
	})
}

// TestExactBoundVectors checks the one-sided 95 % bounds against values
// computed independently with search/elo/testdata/clopper_pearson.py
// (bisection on the binomial tail in 50-digit mpmath arithmetic, and on
// mpmath's incomplete beta for half points).
func TestExactBoundVectors(t *testing.T) {
	inf := math.Inf(1)
	for _, c := range []struct {
		name         string
		e            elo.Estimate
		lower, upper float64
	}{
		{"20 wins", elo.FromWDL(20, 0, 0), 316.638132, inf},
		{"1 win", elo.FromWDL(1, 0, 0), -511.5014404, inf},
		{"10 wins", elo.FromWDL(10, 0, 0), 182.7290963, inf},
		{"100 wins", elo.FromWDL(100, 0, 0), 606.7902449, inf},
		{"20 losses", elo.FromWDL(0, 20, 0), -inf, -316.638132},
		{"19 wins 1 loss", elo.FromWDL(19, 1, 0), 223.8360378, 1036.164949},
		{"5 wins 1 draw", elo.FromWDL(5, 0, 1), 3.795018641, 1401.023721},
		{"reference match", elo.FromWDL(136, 96, 111), 8.685931971, 72.87668128},
		{"1 win 1 loss", elo.FromWDL(1, 1, 0), -634.1553606, 634.1553606},
		// Ten WW pairs are ten trials scoring 1: the same bound as 10 wins.
		{"10 WW pairs", elo.FromPentanomial([5]int{0, 0, 0, 0, 10}), 182.7290963, inf},
		// Pairs score their half points halved: two LL and one WD are 0.75 of 3.
		{"LL LL WD", elo.FromPentanomial([5]int{2, 0, 0, 1, 0}), -909.5872612, 261.2164508},
		{"ten pairs", elo.FromPentanomial([5]int{0, 2, 1, 3, 4}), -57.99558479, 440.6536452},
	} {
		same := func(what string, got, want float64) {
			if math.IsInf(want, 0) && got == want {
				return
			}
			if math.IsNaN(got) || math.Abs(got-want) > 1e-5 {
				t.Errorf("%s: %s = %.7f, want %.7f", c.name, what, got, want)
			}
		}
		same("LowerBound", c.e.LowerBound, c.lower)
		same("UpperBound", c.e.UpperBound, c.upper)
	}
}
