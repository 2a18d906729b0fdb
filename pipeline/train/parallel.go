package train

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"gopkg.in/yaml.v3"

	"github.com/dchess/dchess/models/dcw"
	"github.com/dchess/dchess/models/family"
)

// parallelGraph splits each batch across workers: worker k is a trainGraph
// over a contiguous share of the rows, its input and target nodes reading
// that share of the batch buffers in place, so a batch is loaded once. The
// workers run side by side (a TapeMachine is not safe for concurrent use,
// so each has its own graph and machines); their gradients are then summed
// in worker order into worker 0's, which the optimizer steps, and before
// each run the other workers copy worker 0's weights. Every row keeps its
// weight 1/n of the whole batch, so the sum is the one-graph gradient up to
// the order of the float additions: a run is reproducible for a given
// number of workers and its loss curve matches the one-worker run's within
// float rounding. Rows never meet in a family's graph (the per-row loss is
// the contract), and the corruption of the sequence families is drawn per
// row while streaming, so the workers change no draw.
//
// Each worker's ops spread their work over its share of the cores
// (GOMAXPROCS / workers, at least 1), not over every core: with as many
// workers as cores each op runs on its worker's goroutine alone, and the
// step hands work between goroutines only where the workers start and
// meet.
type parallelGraph struct {
	batchLayout
	workers []*trainGraph
	offsets []int // first row of each worker's share
	// out and rowLoss gather the workers' outputs and per-row losses.
	out, rowLoss []float32
}

// workerShares splits batch rows across at most workers contiguous shares,
// as even as they can be, the earlier shares the larger: the sizes depend
// only on the batch size and the worker count.
func workerShares(batch, workers int) []int {
	workers = max(1, min(workers, batch))
	shares := make([]int, workers)
	for k := range shares {
		shares[k] = batch / workers
		if k < batch%workers {
			shares[k]++
		}
	}
	return shares
}

// DefaultWorkers is the worker count of a config's workers: 0, the cores
// the process may use (GOMAXPROCS).
func DefaultWorkers(workers int) int {
	if workers > 0 {
		return workers
	}
	return runtime.GOMAXPROCS(0)
}

// hasWorkers says whether a config's YAML sets workers: a run's config.yaml
// written before the setting existed does not, and that run had one.
func hasWorkers(config string) bool {
	var probe struct {
		Workers *int `yaml:"workers"`
	}
	return yaml.Unmarshal([]byte(config), &probe) == nil && probe.Workers != nil
}

// newStepGraph builds stage of the objective for batch over workers: the
// one-graph trainGraph for one worker (or a batch of one row), else a
// parallelGraph.
func newStepGraph(o family.Objective, stage int, params []dcw.Tensor, batch, workers int) (stepGraph, error) {
	shares := workerShares(batch, workers)
	if len(shares) == 1 {
		return newTrainGraph(o, stage, params, batch)
	}
	p := &parallelGraph{batchLayout: batchLayout{batch: batch}}
	for _, shape := range o.InputShapes(batch) {
		width := 1
		for _, d := range shape[1:] {
			width *= d
		}
		p.widths = append(p.widths, width)
		p.bufs = append(p.bufs, make([]float32, batch*width))
	}
	tw := o.TargetWidth()
	if tw > 0 {
		p.ys = make([]float32, batch*tw)
	}
	cores := max(1, runtime.GOMAXPROCS(0)/len(shares))
	row := 0
	for _, n := range shares {
		bufs := make([][]float32, len(p.bufs))
		for i, buf := range p.bufs {
			bufs[i] = buf[row*p.widths[i] : (row+n)*p.widths[i]]
		}
		var ys []float32
		if tw > 0 {
			ys = p.ys[row*tw : (row+n)*tw]
		}
		w, err := newTrainGraphOn(o, stage, params, n, bufs, ys, cores)
		if err != nil {
			p.close()
			return nil, err
		}
		p.workers = append(p.workers, w)
		p.offsets = append(p.offsets, row)
		row += n
	}
	return p, nil
}

func (p *parallelGraph) close() {
	for _, w := range p.workers {
		w.close()
	}
}

func (p *parallelGraph) layout() *batchLayout   { return &p.batchLayout }
func (p *parallelGraph) learnableParams() []int { return p.workers[0].paramIndex }

func (p *parallelGraph) setRows(n int) {
	for k, w := range p.workers {
		w.weigh(min(max(n-p.offsets[k], 0), w.batch), n)
	}
	for k, buf := range p.bufs {
		clear(buf[n*p.widths[k]:])
	}
}

// run runs f on every worker at once, worker 0 on the calling goroutine,
// each other worker first copying worker 0's weights, and returns the
// first worker's error in worker order. Nothing writes the weights until
// the optimizer's step, so the copies run beside worker 0; they read the
// weights' buffers taken beforehand, because worker 0's machine rebinds
// its nodes' values while it runs.
func (p *parallelGraph) run(f func(k int, w *trainGraph) error) error {
	w0 := p.workers[0]
	weights := make([][]float32, len(w0.learnables))
	for i := range weights {
		weights[i] = w0.weights(i)
	}
	errs := make([]error, len(p.workers))
	var wg sync.WaitGroup
	for k, w := range p.workers[1:] {
		wg.Go(func() {
			for i := range w.learnables {
				copy(w.weights(i), weights[i])
			}
			errs[k+1] = f(k+1, w)
		})
	}
	errs[0] = f(0, w0)
	wg.Wait()
	for k, err := range errs {
		if err != nil {
			return fmt.Errorf("worker %d: %w", k, err)
		}
	}
	p.gather()
	return nil
}

// gather copies the workers' outputs and per-row losses into the batch's.
func (p *parallelGraph) gather() {
	out0 := p.workers[0].Outputs()
	width := len(out0) / p.workers[0].batch
	if p.out == nil {
		p.out = make([]float32, p.batch*width)
		p.rowLoss = make([]float32, p.batch)
	}
	for k, w := range p.workers {
		copy(p.out[p.offsets[k]*width:], w.Outputs())
		copy(p.rowLoss[p.offsets[k]:], w.RowLosses())
	}
}

func (p *parallelGraph) forwardBackward() (float64, error) {
	losses := make([]float64, len(p.workers))
	err := p.run(func(k int, w *trainGraph) error {
		var err error
		losses[k], err = w.forwardBackward()
		return err
	})
	if err != nil {
		return 0, err
	}
	grads := make([][][]float32, len(p.workers))
	for k, w := range p.workers {
		grads[k] = make([][]float32, len(w.learnables))
		for i := range w.learnables {
			if grads[k][i], err = w.grads(i); err != nil {
				return 0, err
			}
		}
	}
	sumGradients(grads)
	var loss float64
	for _, l := range losses {
		loss += l
	}
	return loss, nil
}

func (p *parallelGraph) forward() error {
	return p.run(func(_ int, w *trainGraph) error { return w.forward() })
}

func (p *parallelGraph) Inputs() [][]float32  { return p.bufs }
func (p *parallelGraph) Targets() []float32   { return p.ys }
func (p *parallelGraph) Outputs() []float32   { return p.out }
func (p *parallelGraph) RowLosses() []float32 { return p.rowLoss }

func (p *parallelGraph) weights(i int) []float32 { return p.workers[0].weights(i) }

func (p *parallelGraph) grads(i int) ([]float32, error) { return p.workers[0].grads(i) }

// span is values lo to hi of one learnable's buffers: the unit of work
// the optimizer's step and the workers' gradient sum spread over the
// cores.
type span struct{ learnable, lo, hi int }

// spanValues is the most values of a span: enough to outweigh handing it
// to a goroutine.
const spanValues = 1 << 14

// parallelValues is how many values a pass over every learnable needs
// before it is spread over the cores: below it (the thesis ANN's 8,385
// weights) the goroutines would cost more than they save.
const parallelValues = 1 << 15

// spans cuts buffers of the given lengths into spans.
func spans(lengths []int) []span {
	var out []span
	for i, n := range lengths {
		for lo := 0; lo < n; lo += spanValues {
			out = append(out, span{i, lo, min(lo+spanValues, n)})
		}
	}
	return out
}

// spanGoroutines is how many goroutines forSpans spreads all over, at
// most limit: one when the spans hold fewer than parallelValues values.
func spanGoroutines(all []span, limit int) int {
	values := 0
	for _, s := range all {
		values += s.hi - s.lo
	}
	if values < parallelValues {
		return 1
	}
	return max(1, min(limit, len(all)))
}

// forSpans runs f on every span, spread over goroutines goroutines
// (spanGoroutines). f must write only its span's values, so the results
// do not depend on how the spans were shared.
func forSpans(all []span, goroutines int, f func(span)) {
	if goroutines <= 1 {
		for _, s := range all {
			f(s)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range goroutines {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < len(all); i = int(next.Add(1) - 1) {
				f(all[i])
			}
		})
	}
	wg.Wait()
}

// sumGradients makes worker 0's gradients (grads[0][i] for learnable i)
// the batch's: the other workers' are added in worker order, then zeroed
// as the optimizer zeroes worker 0's. Spans of the values are summed side
// by side, as many goroutines as workers; each value is still one sum in
// worker order, so the result does not depend on how they were shared.
func sumGradients(grads [][][]float32) {
	lengths := make([]int, len(grads[0]))
	for i, g0 := range grads[0] {
		lengths[i] = len(g0)
	}
	all := spans(lengths)
	forSpans(all, spanGoroutines(all, len(grads)), func(s span) {
		g0 := grads[0][s.learnable][s.lo:s.hi]
		for _, worker := range grads[1:] {
			g := worker[s.learnable]
			if s.hi == len(grads[0][s.learnable]) {
				g = g[s.lo:] // a longer buffer is zeroed to its end
			} else {
				g = g[s.lo:s.hi]
			}
			for j, x := range g[:len(g0)] {
				g0[j] += x
			}
			clear(g)
		}
	})
}
