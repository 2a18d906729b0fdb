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
