package train

import (
	"context"
	"errors"

	"github.com/dchess/dchess/dataset"
	"github.com/dchess/dchess/models/family"
)

// batchesAhead is how many batches the stream may have filled, or be
// filling, beyond the one the step trains on: encoding a record (a board
// parsed from its FEN) can cost more than ann's step, and a second buffer
// evens out the batches that take longer to fill.
const batchesAhead = 2

// filledBatch is a batch the stream filled, in buffers of its own.
type filledBatch struct {
	bufs [][]float32 // one per input, laid out as batchLayout.bufs
	ys   []float32
	batchMark
	// last marks the batch the stream ended with: its rows (maybe none)
	// are short of a batch, and err is how the stream ended.
	last bool
	err  error
}

// batchMark is a batch's rows and where the stream was when it filled
// it: seen counts the examples streamed up to its last (the skipped ones
// included), streamed the records read. A checkpoint taken after its step
// records them.
type batchMark struct {
	rows           int
	seen, streamed int64
}

func newFilledBatch(l *batchLayout) *filledBatch {
	b := &filledBatch{bufs: make([][]float32, len(l.bufs))}
	for i, buf := range l.bufs {
		b.bufs[i] = make([]float32, len(buf))
	}
	if l.ys != nil {
		b.ys = make([]float32, len(l.ys))
	}
	return b
}

// load copies b's rows into the buffers the graph reads; setRows clears
// the rest.
func (l *batchLayout) load(b *filledBatch) {
	for i, buf := range l.bufs {
		n := b.rows * l.widths[i]
		copy(buf[:n], b.bufs[i][:n])
	}
	if l.ys != nil {
		n := b.rows * (len(l.ys) / l.batch)
		copy(l.ys[:n], b.ys[:n])
	}
}

// errStreamStopped ends a stream whose batches are no longer wanted.
var errStreamStopped = errors.New("the step stopped taking batches")

// streamBatches streams split's examples into batches on a goroutine of
// its own and calls step with each full batch, loaded into the graph's
// buffers, on the calling goroutine, in stream order: the stream fills the
// next batches (at most batchesAhead) while the step trains on one. The
// stream is the objective's alone (its records, its order, its random
// draws, made in the same order on the one goroutine), so what each step
// trains on is what it was when the loop filled each batch before its
// step. The first skip examples are only counted; the stream ends after
// limit examples (0: no limit).
//
// When step returns an error the stream is stopped and the error
// returned. Otherwise the batch the stream ended with is loaded into the
// graph's buffers, not stepped, and its mark returned with the stream's
// error (none when it reached limit).
func (t *trainer) streamBatches(ctx context.Context, split dataset.Split, order family.StreamOrder, skip, limit int64,
	step func(batchMark) error) (batchMark, error) {
	layout := t.tg.layout()
	ready := make(chan *filledBatch, batchesAhead)
	free := make(chan *filledBatch, batchesAhead)
	for range batchesAhead {
		free <- newFilledBatch(layout)
	}
	stop, done := make(chan struct{}), make(chan struct{})
	streamCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	s := &batchSink{layout: layout, batch: <-free, skip: skip, limit: limit, streamed: order.Streamed,
		ready: ready, free: free, stop: stop}
	go func() {
		defer close(done)
		err := t.obj.Stream(streamCtx, t.ds, split, order, s)
		if errors.Is(err, errEnough) {
			err = nil
		}
		select {
		case <-stop: // s.batch may be the step's already
			return
		default:
		}
		s.mark()
		s.batch.last, s.batch.err = true, err
		select {
		case ready <- s.batch:
		case <-stop:
		}
	}()
	// The sink's counts are the stream goroutine's until it is done.
	defer func() { t.badRecords += s.rejected }()
	for {
		b := <-ready
		layout.load(b)
		mark := b.batchMark
		if b.last {
			<-done
			return mark, b.err
		}
		free <- b // the stream may fill it again while the step runs
		if err := step(mark); err != nil {
			close(stop)
			cancel()
			<-done
			return batchMark{}, err
		}
	}
}

// batchSink is the family.Sink a stream fills batches through: rows go
// into a batch of its own, and each full batch is handed to the step's
// goroutine for a free one.
type batchSink struct {
	layout *batchLayout // its shape only: its buffers are the step's
	batch  *filledBatch
	// seen counts the examples streamed; the first skip are only counted.
	seen, skip int64
	// limit ends the stream with errEnough after that many examples (0: none).
	limit    int64
	streamed *int64 // the stream's record count (nil: not counted)
	rejected int64
	ready    chan<- *filledBatch
	free     <-chan *filledBatch
	stop     <-chan struct{}
	ins      [][]float32
}

func (s *batchSink) Row() ([][]float32, []float32) {
	if s.ins == nil {
		s.ins = make([][]float32, len(s.layout.widths))
	}
	r := s.batch.rows
	for i, buf := range s.batch.bufs {
		w := s.layout.widths[i]
		s.ins[i] = buf[r*w : (r+1)*w]
	}
	var target []float32
	if tw := len(s.batch.ys) / s.layout.batch; tw > 0 {
		target = s.batch.ys[r*tw : (r+1)*tw]
	}
	return s.ins, target
}

func (s *batchSink) Add() error {
	s.seen++
	if s.seen <= s.skip {
		return nil
	}
	if s.batch.rows++; s.batch.rows == s.layout.batch {
		if err := s.handOver(); err != nil {
			return err
		}
	}
	if s.limit > 0 && s.seen >= s.limit {
		return errEnough
	}
	return nil
}

func (s *batchSink) Reject() { s.rejected++ }

// mark records where the stream is in the batch it fills.
func (s *batchSink) mark() {
	s.batch.seen = s.seen
	if s.streamed != nil {
		s.batch.streamed = *s.streamed
	}
}

// handOver queues the full batch for the step and takes a free one,
// waiting while the stream is batchesAhead ahead.
func (s *batchSink) handOver() error {
	s.mark()
	select {
	case s.ready <- s.batch:
	case <-s.stop:
		return errStreamStopped
	}
	select {
	case s.batch = <-s.free:
		s.batch.rows = 0
		return nil
	case <-s.stop:
		return errStreamStopped
	}
}
