package family

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/dchess/dchess/dataset"
)

// EachRecord streams a split shuffled by the config's seed and the epoch, or
// in stored order.
func EachRecord(ctx context.Context, ds *dataset.Dataset, split dataset.Split, order StreamOrder, cfg *Config, fn func(*dataset.Record) error) error {
	if n := order.Streamed; n != nil {
		each := fn
		fn = func(r *dataset.Record) error {
			*n++
			return each(r)
		}
	}
	if order.Shuffled {
		return ds.Shuffled(ctx, split, cfg.Seed, order.Epoch, cfg.Data.ShuffleBuffer, fn)
	}
	return ds.Scan(ctx, split, fn)
}

// encodeChunk is how many records EachEncoded encodes side by side: a
// record takes microseconds, so a chunk outweighs handing it over.
const encodeChunk = 256

// EachEncoded streams a split as EachRecord does, with the costly part of
// turning a record into rows (parsing its position) spread over the
// cores: encode fills a slot from each record, the records of a chunk side
// by side, while the next chunk is read; emit then takes the slots one by
// one in stream order on the calling goroutine. encode must only read its
// record and write its slot, the whole of it (a slot is reused); emit does
// everything else (the sink, random draws), so the stream is the one
// EachRecord gives with encode and emit in one callback, order.Streamed
// counted as emit takes each record.
func EachEncoded[S any](ctx context.Context, ds *dataset.Dataset, split dataset.Split, order StreamOrder, cfg *Config,
	newSlot func() S, encode func(*dataset.Record, S), emit func(S) error) error {
	type chunk struct {
		recs  []*dataset.Record
		slots []S
	}
	newChunk := func() *chunk {
		c := &chunk{recs: make([]*dataset.Record, 0, encodeChunk), slots: make([]S, encodeChunk)}
		for i := range c.slots {
			c.slots[i] = newSlot()
		}
		return c
	}
	goroutines := runtime.GOMAXPROCS(0)
	encodeAll := func(c *chunk) {
		var next atomic.Int64
		var wg sync.WaitGroup
		for range min(goroutines, len(c.recs)) {
			wg.Go(func() {
				for i := int(next.Add(1) - 1); i < len(c.recs); i = int(next.Add(1) - 1) {
					encode(c.recs[i], c.slots[i])
				}
			})
		}
		wg.Wait()
	}
	streamed := order.Streamed
	order.Streamed = nil // counted as records are emitted, not read
	emitAll := func(c *chunk) error {
		for i := range c.recs {
			if streamed != nil {
				*streamed++
			}
			if err := emit(c.slots[i]); err != nil {
				return err
			}
		}
		return nil
	}
	// reading fills while encoding, when not nil, is encoded until done.
	reading, spare := newChunk(), newChunk()
	var encoding *chunk
	var done chan struct{}
	// finish waits for the chunk being encoded and emits it.
	finish := func() error {
		if encoding == nil {
			return nil
		}
		<-done
		c := encoding
		encoding, spare = nil, c
		return emitAll(c)
	}
	err := EachRecord(ctx, ds, split, order, cfg, func(r *dataset.Record) error {
		if reading.recs = append(reading.recs, r); len(reading.recs) < encodeChunk {
			return nil
		}
		if err := finish(); err != nil {
			return err
		}
		encoding, done = reading, make(chan struct{})
		go func(c *chunk, done chan struct{}) {
			encodeAll(c)
			close(done)
		}(encoding, done)
		reading, spare = spare, nil
		reading.recs = reading.recs[:0]
		return nil
	})
	if err != nil {
		if encoding != nil {
			<-done // its slots are not to be written once this returns
		}
		return err
	}
	if err := finish(); err != nil {
		return err
	}
	encodeAll(reading)
	return emitAll(reading)
}

// TrainRecords is the number of records in the train split, an upper bound
// on the positions the filter keeps.
func TrainRecords(man *dataset.Manifest) int64 {
	if man.Split != nil {
		return man.Split.Records.Train
	}
	return man.Counts.Records
}

// LabelledTrainRecords estimates the labelled records of the train split.
func LabelledTrainRecords(man *dataset.Manifest) int64 {
	if man.Split != nil && man.Counts.Records > 0 {
		return man.Split.Records.Train * man.Counts.Labelled / man.Counts.Records
	}
	return man.Counts.Labelled
}

// ValidationEpoch orders the validation pairs: the same pairs every epoch,
// so their accuracy is comparable from one epoch to the next.
const ValidationEpoch = -1
