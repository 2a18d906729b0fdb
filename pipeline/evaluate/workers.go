package evaluate

import (
	"context"
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

// itemsInFlight bounds, per worker, the items handed out and not yet
// merged: the results that wait for a slow item before them are held in
// memory.
const itemsInFlight = 4

// scoreInOrder scores the items produce emits on one goroutine per entry
// of score, and hands each result to merge in the order the items were
// emitted, so that every sum, list and per-item line comes out as with one
// worker. Each worker scores with its own function, over its own player
// or model: those keep state (tables, scratch buffers, an engine process)
// that one goroutine at a time may use. score gets the item's index in
// emission order.
//
// An item's error ends the run as with one worker: the items before it
// are merged, none after it. produce's own error (emit's when the run
// ends early) is returned once every item it emitted is merged.
func scoreInOrder[T, R any](ctx context.Context, score []func(ctx context.Context, i int, item T) (R, error),
	produce func(ctx context.Context, emit func(T) error) error, merge func(item T, res R) error) error {
	type slot struct {
		i    int
		item T
		res  R
		err  error
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	inFlight := make(chan struct{}, itemsInFlight*len(score))
	jobs := make(chan slot)
	results := make(chan slot, len(score))
	produced := make(chan error, 1)
	go func() {
		defer close(jobs)
		n := 0
		produced <- produce(ctx, func(item T) error {
			select {
			case inFlight <- struct{}{}:
			case <-ctx.Done():
				return ctx.Err()
			}
			select {
			case jobs <- slot{i: n, item: item}:
				n++
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		})
	}()
	var wg sync.WaitGroup
	for _, f := range score {
		wg.Go(func() {
			for s := range jobs {
				s.res, s.err = f(ctx, s.i, s.item)
				results <- s
			}
		})
	}
	go func() {
		wg.Wait()
		close(results)
	}()
	waiting := map[int]slot{}
	next := 0
	var err error
	for s := range results {
		if err != nil {
			continue // the run has failed: let the workers finish
		}
		waiting[s.i] = s
		for due, ok := waiting[next]; ok && err == nil; due, ok = waiting[next] {
			delete(waiting, next)
			next++
			<-inFlight
			if err = due.err; err == nil {
				err = merge(due.item, due.res)
			}
		}
		if err != nil {
			cancel()
		}
	}
	if err != nil {
		return err
	}
	return <-produced
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
