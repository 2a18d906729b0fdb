package train

import (
	"math"
	"runtime"

	"github.com/dchess/dchess/models/family"
)

// adam is Adam (or AdamW, with weight_decay) as PyTorch computes it, with
// optional global-norm gradient clipping. It is written here rather than taken from Gorgonia because
// exact resume needs its moments saved and restored, which Gorgonia's
// AdamSolver keeps private.
type adam struct {
	cfg  family.OptimizerConfig
	m, v [][]float32 // first and second moments, one per learnable
	t    int64       // steps taken, for the bias corrections
}

func newAdam(cfg family.OptimizerConfig, sizes []int) *adam {
	a := &adam{cfg: cfg, m: make([][]float32, len(sizes)), v: make([][]float32, len(sizes))}
	for i, n := range sizes {
		a.m[i] = make([]float32, n)
		a.v[i] = make([]float32, n)
	}
	return a
}

// reset forgets the moments and the step count, as a fresh optimizer
// would start: each stage of a staged objective trains other weights.
func (a *adam) reset() {
	for i := range a.m {
		clear(a.m[i])
		clear(a.v[i])
	}
	a.t = 0
}

// step updates weights in place from grads at learning rate lr, then zeroes
// grads (Gorgonia adds each run's gradients to them); weights[i] is the
// parameter index[i], whose moments it uses. It returns the gradients'
// global L2 norm before clipping.
//
// The update of each value depends on that value alone, so spans of the
// values are updated side by side on every core: a network of a few
// hundred thousand weights (nnue, the -small transformers) would spend a
// fifth of a two-worker step in a serial update. The norm is one float64
// sum in a fixed order, as it always was; without clipping the update
// does not need it, and it is summed while the update runs.
func (a *adam) step(weights, grads [][]float32, index []int, lr float64) float64 {
	a.t++
	b1, b2 := float32(a.cfg.Beta1), float32(a.cfg.Beta2)
	bc1 := 1 - math.Pow(a.cfg.Beta1, float64(a.t))
	bc2 := 1 - math.Pow(a.cfg.Beta2, float64(a.t))
	stepSize := float32(lr / bc1)
	bc2Sqrt := float32(math.Sqrt(bc2))
	eps := float32(a.cfg.Eps)
	keep := float32(1 - lr*a.cfg.WeightDecay) // 1 for adam
	lengths := make([]int, len(weights))
	for i, w := range weights {
		lengths[i] = len(w)
	}
	all := spans(lengths)
	update := func(s span, scale float32) {
		c := adamConsts{scale, b1, 1 - b1, b2, 1 - b2, keep, stepSize, bc2Sqrt, eps}
		c.update(weights[s.learnable][s.lo:s.hi], grads[s.learnable][s.lo:s.hi],
			a.m[index[s.learnable]][s.lo:s.hi], a.v[index[s.learnable]][s.lo:s.hi], useAdamAsm)
	}
	goroutines := spanGoroutines(all, runtime.GOMAXPROCS(0))
	var norm float64
	if a.cfg.ClipNorm > 0 || goroutines == 1 {
		norm = gradNorm(grads)
		scale := float32(1)
		if a.cfg.ClipNorm > 0 && norm > a.cfg.ClipNorm {
			scale = float32(a.cfg.ClipNorm / norm)
		}
		forSpans(all, goroutines, func(s span) { update(s, scale) })
	} else {
		summed := make(chan float64, 1)
		go func() { summed <- gradNorm(grads) }()
		forSpans(all, goroutines, func(s span) { update(s, 1) })
		norm = <-summed
	}
	forSpans(all, goroutines, func(s span) { clear(grads[s.learnable][s.lo:s.hi]) })
	return norm
}

// gradNorm is the global L2 norm of grads, summed in float64 in order.
func gradNorm(grads [][]float32) float64 {
	var sq float64
	for _, g := range grads {
		for _, x := range g {
			sq += float64(x) * float64(x)
		}
	}
	return math.Sqrt(sq)
}

// adamConsts are one step's constants of the update, laid out as
// adamUpdate8 reads them.
type adamConsts struct {
	scale, b1, oneMinusB1, b2, oneMinusB2, keep, stepSize, bc2Sqrt, eps float32
}

// update applies one Adam step to w from g, updating the moments m and v;
// with asm the multiples of 8 go through adamUpdate8, which gives the
// same bits as this loop (TestAdamAssemblyAgrees).
func (c *adamConsts) update(w, g, m, v []float32, asm bool) {
	g, m, v = g[:len(w)], m[:len(w)], v[:len(w)]
	done := 0
	if asm && len(w) >= 8 {
		done = len(w) &^ 7
		adamUpdate8(done, &w[0], &g[0], &m[0], &v[0], c)
	}
	// The conversions round each product, so that no GOAMD64 level fuses
	// one into a multiply-add the assembly does not do.
	for j := done; j < len(w); j++ {
		gj := g[j] * c.scale
		m[j] = float32(c.b1*m[j]) + float32(c.oneMinusB1*gj)
		v[j] = float32(c.b2*v[j]) + float32(float32(c.oneMinusB2*gj)*gj)
		w[j] = float32(c.keep*w[j]) - float32(c.stepSize*m[j])/(float32(math.Sqrt(float64(v[j])))/c.bc2Sqrt+c.eps)
	}
}
