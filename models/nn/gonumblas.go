//go:build !openblas

package nn

// BLAS names the BLAS Gorgonia multiplies with, for metrics and benchmarks:
// gonum's pure Go unless the binary is built with -tags openblas.
const BLAS = "gonum"

// BLASCore is the kernel family of the BLAS: gonum's has one, in Go.
func BLASCore() string { return "go" }
