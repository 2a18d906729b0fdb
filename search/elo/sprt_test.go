package elo_test

import (
	"math"
	"strings"
	"testing"

	"github.com/dchess/dchess/search/elo"
)

func TestSPRTReferenceVectors(t *testing.T) {
	test := elo.SPRT{Elo0: 0, Elo1: 10, Alpha: 0.01, Beta: 0.01}
	for _, c := range []struct {
		w, l, d int
		llr     float64
		result  elo.Result
	}{
		{1477, 1351, 2942, 2.52, elo.Continue},
		{555, 555, 298, -0.74, elo.Continue},
		{3, 149, 1, -4.69, elo.AcceptH0},
	} {
		st := test.Status(c.w, c.l, c.d)
		within(t, "LLR", st.LLR, c.llr, 0.01)
		if st.Result != c.result {
			t.Errorf("W%d L%d D%d: %v, want %v", c.w, c.l, c.d, st.Result, c.result)
		}
	}
	lower, upper := test.Bounds()
	within(t, "lower bound", lower, math.Log(0.01/0.99), 1e-12)
	within(t, "upper bound", upper, math.Log(0.99/0.01), 1e-12)
	within(t, "lower bound (printed)", lower, -4.60, 0.01)
}

func TestSPRTAcceptsH1OnAStrongLead(t *testing.T) {
	test := elo.SPRT{Elo0: 0, Elo1: 10, Alpha: 0.05, Beta: 0.05}
	if st := test.Status(700, 500, 800); st.Result != elo.AcceptH1 || st.LLR < st.Upper {
		t.Errorf("+35 Elo over 2000 games: %+v, want H1", st)
	}
}

func TestSPRTProperties(t *testing.T) {
	symmetric := elo.SPRT{Elo0: -5, Elo1: 5, Alpha: 0.05, Beta: 0.05}
	for _, c := range [][3]int{{10, 3, 7}, {1477, 1351, 2942}, {0, 9, 0}, {40, 40, 40}} {
		w, l, d := c[0], c[1], c[2]
		// With hypotheses mirrored around 0, swapping sides negates the LLR.
		if a, b := symmetric.LLR(w, l, d), symmetric.LLR(l, w, d); math.Abs(a+b) > 1e-9 {
			t.Errorf("W%d L%d D%d: LLR %v, mirrored %v", w, l, d, a, b)
		}
	}
	if got := symmetric.LLR(40, 40, 40); math.Abs(got) > 1e-9 {
		t.Errorf("even match between mirrored hypotheses: LLR %v, want 0", got)
	}
	test := elo.SPRT{Elo0: 0, Elo1: 10, Alpha: 0.05, Beta: 0.05}
	if got := test.LLR(0, 0, 0); got != 0 {
		t.Errorf("no games: LLR %v, want 0", got)
	}
	// Another win is evidence for the stronger hypothesis, another loss against.
	for _, c := range [][3]int{{0, 0, 1}, {100, 120, 80}, {1477, 1351, 2942}} {
		w, l, d := c[0], c[1], c[2]
		base := test.LLR(w, l, d)
		if up := test.LLR(w+1, l, d); up <= base {
			t.Errorf("W%d L%d D%d: one more win moved LLR %v → %v", w, l, d, base, up)
		}
		if down := test.LLR(w, l+1, d); down >= base {
			t.Errorf("W%d L%d D%d: one more loss moved LLR %v → %v", w, l, d, base, down)
		}
	}
	// Tens of thousands of draws and nothing else make the BayesElo scale
	// tiny; the LLR must stay finite and favour H0 (no difference).
	for _, d := range []int{30000, 1000000, 1 << 30} {
		if llr := test.LLR(0, 0, d); math.IsNaN(llr) || math.IsInf(llr, 0) || llr >= 0 {
			t.Errorf("D%d only: LLR %v, want finite and negative", d, llr)
		}
	}
	extreme := elo.SPRT{Elo0: -1000, Elo1: 1000, Alpha: 0.05, Beta: 0.05}
	for _, c := range [][3]int{{0, 0, 1 << 30}, {1 << 30, 0, 0}, {0, 1 << 30, 1}} {
		if llr := extreme.LLR(c[0], c[1], c[2]); math.IsNaN(llr) || math.IsInf(llr, 0) {
			t.Errorf("±1000 Elo, W%d L%d D%d: LLR %v", c[0], c[1], c[2], llr)
		}
	}
	for w := 0; w < 30; w++ {
		for l := 0; l < 30; l++ {
			if llr := test.LLR(w, l, 30-w); math.IsNaN(llr) || math.IsInf(llr, 0) {
				t.Fatalf("W%d L%d D%d: LLR %v", w, l, 30-w, llr)
			}
		}
	}
}

func TestParseSPRT(t *testing.T) {
	got, err := elo.ParseSPRT("elo0=0,elo1=10,alpha=0.05,beta=0.05")
	if err != nil || got != (elo.SPRT{Elo0: 0, Elo1: 10, Alpha: 0.05, Beta: 0.05}) {
		t.Fatalf("ParseSPRT = %+v, %v", got, err)
	}
	got, err = elo.ParseSPRT(" beta=0.1 elo1=5 elo0=-2.5")
	if err != nil || got != (elo.SPRT{Elo0: -2.5, Elo1: 5, Alpha: 0.05, Beta: 0.1}) {
		t.Fatalf("spaces, any order, default alpha: %+v, %v", got, err)
	}
	back, err := elo.ParseSPRT(got.String())
	if err != nil || back != got {
		t.Fatalf("round trip of %q: %+v, %v", got.String(), back, err)
	}
	for spec, wantInError := range map[string]string{
		"":                                "empty",
		"elo0=0,elo1":                     `"elo1" is not key=value`,
		"elo0=0,elo1=10,gamma=1":          `unknown setting "gamma"`,
		"elo0=0,elo0=1,elo1=10":           "elo0 given twice",
		"elo0=zero,elo1=10":               `elo0="zero" is not a number`,
		"elo1=10":                         "elo0 is required",
		"elo0=10,elo1=0":                  "elo0 (10) must be below elo1 (0)",
		"elo0=0,elo1=10,alpha=0":          "alpha (0) must be between 0 and 1",
		"elo0=0,elo1=10,beta=1.5":         "beta (1.5) must be between 0 and 1",
		"elo0=0,elo1=10,alpha=.6,beta=.5": "alpha + beta (1.1) must be below 1",
		"elo0=0,elo1=inf":                 "elo1 must be a finite number",
		"elo0=NaN,elo1=10":                "elo0 must be a finite number",
	} {
		_, err := elo.ParseSPRT(spec)
		if err == nil || !strings.Contains(err.Error(), wantInError) || strings.Contains(err.Error(), "\n") {
			t.Errorf("ParseSPRT(%q) error = %v, want one line containing %q", spec, err, wantInError)
		}
	}
}

func FuzzParseSPRT(f *testing.F) {
	for _, seed := range []string{"elo0=0,elo1=10,alpha=0.05,beta=0.05", "elo0=-3 elo1=1", "alpha=", "elo0=1e308,elo1=inf"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		test, err := elo.ParseSPRT(spec)
		if err != nil {
			return
		}
		if err := test.Validate(); err != nil {
			t.Fatalf("ParseSPRT(%q) returned an invalid test: %v", spec, err)
		}
		lower, upper := test.Bounds()
		if !(lower < 0 && upper > 0) {
			t.Fatalf("ParseSPRT(%q): bounds %v, %v", spec, lower, upper)
		}
		if back, err := elo.ParseSPRT(test.String()); err != nil || back != test {
			t.Fatalf("round trip of %q: %+v, %v", test.String(), back, err)
		}
	})
}
