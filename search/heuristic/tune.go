package heuristic

import (
	"math"
	"runtime"
	"sync"

	"github.com/dchess/dchess/internal/chess/board"
)

// Tuning fits the weights to positions with known scores (Texel's method):
// the evaluation is linear in the weights once the game phase is fixed, so
// each position becomes a sparse vector of coefficients, and the fit
// minimises the squared difference of win probabilities by gradient descent.

// Sample is a position prepared for tuning.
type Sample struct {
	// coefs counts how often each weight pair scores, White minus Black;
	// the middlegame and endgame halves of a pair share the count.
	coefs []coef
	phase int
	// target is the win probability for White to fit.
	target float64
}

type coef struct {
	param int32
	count int32
}

// NewSamples prepares positions for Fit. whiteScores are the target scores
// in centipawns from White's view. The coefficients are read off the
// evaluation itself, one weight at a time, so tuning covers every term
// without a second copy of the evaluation to keep in step.
func NewSamples(positions []*board.Board, whiteScores []int, slope float64) []Sample {
	samples := make([]Sample, len(positions))
	base := make([]int, len(positions))
	for i, b := range positions {
		var s scores
		samples[i].phase = evaluate(b, defaultTables, &s)
		base[i] = totalMG(&s)
		samples[i].target = winProbability(float64(whiteScores[i]), slope)
	}
	n := len(DefaultWeights.Pairs())
	workers := runtime.GOMAXPROCS(0)
	perWorker := make([][][]coef, workers)
	var wg sync.WaitGroup
	for worker := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			found := make([][]coef, len(positions))
			for param := worker; param < n; param += workers {
				w := DefaultWeights
				w.Pairs()[param][0]++
				t := newTables(&w)
				for i, b := range positions {
					var s scores
					evaluate(b, t, &s)
					if d := totalMG(&s) - base[i]; d != 0 {
						found[i] = append(found[i], coef{int32(param), int32(d)})
					}
				}
			}
			perWorker[worker] = found
		}()
	}
	wg.Wait()
	for _, found := range perWorker {
		for i, cs := range found {
			samples[i].coefs = append(samples[i].coefs, cs...)
		}
	}
	return samples
}

func totalMG(s *scores) int {
	mg := 0
	for i := range s {
		mg += s[i][0]
	}
	return mg
}

func winProbability(cp, slope float64) float64 { return 1 / (1 + math.Exp(-slope*cp)) }

// FitOptions steer Fit.
type FitOptions struct {
	// Slope maps centipawns to win probability, 1/(1+exp(-Slope*cp)).
	Slope      float64
	Iterations int
	// LearningRate is Adam's step in centipawns.
	LearningRate float64
	// Ridge pulls each weight towards its start value, which keeps weights
	// that few positions touch from wandering.
	Ridge float64
	// Progress, when set, is called after each iteration with the loss.
	Progress func(iteration int, loss float64)
}

// Loss is the mean squared difference of win probabilities between the
// evaluation with w and the samples' targets.
func Loss(samples []Sample, w Weights, slope float64) float64 {
	flat := flatten(&w)
	sum := 0.0
	for i := range samples {
		d := winProbability(samples[i].eval(flat), slope) - samples[i].target
		sum += d * d
	}
	return sum / float64(len(samples))
}

func (s *Sample) eval(flat []float64) float64 {
	var mg, eg float64
	for _, c := range s.coefs {
		mg += float64(c.count) * flat[2*c.param]
		eg += float64(c.count) * flat[2*c.param+1]
	}
	return (mg*float64(s.phase) + eg*float64(maxPhase-s.phase)) / maxPhase
}

func flatten(w *Weights) []float64 {
	pairs := w.Pairs()
	flat := make([]float64, 2*len(pairs))
	for i, p := range pairs {
		flat[2*i], flat[2*i+1] = float64(p[0]), float64(p[1])
	}
	return flat
}

// Fit tunes start to the samples with full-batch Adam and returns the
// weights rounded to whole centipawns.
func Fit(samples []Sample, start Weights, opts FitOptions) Weights {
	x := flatten(&start)
	origin := append([]float64(nil), x...)
	m := make([]float64, len(x))
	v := make([]float64, len(x))
	grad := make([]float64, len(x))
	const beta1, beta2, eps = 0.9, 0.999, 1e-8
	for it := 1; it <= opts.Iterations; it++ {
		clear(grad)
		loss := 0.0
		for i := range samples {
			s := &samples[i]
			p := winProbability(s.eval(x), opts.Slope)
			d := p - s.target
			loss += d * d
			// d/de of (p - target)^2, spread over the tapered halves.
			g := 2 * d * p * (1 - p) * opts.Slope / maxPhase
			gMG, gEG := g*float64(s.phase), g*float64(maxPhase-s.phase)
			for _, c := range s.coefs {
				grad[2*c.param] += gMG * float64(c.count)
				grad[2*c.param+1] += gEG * float64(c.count)
			}
		}
		n := float64(len(samples))
		// Adam's bias corrections depend only on the step.
		mScale := 1 / (1 - math.Pow(beta1, float64(it)))
		vScale := 1 / (1 - math.Pow(beta2, float64(it)))
		for j := range x {
			g := grad[j]/n + 2*opts.Ridge*(x[j]-origin[j])
			m[j] = beta1*m[j] + (1-beta1)*g
			v[j] = beta2*v[j] + (1-beta2)*g*g
			x[j] -= opts.LearningRate * m[j] * mScale / (math.Sqrt(v[j]*vScale) + eps)
		}
		if opts.Progress != nil {
			opts.Progress(it, loss/n)
		}
	}
	w := start
	for i, p := range w.Pairs() {
		p[0], p[1] = int(math.Round(x[2*i])), int(math.Round(x[2*i+1]))
	}
	return w
}
