package ops

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestExpfMatchesMathExp(t *testing.T) {
	worst := 0.0
	for x := -87.0; x <= 88; x += 0.001 {
		got, want := float64(expf(float32(x))), math.Exp(float64(float32(x)))
		worst = max(worst, math.Abs(got-want)/want)
	}
	if worst > 3e-7 {
		t.Errorf("largest relative error %g", worst)
	}
	if expf(-100) != 0 || !math.IsInf(float64(expf(100)), 1) || !math.IsNaN(float64(expf(float32(math.NaN())))) {
		t.Errorf("ends: e^-100 = %g, e^100 = %g, e^NaN = %g", expf(-100), expf(100), expf(float32(math.NaN())))
	}
}

// TestExpShiftMatchesMathExp checks the assembly and the plain-Go
// exponentials over the whole range, the underflow included, on a row
// long enough for the vector loop and its tail.
func TestExpShiftMatchesMathExp(t *testing.T) {
	forEachKernelSet(t, func(t *testing.T) {
		const n = 8*300 + 5
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(-100 + 200*float64(i)/n) // scaled by 0.5 about m: -90 .. 10
		}
		in := append([]float32(nil), v...)
		var want float64
		sum := expShift(v, 0.5, -60)
		for i, x := range in {
			arg := float64(0.5 * (x + 60)) // the argument in float32, as expShift forms it
			e := math.Exp(arg)
			if arg < -87.33654 {
				e = 0
			}
			want += e
			if math.Abs(float64(v[i])-e) > 3e-7*e {
				t.Fatalf("e^%g = %g, want %g", arg, v[i], e)
			}
		}
		if math.Abs(float64(sum)-want) > 1e-5*want {
			t.Errorf("sum %g, want %g", sum, want)
		}
	})
}

func TestSoftmaxRowSumsToOne(t *testing.T) {
	forEachKernelSet(t, func(t *testing.T) {
		in := []float64{3, -1, 0.5, 3, 40, 7, 2, -3, 1, 0, 12}
		v := toFloat32(in)
		softmaxRow(v, 0.25)
		var sum, want float64
		for _, x := range in {
			want += math.Exp(0.25 * (x - 40))
		}
		for i, x := range in {
			sum += float64(v[i])
			if p := math.Exp(0.25*(x-40)) / want; math.Abs(float64(v[i])-p) > 1e-6 {
				t.Errorf("p[%d] = %g, want %g", i, v[i], p)
			}
		}
		if math.Abs(sum-1) > 1e-6 {
			t.Errorf("sum %g", sum)
		}
	})
}

func TestSoftmaxGradByHand(t *testing.T) {
	forEachKernelSet(t, func(t *testing.T) {
		for _, n := range []int{5, 16} {
			rng := rand.New(rand.NewPCG(uint64(n), 1))
			p, d := make([]float32, n), make([]float32, n)
			for i := range p {
				p[i], d[i] = rng.Float32(), rng.Float32()-0.5
			}
			want := make([]float64, n)
			var dot float64
			for i := range p {
				dot += float64(p[i]) * float64(d[i])
			}
			for i := range p {
				want[i] = 0.5 * float64(p[i]) * (float64(d[i]) - dot)
			}
			softmaxGrad(p, d, 0.5)
			for i := range d {
				if math.Abs(float64(d[i])-want[i]) > 1e-6 {
					t.Errorf("n %d: d[%d] = %g, want %g", n, i, d[i], want[i])
				}
			}
		}
	})
}
