package ops

import "math"

// expf is e^x in float32, for the softmaxes: Cephes's expf (x = n·ln 2 + r,
// e^r by a degree-7 polynomial, 2^n by the exponent bits), within about
// 2 ulp and several times cheaper than math.Exp in float64, which the
// attention op would otherwise call millions of times a step. It is 0
// below -87.3, where float32 runs out of normal numbers, and +Inf above 88;
// NaN stays NaN.
func expf(x float32) float32 {
	if x < -87.33654 {
		return 0
	}
	if x > 88 {
		return float32(math.Inf(1))
	}
	fx := x*math.Log2E + 0.5
	n := float32(int32(fx))
	if n > fx { // floor for negative fx
		n--
	}
	r := x - n*0.693359375 + n*2.12194440e-4
	p := float32(1.9875691500e-4)
	p = p*r + 1.3981999507e-3
	p = p*r + 8.3334519073e-3
	p = p*r + 4.1665795894e-2
	p = p*r + 1.6666665459e-1
	p = p*r + 5.0000001201e-1
	p = p*r*r + r + 1
	return p * math.Float32frombits(uint32(int32(n)+127)<<23)
}

// softmaxRow replaces v by softmax(scale·v) and returns it; scale > 0.
func softmaxRow(v []float32, scale float32) {
	m := v[0]
	for _, x := range v {
		m = max(m, x)
	}
	var sum float32
	for i, x := range v {
		e := expf(scale * (x - m))
		v[i] = e
		sum += e
	}
	inv := 1 / sum
	for i := range v {
		v[i] *= inv
	}
}
