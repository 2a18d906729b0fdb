//go:build openblas

package nn

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"golang.org/x/sys/cpu"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
	G "gorgonia.org/gorgonia"
)

// TestOpenBLASMatchesGonum checks the cgo products against gonum's on every
// transpose combination, with leading dimensions wider than the matrices.
func TestOpenBLASMatchesGonum(t *testing.T) {
	if _, ok := G.WhichBLAS().(openBLAS); !ok {
		t.Fatalf("Gorgonia multiplies with %T, want openBLAS", G.WhichBLAS())
	}
	rng := rand.New(rand.NewPCG(3, 4))
	fill := func(n int) []float32 {
		s := make([]float32, n)
		for i := range s {
			s[i] = rng.Float32()*2 - 1
		}
		return s
	}
	const m, n, k, pad = 7, 5, 9, 3
	for _, tA := range []blas.Transpose{blas.NoTrans, blas.Trans} {
		for _, tB := range []blas.Transpose{blas.NoTrans, blas.Trans} {
			rowsA, colsA := m, k
			if tA == blas.Trans {
				rowsA, colsA = k, m
			}
			rowsB, colsB := k, n
			if tB == blas.Trans {
				rowsB, colsB = n, k
			}
			lda, ldb, ldc := colsA+pad, colsB+pad, n+pad
			a, b, c := fill(rowsA*lda), fill(rowsB*ldb), fill(m*ldc)
			want := append([]float32(nil), c...)
			gonum.Implementation{}.Sgemm(tA, tB, m, n, k, 0.5, a, lda, b, ldb, 0.25, want, ldc)
			openBLAS{}.Sgemm(tA, tB, m, n, k, 0.5, a, lda, b, ldb, 0.25, c, ldc)
			for i := range c {
				if math.Abs(float64(c[i]-want[i])) > 1e-5 {
					t.Fatalf("Sgemm %c%c: c[%d] = %g, gonum %g", tA, tB, i, c[i], want[i])
				}
			}
		}
		rows, cols := m, k
		x, y := fill(cols), fill(rows)
		if tA == blas.Trans {
			x, y = fill(rows), fill(cols)
		}
		a := fill(rows * (cols + pad))
		want := append([]float32(nil), y...)
		gonum.Implementation{}.Sgemv(tA, rows, cols, 2, a, cols+pad, x, 1, 0.5, want, 1)
		openBLAS{}.Sgemv(tA, rows, cols, 2, a, cols+pad, x, 1, 0.5, y, 1)
		for i := range y {
			if math.Abs(float64(y[i]-want[i])) > 1e-5 {
				t.Fatalf("Sgemv %c: y[%d] = %g, gonum %g", tA, i, y[i], want[i])
			}
		}
	}
}

// TestOpenBLASUsesTheCPUsVectorUnits checks the re-exec of init: on a CPU
// with AVX2 and FMA, OpenBLAS must not be left on Prescott's SSE3 kernels.
func TestOpenBLASUsesTheCPUsVectorUnits(t *testing.T) {
	if !cpu.X86.HasAVX2 || !cpu.X86.HasFMA {
		t.Skip("no AVX2/FMA: OpenBLAS's own choice stands")
	}
	if core := BLASCore(); strings.EqualFold(core, "prescott") {
		t.Fatalf("OpenBLAS runs %s kernels on an AVX2 CPU", core)
	}
}

// BenchmarkOpenBLASSgemm times a 512×512 float32 product, the figure
// docs/results/2026-11-21-diffusion-speed.md compares across OPENBLAS_CORETYPE settings.
func BenchmarkOpenBLASSgemm(b *testing.B) {
	const n = 512
	x, y, z := make([]float32, n*n), make([]float32, n*n), make([]float32, n*n)
	for i := range x {
		x[i], y[i] = float32(i%7), float32(i%5)
	}
	for i := 0; i < b.N; i++ {
		openBLAS{}.Sgemm(blas.NoTrans, blas.NoTrans, n, n, n, 1, x, n, y, n, 0, z, n)
	}
	b.ReportMetric(2*n*n*n*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOPS")
}
