package evaluate

import (
	"context"
	"errors"
	"iter"
	"runtime"
	"sync"

	"github.com/dchess/dchess/search/player"
)

// workerCount is how many workers score items: Options.Workers, where 0 is
// the cores the process may use (GOMAXPROCS), never more than items when
// it is known (above 0), so that no player is made that would score
// nothing.
func (o *Options) workerCount(items int64) int {
	n := o.Workers
	if n <= 0 {
		n = runtime.GOMAXPROCS(0)
	}
	if items > 0 {
		n = int(min(int64(n), items))
	}
	return max(n, 1)
}

// itemsAhead bounds, per worker, how far the items handed out may run
// ahead of the first one not yet merged: the results that wait for a slow
// item before them are held in memory.
const itemsAhead = 64

// errStopped ends produce when the run stops early.
var errStopped = errors.New("scoring stopped")

// scoreInOrder scores the items produce emits on one goroutine per entry
// of score, and hands each result to merge in the order the items were
// emitted, so that every sum, list and per-item line comes out as with one
// worker. Each worker scores with its own function, over its own player
// or model: those keep state (tables, scratch buffers, an engine process)
// that one goroutine at a time may use. score gets the item's index in
// emission order.
//
// The workers take the next item from produce and merge what is due
// themselves, one at a time under a lock, rather than through a producing
// and a merging goroutine: on a machine whose cores are busy, a hand-off
// between goroutines waits for the system to run the one woken, and one
// worker is a plain loop. merge and produce are never called concurrently.
//
// An item's error ends the run as with one worker: the items before it
// are merged, none after it. produce's own error is returned once every
// item it emitted is merged.
func scoreInOrder[T, R any](ctx context.Context, score []func(ctx context.Context, i int, item T) (R, error),
	produce func(ctx context.Context, emit func(T) error) error, merge func(item T, res R) error) error {
	type scored struct {
		item T
		res  R
		err  error
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var produced error
	next, stop := iter.Pull(func(yield func(T) bool) {
		produced = produce(ctx, func(item T) error {
			if !yield(item) {
				return errStopped
			}
			return nil
		})
	})
	defer stop()
	var (
		mu       sync.Mutex
		room     = sync.NewCond(&mu)
		handed   int // items taken from produce
		merged   int // items merged, in order
		waiting  = map[int]scored{}
		drained  bool // produce has returned
		failed   error
		maxAhead = itemsAhead * len(score)
	)
	var wg sync.WaitGroup
	for _, f := range score {
		wg.Go(func() {
			mu.Lock()
			defer mu.Unlock()
			for {
				for failed == nil && !drained && handed-merged >= maxAhead {
					room.Wait()
				}
				if failed != nil || drained {
					return
				}
				item, ok := next()
				if !ok {
					drained = true
					room.Broadcast()
					return
				}
				i := handed
				handed++
				mu.Unlock()
				res, err := f(ctx, i, item)
				mu.Lock()
				waiting[i] = scored{item, res, err}
				for due, ok := waiting[merged]; ok && failed == nil; due, ok = waiting[merged] {
					delete(waiting, merged)
					merged++
					if failed = due.err; failed == nil {
						failed = merge(due.item, due.res)
					}
				}
				if failed != nil {
					cancel()
				}
				room.Broadcast()
			}
		})
	}
	wg.Wait()
	if failed != nil {
		return failed
	}
	return produced
}

// emitIndices is a produce function for scoreInOrder over a list of n
// items read beforehand: it emits their indices.
func emitIndices(n int) func(ctx context.Context, emit func(int) error) error {
	return func(_ context.Context, emit func(int) error) error {
		for i := range n {
			if err := emit(i); err != nil {
				return err
			}
		}
		return nil
	}
}

// newPlayers makes n players of spec, one a worker. They are closed by
// the returned function.
func newPlayers(ctx context.Context, spec player.Spec, n int) ([]player.Player, func(), error) {
	var players []player.Player
	closeAll := func() {
		for _, p := range players {
			p.Close()
		}
	}
	for range n {
		p, err := player.NewFromSpec(ctx, spec)
		if err != nil {
			closeAll()
			return nil, nil, err
		}
		players = append(players, p)
	}
	return players, closeAll, nil
}

// newItem starts the item numbered i afresh on p, as a new game: no table
// entry carries over from the items the worker scored before, and a
// player that draws random moves draws them from a seed that is the
// item's, so its moves do not depend on which worker scored it.
func newItem(ctx context.Context, p player.Player, i int) error {
	if s, ok := p.(player.GameSeeder); ok {
		s.SeedGame(uint64(i))
	}
	return p.NewGame(ctx)
}
