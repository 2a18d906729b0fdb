package ops

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestPoolPrimitives checks maxArg and reluArg, the assembly where the CPU
// has it against the plain-Go loop, and both against the rule they keep:
// ties and NaN candidates keep the current value, NaN values survive ReLU.
func TestPoolPrimitives(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	for _, n := range []int{1, 8, 13, 16, 96} {
		best, v := randomFloat32s(rng, n), randomFloat32s(rng, n)
		bestAt, vAt := make([]int32, n), make([]int32, n)
		for i := range n {
			bestAt[i], vAt[i] = int32(i), int32(1000+i)
			switch rng.IntN(5) {
			case 0:
				v[i] = best[i] // a tie keeps the first
			case 1:
				v[i] = float32(math.NaN())
			}
		}
		wantBest, wantAt := slices.Clone(best), slices.Clone(bestAt)
		for i := range n {
			if v[i] > best[i] {
				wantBest[i], wantAt[i] = v[i], vAt[i]
			}
		}
		wantRelu, wantReluAt := slices.Clone(wantBest), slices.Clone(wantAt)
		wantRelu[0] = float32(math.NaN())
		for i := range n {
			if !(wantRelu[i] > 0) {
				wantReluAt[i] = -1
				if wantRelu[i] == wantRelu[i] {
					wantRelu[i] = 0
				}
			}
		}
		for _, asm := range []bool{useAsm, false} {
			func() {
				defer func(saved bool) { useAsm = saved }(useAsm)
				useAsm = asm
				gotBest, gotAt := slices.Clone(best), slices.Clone(bestAt)
				maxArg(gotBest, gotAt, v, vAt)
				if !slices.Equal(gotBest, wantBest) || !slices.Equal(gotAt, wantAt) {
					t.Fatalf("n %d, assembly %v: maxArg gave %v %v, want %v %v", n, asm, gotBest, gotAt, wantBest, wantAt)
				}
				gotBest[0] = float32(math.NaN())
				reluArg(gotBest, gotAt)
				if !math.IsNaN(float64(gotBest[0])) || gotAt[0] != -1 {
					t.Fatalf("n %d, assembly %v: ReLU of NaN gave %g at %d, want NaN at -1", n, asm, gotBest[0], gotAt[0])
				}
				for i := 1; i < n; i++ {
					if gotBest[i] != wantRelu[i] || gotAt[i] != wantReluAt[i] {
						t.Fatalf("n %d, assembly %v: reluArg [%d] = %g at %d, want %g at %d", n, asm, i, gotBest[i], gotAt[i], wantRelu[i], wantReluAt[i])
					}
				}
			}()
		}
	}
}
