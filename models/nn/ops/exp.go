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

// expShift writes e^(scale·(v[i]-m)) into v and returns their sum: eight
// at a time in AVX2 + FMA assembly where the CPU has it (a softmax's
// exponentials were the largest cost of the attention op).
func expShift(v []float32, scale, m float32) float32 {
	var sum float32
	i := 0
	if useAsm && len(v) >= 8 {
		i = len(v) &^ 7
		sum = expShift8(i, &v[0], scale, m)
	}
	for ; i < len(v); i++ {
		e := expf(scale * (v[i] - m))
		v[i] = e
		sum += e
	}
	return sum
}

// softmaxRow replaces v by softmax(scale·v); scale > 0.
func softmaxRow(v []float32, scale float32) {
	scaleRow(v, 1/expShift(v, scale, rowMax(v)))
}

// rowMax is the largest value of v (not empty).
func rowMax(v []float32) float32 {
	m := v[0]
	i := 0
	if useAsm && len(v) >= 8 {
		i = len(v) &^ 7
		m = maxOf8(i, &v[0])
	}
	for _, x := range v[i:] {
		m = max(m, x)
	}
	return m
}

// scaleRow multiplies v by s.
func scaleRow(v []float32, s float32) {
	i := 0
	if useAsm && len(v) >= 8 {
		i = len(v) &^ 7
		scale8(i, &v[0], s)
	}
	for ; i < len(v); i++ {
		v[i] *= s
	}
}

// softmaxGrad turns d, the gradient at a softmax row's output p =
// softmax(s·x), into the gradient at x: s·p ⊙ (d - p·d).
func softmaxGrad(p, d []float32, s float32) {
	d = d[:len(p)]
	if useAsm && len(p) > 0 && len(p)%8 == 0 {
		softmaxGrad8(len(p), &p[0], &d[0], s)
		return
	}
	var dot float32
	for j, x := range p {
		dot += x * d[j]
	}
	for j, x := range p {
		d[j] = s * x * (d[j] - dot)
	}
}
