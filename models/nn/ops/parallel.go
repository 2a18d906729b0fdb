package ops

import (
	"runtime"
	"sync"
	"sync/atomic"

	G "gorgonia.org/gorgonia"
)

// coreShare is how many goroutines one op's work may spread over: its
// limit, or GOMAXPROCS when the limit is 0 (the default). A training loop
// that runs several graphs side by side gives each graph a share of the
// cores (LimitCores): with as many graphs as cores, each op then runs on
// its graph's goroutine alone instead of splitting its work again and
// paying the goroutines' hand-over once more on every op.
type coreShare struct{ limit int }

// setCoreLimit is how LimitCores reaches the share of an op's state.
func (c *coreShare) setCoreLimit(cores int) { c.limit = cores }

// cores is the op's share: its limit, else GOMAXPROCS.
func (c *coreShare) cores() int {
	if c.limit > 0 {
		return c.limit
	}
	return runtime.GOMAXPROCS(0)
}

// coreLimited is every op whose work spreads over the cores.
type coreLimited interface{ setCoreLimit(cores int) }

// LimitCores caps every op of g that splits its work over the cores at
// cores goroutines (0: GOMAXPROCS, the default). Call it after the graph
// and its gradient are built, before a machine runs it. Every op's results
// are the same bits on any number of cores, so the cap changes speed
// only.
func LimitCores(g *G.ExprGraph, cores int) {
	for _, n := range g.AllNodes() {
		if op, ok := n.Op().(coreLimited); ok {
			op.setCoreLimit(cores)
		}
	}
}

// forTasks runs task(worker, i) for every i in [0, tasks), spread over at
// most cores() workers that take the next task as they finish one; worker
// (below taskWorkers(tasks)) indexes the caller's per-worker scratch.
// Tasks must write disjoint memory, so results do not depend on how many
// cores ran them.
func (c *coreShare) forTasks(tasks int, task func(worker, i int)) {
	workers := c.taskWorkers(tasks)
	if workers <= 1 {
		for i := range tasks {
			task(0, i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < tasks; i = int(next.Add(1) - 1) {
				task(w, i)
			}
		})
	}
	wg.Wait()
}

// taskWorkers is how many workers forTasks starts for tasks tasks.
func (c *coreShare) taskWorkers(tasks int) int { return max(1, min(c.cores(), tasks)) }
