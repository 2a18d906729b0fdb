package ops

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// forTasks runs task(worker, i) for every i in [0, tasks), spread over at
// most GOMAXPROCS workers that take the next task as they finish one;
// worker (below workers(tasks)) indexes the caller's per-worker scratch.
// Tasks must write disjoint memory, so results do not depend on how many
// cores ran them.
func forTasks(tasks int, task func(worker, i int)) {
	workers := taskWorkers(tasks)
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
func taskWorkers(tasks int) int { return max(1, min(runtime.GOMAXPROCS(0), tasks)) }
