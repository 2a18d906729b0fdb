package ops

import (
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
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

// TestMulAddPathsBits checks the kernels to the bit on random shapes with
// ragged edges (rows not a multiple of 8 or 4, columns not of 32, k across
// depthBlock, rows across rowBlock, wide strides, zeros and -0): the
// AVX-512 path (mulAdd8x32 with mulAdd4x16 and plain Go for the rest) must
// give the AVX2 path's bits, mulAddT mulAdd's, and both must compute each
// value of c in the first m - m%4 rows as one rounding FMA per product in
// the order of k (fma32). The last m%4 rows are the plain-Go loop's on
// every path, so the pure-Go path must give the same bits there; its other
// rows round a·b before adding (unless the compiler fuses them, as with
// GOAMD64=v3), so TestMulAdd checks them only to a tolerance.
func TestMulAddPathsBits(t *testing.T) {
	if !useAsm {
		t.Skip("no AVX2+FMA here")
	}
	type path struct {
		name      string
		asm, wide bool
	}
	paths := []path{{"avx2", true, false}, {"go", false, false}}
	if useAVX512 {
		paths = append([]path{{"avx512", true, true}}, paths...)
	} else {
		t.Log("no AVX-512 here: only the AVX2 and Go paths are compared")
	}
	defer func(asm, wide bool) { useAsm, useAVX512 = asm, wide }(useAsm, useAVX512)
	rng := rand.New(rand.NewPCG(7, 8))
	type shape struct{ m, n, k int }
	shapes := []shape{{8, 32, 1}, {7, 32, 5}, {12, 48, 3}, {70, 96, 300}, {64, 32, 256}, {130, 32, 257}, {5, 16, 0}, {284, 288, 32}}
	for range 40 {
		shapes = append(shapes, shape{1 + rng.IntN(100), 16 * (1 + rng.IntN(6)), rng.IntN(300)})
	}
	value := func() float32 {
		switch rng.IntN(8) {
		case 0:
			return 0
		case 1:
			return float32(math.Copysign(0, -1))
		}
		return 2*rng.Float32() - 1
	}
	values := func(n int) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = value()
		}
		return v
	}
	for _, s := range shapes {
		lda, ldb, ldc, ldT := s.k+rng.IntN(3), s.n+16*rng.IntN(2), s.n+rng.IntN(5), s.m+rng.IntN(3)
		a, b, c0 := values(s.m*max(lda, 1)), values(max(s.k, 1)*ldb), values(s.m*ldc)
		aT := make([]float32, max(s.k, 1)*ldT)
		for i := 0; i < s.m; i++ {
			for l := 0; l < s.k; l++ {
				aT[l*ldT+i] = a[i*lda+l]
			}
		}
		var init []float32
		if rng.IntN(2) == 0 {
			init = values(s.n)
		}
		// want: each value an FMA per product in the order of k.
		want := append([]float32(nil), c0...)
		for i := 0; i < s.m; i++ {
			for j := 0; j < s.n; j++ {
				v := want[i*ldc+j]
				if init != nil {
					v = init[j]
				}
				for l := 0; l < s.k; l++ {
					v = fma32(a[i*lda+l], b[l*ldb+j], v)
				}
				want[i*ldc+j] = v
			}
		}
		goRows := s.m - s.m%4
		var first []float32
		for _, p := range paths {
			useAsm, useAVX512 = p.asm, p.wide
			c, cT := append([]float32(nil), c0...), append([]float32(nil), c0...)
			mulAdd(s.m, s.n, s.k, a, lda, b, ldb, c, ldc, init)
			mulAddT(s.m, s.n, s.k, aT, ldT, b, ldb, cT, ldc, init)
			if first == nil {
				first = c
			}
			for i := 0; i < s.m; i++ {
				for j := 0; j < ldc; j++ {
					at := i*ldc + j
					got := math.Float32bits(c[at])
					if math.Float32bits(cT[at]) != got {
						t.Fatalf("%s %+v: mulAddT's c[%d][%d] = %g, mulAdd's %g", p.name, s, i, j, cT[at], c[at])
					}
					if j >= s.n {
						if got != math.Float32bits(c0[at]) {
							t.Fatalf("%s %+v: c[%d][%d] past n was written", p.name, s, i, j)
						}
						continue
					}
					if p.asm && i < goRows && got != math.Float32bits(want[at]) {
						t.Fatalf("%s %+v: c[%d][%d] = %g (%#x), FMAs in order give %g (%#x)",
							p.name, s, i, j, c[at], got, want[at], math.Float32bits(want[at]))
					}
					if (p.asm || i >= goRows) && got != math.Float32bits(first[at]) {
						t.Fatalf("%s %+v: c[%d][%d] = %g, %s path's %g", p.name, s, i, j, c[at], paths[0].name, first[at])
					}
				}
			}
		}
	}
}

// fma32 is a·b + c rounded once to float32, as VFMADD231PS computes it: the
// product is exact in float64 and the sum exact as a float64 pair (s, e);
// rounding s to odd when e is not zero keeps the sticky bit, so the
// rounding to float32 after it is the single rounding of the exact value.
func fma32(a, b, c float32) float32 {
	p, q := float64(a)*float64(b), float64(c)
	s := p + q
	bb := s - p
	e := (p - (s - bb)) + (q - bb)
	if e != 0 && math.Float64bits(s)&1 == 0 {
		s = math.Nextafter(s, math.Inf(int(math.Copysign(1, e))))
	}
	return float32(s)
}

// TestMulAddAVX512Off checks that GODEBUG=cpu.avx512f=off leaves mulAdd
// on the AVX2 kernel, in a child process (the switch is read at start).
func TestMulAddAVX512Off(t *testing.T) {
	if os.Getenv("OPS_AVX512_OFF_CHILD") == "1" {
		if useAVX512 {
			t.Fatal("useAVX512 with GODEBUG=cpu.avx512f=off")
		}
		return
	}
	if !useAVX512 {
		t.Skip("no AVX-512 here")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestMulAddAVX512Off$")
	cmd.Env = append(os.Environ(), "OPS_AVX512_OFF_CHILD=1", "GODEBUG=cpu.avx512f=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
}
