package ops

import (
	"math"
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

func TestSoftmaxRowSumsToOne(t *testing.T) {
	v := []float32{3, -1, 0.5, 3, 40}
	softmaxRow(v, 0.25)
	var sum, want float64
	for _, x := range []float64{3, -1, 0.5, 3, 40} {
		want += math.Exp(0.25 * (x - 40))
	}
	for i, x := range []float64{3, -1, 0.5, 3, 40} {
		sum += float64(v[i])
		if p := math.Exp(0.25*(x-40)) / want; math.Abs(float64(v[i])-p) > 1e-6 {
			t.Errorf("p[%d] = %g, want %g", i, v[i], p)
		}
	}
	if math.Abs(sum-1) > 1e-6 {
		t.Errorf("sum %g", sum)
	}
}
