package ops

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestMulAdd checks mulAdd and mulAddT (the assembly where the CPU has
// it, with plain-Go tail rows) against a float64 triple loop, on shapes
// with and without a tail, strides wider than the rows, sparse inputs, and
// more rows and k than one block (rowBlock, depthBlock).
func TestMulAdd(t *testing.T) {
	if !useAsm {
		t.Log("no AVX2+FMA here: only the plain-Go path is tested")
	}
	for _, asm := range []bool{useAsm, false} {
		testMulAdd(t, asm)
	}
}

func testMulAdd(t *testing.T, asm bool) {
	defer func(saved bool) { useAsm = saved }(useAsm)
	useAsm = asm
	rng := rand.New(rand.NewPCG(3, 4))
	for _, s := range []struct {
		m, n, k, lda, ldb, ldc int
		init                   bool
	}{
		{1, 16, 1, 1, 16, 16, false}, {4, 16, 9, 9, 16, 16, false}, {7, 32, 13, 15, 40, 33, false},
		{256, 16, 117, 117, 16, 16, false}, {5, 16, 0, 1, 16, 16, false},
		{9, 32, 5, 5, 32, 32, true}, {4, 16, 0, 1, 16, 16, true},
		{70, 32, 300, 301, 32, 48, true},
	} {
		a := randomFloat32s(rng, s.m*s.lda)
		for i := range a {
			if rng.IntN(3) == 0 {
				a[i] = 0
			}
		}
		b := randomFloat32s(rng, max(s.k, 1)*s.ldb)
		c := randomFloat32s(rng, s.m*s.ldc)
		want := make([]float64, len(c))
		for i := range c {
			want[i] = float64(c[i])
		}
		var init []float32
		if s.init {
			init = randomFloat32s(rng, s.n)
			for i := 0; i < s.m; i++ {
				for j := 0; j < s.n; j++ {
					want[i*s.ldc+j] = float64(init[j])
				}
			}
		}
		for i := 0; i < s.m; i++ {
			for j := 0; j < s.n; j++ {
				for l := 0; l < s.k; l++ {
					want[i*s.ldc+j] += float64(a[i*s.lda+l]) * float64(b[l*s.ldb+j])
				}
			}
		}
		// a transposed, k × m with a wider stride, for mulAddT.
		ldT := s.m + 3
		aT := make([]float32, max(s.k, 1)*ldT)
		for i := 0; i < s.m; i++ {
			for l := 0; l < s.k; l++ {
				aT[l*ldT+i] = a[i*s.lda+l]
			}
		}
		cT := append([]float32(nil), c...)
		mulAdd(s.m, s.n, s.k, a, s.lda, b, s.ldb, c, s.ldc, init)
		mulAddT(s.m, s.n, s.k, aT, ldT, b, s.ldb, cT, s.ldc, init)
		for i := range c {
			if math.Abs(float64(c[i])-want[i]) > 1e-4*math.Max(1, math.Abs(want[i])) {
				t.Fatalf("assembly %v, %+v: c[%d] = %g, want %g", asm, s, i, c[i], want[i])
			}
			if cT[i] != c[i] {
				t.Fatalf("assembly %v, %+v: mulAddT's c[%d] = %g, mulAdd's %g", asm, s, i, cT[i], c[i])
			}
		}
	}
}

func TestMulAddRejectsShortSlices(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("a short c was accepted")
		}
	}()
	mulAdd(4, 16, 2, make([]float32, 8), 2, make([]float32, 32), 16, make([]float32, 63), 16, nil)
}

func TestAxpyRuns(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	for _, r := range []struct{ runs, n, xStride, yStride int }{
		{1, 8, 0, 0}, {3, 16, 20, 40}, {3, 48, 48, 160}, {0, 8, 8, 8},
	} {
		x := randomFloat32s(rng, r.runs*r.xStride+r.n)
		y := randomFloat32s(rng, r.runs*r.yStride+r.n)
		want := append([]float32(nil), y...)
		for run := 0; run < r.runs; run++ {
			for i := 0; i < r.n; i++ {
				want[run*r.yStride+i] += -1.5 * x[run*r.xStride+i]
			}
		}
		for _, asm := range []bool{useAsm, false} {
			func() {
				defer func(saved bool) { useAsm = saved }(useAsm)
				useAsm = asm
				got := append([]float32(nil), y...)
				axpyRuns(r.runs, r.n, -1.5, x, r.xStride, got, r.yStride)
				for i := range got {
					if math.Abs(float64(got[i]-want[i])) > 1e-6 {
						t.Fatalf("%+v, assembly %v: y[%d] = %g, want %g", r, asm, i, got[i], want[i])
					}
				}
			}()
		}
	}
}
