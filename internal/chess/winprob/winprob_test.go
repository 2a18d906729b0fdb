package winprob

import (
	"math"
	"testing"
)

func TestOf(t *testing.T) {
	if p := Of(0, 0); p != 0.5 {
		t.Errorf("Of(0) = %g, want 0.5", p)
	}
	if p := Of(100, 0); math.Abs(p-0.5910) > 0.0005 {
		t.Errorf("Of(100) = %g, want about 0.591", p)
	}
	if Of(-50, 3) != 1 || Of(50, -3) != 0 {
		t.Error("a mate does not decide the probability")
	}
}

func TestWDLSumsAndKeepsTheExpectedScore(t *testing.T) {
	for cp := -3000; cp <= 3000; cp += 7 {
		w, d, l := WDL(cp, 0)
		if w < 0 || d < 0 || l < 0 || w+d+l != 1000 {
			t.Fatalf("WDL(%d) = %d %d %d", cp, w, d, l)
		}
		if got, want := float64(w)+float64(d)/2, 1000*Of(cp, 0); math.Abs(got-want) > 1 {
			t.Errorf("WDL(%d) = %d %d %d: expected score %g per mille, want %g", cp, w, d, l, got, want)
		}
		if lw, ld, ll := WDL(-cp, 0); lw != l || ld != d || ll != w {
			t.Errorf("WDL(%d) = %d %d %d is not WDL(%d) = %d %d %d reversed", cp, w, d, l, -cp, lw, ld, ll)
		}
	}
	if w, d, l := WDL(0, 0); w != 250 || d != 500 || l != 250 {
		t.Errorf("WDL(0) = %d %d %d, want 250 500 250", w, d, l)
	}
	if w, d, l := WDL(-900, 2); w != 1000 || d != 0 || l != 0 {
		t.Errorf("mate in 2: %d %d %d", w, d, l)
	}
	if w, d, l := WDL(900, -2); w != 0 || d != 0 || l != 1000 {
		t.Errorf("mated in 2: %d %d %d", w, d, l)
	}
}

func TestCentipawnsInvertsOf(t *testing.T) {
	for cp := -1900; cp <= 1900; cp += 13 {
		if got := Centipawns(Of(cp, 0)); got != cp {
			t.Errorf("Centipawns(Of(%d)) = %d", cp, got)
		}
	}
	for _, c := range []struct {
		p    float64
		want int
	}{{0, -MaxCentipawns}, {1, MaxCentipawns}, {1e-12, -MaxCentipawns}, {1 - 1e-12, MaxCentipawns}, {math.NaN(), 0}, {0.5, 0}} {
		if got := Centipawns(c.p); got != c.want {
			t.Errorf("Centipawns(%g) = %d, want %d", c.p, got, c.want)
		}
	}
}
