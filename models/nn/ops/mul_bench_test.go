package ops

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/dchess/dchess/internal/testenv"
)

// BenchmarkMulAdd times mulAdd and mulAddT on one core at the shapes a
// diffusion-small training step (128 sequences of 284 positions, width 64,
// 2 heads of 32, MLP 256) gives them, in GFLOPS of wall time and of the
// process's CPU time (cpu-GFLOPS, which the machine's other load disturbs
// less).
func BenchmarkMulAdd(b *testing.B) {
	const rows, L = 128 * 284, 284
	for _, s := range []struct {
		name    string
		m, n, k int
		trans   bool
	}{
		{"dense/qkv", rows, 192, 64, false},
		{"dense/mlp-up", rows, 256, 64, false},
		{"dense/mlp-down", rows, 64, 256, false},
		{"dense/mlp-up-wgrad", 64, 256, rows, true},
		{"dense/mlp-down-wgrad", 256, 64, rows, true},
		{"attention/scores", L, 288, 32, false},
		{"attention/values", L, 32, L, false},
		{"attention/gradT", 32, 288, L, true},
	} {
		rng := rand.New(rand.NewPCG(5, 5))
		a := randomFloat32s(rng, s.m*s.k)
		bm := randomFloat32s(rng, s.k*s.n)
		c := make([]float32, s.m*s.n)
		zeros := make([]float32, s.n)
		b.Run(fmt.Sprintf("%s/%dx%dx%d", s.name, s.m, s.n, s.k), func(b *testing.B) {
			cpu := testenv.ProcessCPU()
			for b.Loop() {
				if s.trans {
					mulAddT(s.m, s.n, s.k, a, s.m, bm, s.n, c, s.n, zeros)
				} else {
					mulAdd(s.m, s.n, s.k, a, s.k, bm, s.n, c, s.n, zeros)
				}
			}
			flops := 2 * float64(s.m*s.n*s.k) * float64(b.N)
			b.ReportMetric(flops/b.Elapsed().Seconds()/1e9, "GFLOPS")
			if cpu := testenv.ProcessCPU() - cpu; cpu > 0 {
				b.ReportMetric(flops/cpu.Seconds()/1e9, "cpu-GFLOPS")
			}
		})
	}
}
