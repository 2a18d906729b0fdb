package train

import (
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/dchess/dchess/models/family"
)

// TestAdamWMatchesPyTorch checks one AdamW step against PyTorch's update
// computed by hand: w ← w(1 − lr·wd) − lr·m̂/(√v̂ + eps), with m̂ = g and
// v̂ = g² after the first step's bias corrections, so the Adam part is
// lr·g/(|g| + eps).
func TestAdamWMatchesPyTorch(t *testing.T) {
	cfg := family.OptimizerConfig{Name: family.OptimizerAdamW, LR: 0.1, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8, LRDecay: 1,
		WeightDecay: 0.01, Schedule: family.ScheduleConstant}
	a := newAdam(cfg, []int{3})
	w := []float32{1, -2, 0.5}
	g := []float32{0.5, 0, -0.25}
	a.step([][]float32{w}, [][]float32{g}, []int{0}, cfg.LR)
	want := []float64{1*(1-0.001) - 0.1, -2 * (1 - 0.001), 0.5*(1-0.001) + 0.1}
	for i := range w {
		if math.Abs(float64(w[i])-want[i]) > 1e-6 {
			t.Fatalf("w[%d] = %.7f, want %.7f", i, w[i], want[i])
		}
	}
	// Plain Adam leaves a weight with no gradient alone.
	cfg.Name, cfg.WeightDecay = family.OptimizerAdam, 0
	a = newAdam(cfg, []int{1})
	w = []float32{-2}
	a.step([][]float32{w}, [][]float32{{0}}, []int{0}, cfg.LR)
	if w[0] != -2 {
		t.Fatalf("adam moved a weight without gradient to %v", w[0])
	}
}

func TestLearningRateSchedules(t *testing.T) {
	o := family.OptimizerConfig{LR: 1, LRDecay: 0.5, Schedule: family.ScheduleConstant}
	if got := o.Rate(1000, 2); got != 0.25 {
		t.Fatalf("constant schedule after 2 epochs: %g, want 0.25", got)
	}
	o = family.OptimizerConfig{LR: 1, LRDecay: 1, Schedule: family.ScheduleCosine, WarmupSteps: 10, DecaySteps: 100, MinLRRatio: 0.1}
	cases := []struct {
		step int64
		want float64
	}{
		{0, 0.1},                             // first warm-up step
		{9, 1},                               // last warm-up step reaches lr
		{10, 1},                              // the cosine starts at lr
		{60, 0.1 + 0.9*0.5},                  // halfway: the mean of lr and the floor
		{110, 0.1},                           // the end of the decay
		{500, 0.1},                           // and after it
		{35, 0.1 + 0.9*0.5*(1+math.Sqrt2/2)}, // a quarter of the way: cos(π/4)
	}
	for _, c := range cases {
		if got := o.Rate(c.step, 7); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("cosine rate at step %d: %g, want %g", c.step, got, c.want)
		}
	}
}

// TestAdamStepSameOnAnyCores: a step over enough weights to be spread over
// the cores gives the same bits on one core and on four, with clipping
// (the norm summed first) and without (the norm summed beside the update),
// and zeroes every gradient.
func TestAdamStepSameOnAnyCores(t *testing.T) {
	sizes := []int{3*spanValues + 7, 5, spanValues}
	lengths := slices.Clone(sizes)
	if spanGoroutines(spans(lengths), 4) < 2 {
		t.Fatal("the case is too small to be spread over the cores")
	}
	for _, clip := range []float64{0, 0.5} {
		cfg := family.OptimizerConfig{Name: family.OptimizerAdamW, LR: 0.01, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8,
			LRDecay: 1, WeightDecay: 0.01, ClipNorm: clip, Schedule: family.ScheduleConstant}
		type result struct {
			weights, m, v [][]float32
			norms         []float64
		}
		var results [2]result
		for k, procs := range []int{1, 4} {
			func() {
				defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
				rng := rand.New(rand.NewPCG(8, 9))
				a := newAdam(cfg, sizes)
				index := []int{2, 0, 1} // learnable i is parameter index[i]
				weights := make([][]float32, len(index))
				for i, p := range index {
					weights[i] = randomValues(rng, sizes[p])
				}
				var r result
				for range 3 {
					grads := make([][]float32, len(index))
					for i, p := range index {
						grads[i] = randomValues(rng, sizes[p])
					}
					r.norms = append(r.norms, a.step(weights, grads, index, cfg.LR))
					for i, g := range grads {
						if slices.ContainsFunc(g, func(x float32) bool { return x != 0 }) {
							t.Fatalf("%d cores: gradient %d not zeroed", procs, i)
						}
					}
				}
				r.weights, r.m, r.v = weights, a.m, a.v
				results[k] = r
			}()
		}
		one, four := results[0], results[1]
		if !slices.Equal(one.norms, four.norms) {
			t.Errorf("clip %g: norms %v on one core, %v on four", clip, one.norms, four.norms)
		}
		if clip > 0 && one.norms[0] <= clip {
			t.Errorf("clip %g: norm %g, the case does not clip", clip, one.norms[0])
		}
		for i := range one.weights {
			if !slices.Equal(one.weights[i], four.weights[i]) || !slices.Equal(one.m[i], four.m[i]) || !slices.Equal(one.v[i], four.v[i]) {
				t.Errorf("clip %g: learnable %d differs between one core and four", clip, i)
			}
		}
	}
}

// TestSumGradientsInWorkerOrder: the workers' gradients summed spread over
// the cores are each value's sum in worker order, and the other workers'
// are zeroed.
func TestSumGradientsInWorkerOrder(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	rng := rand.New(rand.NewPCG(5, 6))
	sizes := []int{2*spanValues + 3, 1, spanValues}
	if spanGoroutines(spans(sizes), 3) < 2 {
		t.Fatal("the case is too small to be spread over the cores")
	}
	grads := make([][][]float32, 3)
	for k := range grads {
		for _, n := range sizes {
			grads[k] = append(grads[k], randomValues(rng, n))
		}
	}
	want := make([][]float32, len(sizes))
	for i := range sizes {
		want[i] = slices.Clone(grads[0][i])
		for _, worker := range grads[1:] {
			for j, x := range worker[i] {
				want[i][j] += x
			}
		}
	}
	sumGradients(grads)
	for i := range sizes {
		if !slices.Equal(grads[0][i], want[i]) {
			t.Errorf("learnable %d: not the sum in worker order", i)
		}
		for k, worker := range grads[1:] {
			if slices.ContainsFunc(worker[i], func(x float32) bool { return x != 0 }) {
				t.Errorf("worker %d, learnable %d: gradient not zeroed", k+1, i)
			}
		}
	}
}

func randomValues(rng *rand.Rand, n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(rng.NormFloat64()) * 0.1
	}
	return v
}

// TestAdamAssemblyAgrees: the update in assembly gives the Go loop's bits,
// over steps whose gradients, moments and weights span tiny, huge, zero
// and subnormal values, with and without weight decay and a clip scale,
// for lengths that leave a tail for the loop.
func TestAdamAssemblyAgrees(t *testing.T) {
	if !useAdamAsm {
		t.Skip("no assembly update on this machine")
	}
	rng := rand.New(rand.NewPCG(4, 2))
	value := func() float32 {
		switch rng.IntN(8) {
		case 0:
			return 0
		case 1:
			return float32(rng.NormFloat64()) * 1e-40 // subnormal
		case 2:
			return float32(rng.NormFloat64()) * 1e20
		default:
			return float32(rng.NormFloat64() * math.Pow(10, float64(rng.IntN(12)-8)))
		}
	}
	for _, n := range []int{8, 13, 64, 1031} {
		for _, c := range []adamConsts{
			{1, 0.9, 0.1, 0.999, 0.001, 1, 0.001, 0.3, 1e-8},
			{0.37, 0.8, 0.2, 0.99, 0.01, 0.9999, 0.05, 0.9, 1e-6},
		} {
			w, g, m, v := make([]float32, n), make([]float32, n), make([]float32, n), make([]float32, n)
			for i := range w {
				w[i], g[i], m[i], v[i] = value(), value(), value(), float32(math.Abs(float64(value())))
			}
			w2, m2, v2 := slices.Clone(w), slices.Clone(m), slices.Clone(v)
			for step := 0; step < 3; step++ {
				c.update(w, g, m, v, false)
				c.update(w2, g, m2, v2, true)
				for i := range w {
					same := func(a, b float32) bool { return math.Float32bits(a) == math.Float32bits(b) || a != a && b != b }
					if !same(w[i], w2[i]) || !same(m[i], m2[i]) || !same(v[i], v2[i]) {
						t.Fatalf("n %d, step %d, value %d: Go w %g m %g v %g, assembly w %g m %g v %g",
							n, step, i, w[i], m[i], v[i], w2[i], m2[i], v2[i])
					}
				}
			}
		}
	}
}

// BenchmarkAdamUpdate times one Adam update of the shipped nnue network's
// 205,121 weights, in Go and (where it runs) in assembly.
func BenchmarkAdamUpdate(b *testing.B) {
	const n = 205_121
	w, g, m, v := make([]float32, n), make([]float32, n), make([]float32, n), make([]float32, n)
	rng := rand.New(rand.NewPCG(1, 1))
	for i := range w {
		w[i], g[i] = float32(rng.NormFloat64()), float32(rng.NormFloat64())*1e-3
	}
	c := adamConsts{1, 0.9, 0.1, 0.999, 0.001, 1, 0.001, 0.3, 1e-8}
	for _, asm := range []bool{false, true} {
		if asm && !useAdamAsm {
			continue
		}
		b.Run(map[bool]string{false: "go", true: "asm"}[asm], func(b *testing.B) {
			for b.Loop() {
				c.update(w, g, m, v, asm)
			}
		})
	}
}
