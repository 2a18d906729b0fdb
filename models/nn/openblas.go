//go:build openblas

package nn

/*
#cgo LDFLAGS: -l:libopenblas.so.0
// OpenBLAS's CBLAS entry points, declared here so no -dev package is
// needed: Debian's libopenblas0-pthread ships the library without headers.
void cblas_sgemm(int order, int transA, int transB, int m, int n, int k,
	float alpha, const float *a, int lda, const float *b, int ldb,
	float beta, float *c, int ldc);
void cblas_sgemv(int order, int trans, int m, int n, float alpha,
	const float *a, int lda, const float *x, int incX, float beta,
	float *y, int incY);
char *openblas_get_corename(void);
*/
import "C"

import (
	"os"
	"strings"
	"syscall"

	"golang.org/x/sys/cpu"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
	G "gorgonia.org/gorgonia"
)

// CBLAS enum values (cblas.h).
const (
	cblasRowMajor = 101
	cblasNoTrans  = 111
	cblasTrans    = 112
)

// openBLAS is gonum's pure-Go BLAS with the float32 products Gorgonia's
// training spends its time in (gemm, gemv) routed to OpenBLAS.
type openBLAS struct{ gonum.Implementation }

func cblasTranspose(t blas.Transpose) C.int {
	if t == blas.NoTrans {
		return cblasNoTrans
	}
	return cblasTrans
}

func (openBLAS) Sgemm(tA, tB blas.Transpose, m, n, k int, alpha float32, a []float32, lda int,
	b []float32, ldb int, beta float32, c []float32, ldc int) {
	if m == 0 || n == 0 {
		return
	}
	if k == 0 || len(a) == 0 || len(b) == 0 {
		// Nothing to multiply: C = beta·C, which gonum handles.
		gonum.Implementation{}.Sgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	C.cblas_sgemm(cblasRowMajor, cblasTranspose(tA), cblasTranspose(tB), C.int(m), C.int(n), C.int(k),
		C.float(alpha), (*C.float)(&a[0]), C.int(lda), (*C.float)(&b[0]), C.int(ldb),
		C.float(beta), (*C.float)(&c[0]), C.int(ldc))
}

func (openBLAS) Sgemv(tA blas.Transpose, m, n int, alpha float32, a []float32, lda int,
	x []float32, incX int, beta float32, y []float32, incY int) {
	if m == 0 || n == 0 || incX < 0 || incY < 0 {
		gonum.Implementation{}.Sgemv(tA, m, n, alpha, a, lda, x, incX, beta, y, incY)
		return
	}
	C.cblas_sgemv(cblasRowMajor, cblasTranspose(tA), C.int(m), C.int(n), C.float(alpha),
		(*C.float)(&a[0]), C.int(lda), (*C.float)(&x[0]), C.int(incX), C.float(beta),
		(*C.float)(&y[0]), C.int(incY))
}

// BLAS names the BLAS Gorgonia multiplies with, for metrics and benchmarks.
const BLAS = "openblas"

// BLASCore is the kernel family OpenBLAS chose for this CPU.
func BLASCore() string { return C.GoString(C.openblas_get_corename()) }

// coreTypeFix returns the OPENBLAS_CORETYPE this process should run with,
// or "" when OpenBLAS's own choice stands. Debian's OpenBLAS 0.3.21 does not
// recognise every recent Xeon (a Cooper Lake under a hypervisor here) and
// falls back to Prescott's SSE3 kernels, half the speed of its Haswell
// kernels on the same CPU (a 512×512 sgemm: 27 against 54 GFLOPS).
func coreTypeFix() string {
	if os.Getenv("OPENBLAS_CORETYPE") != "" || !strings.EqualFold(BLASCore(), "prescott") {
		return ""
	}
	if cpu.X86.HasAVX2 && cpu.X86.HasFMA {
		return "Haswell"
	}
	return ""
}

func init() {
	// OpenBLAS picks its kernels once, when the library loads, so only a
	// fresh process can correct the choice: re-execute this one (binary or
	// test) with the core type set. If the exec fails, run as chosen.
	if core := coreTypeFix(); core != "" {
		if exe, err := os.Executable(); err == nil {
			_ = syscall.Exec(exe, os.Args, append(os.Environ(), "OPENBLAS_CORETYPE="+core))
		}
	}
	G.Use(openBLAS{})
}
