package ingest

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dchess/dchess/dataset"
	"github.com/dchess/dchess/internal/chess/pgn"
)

// Batches bound the work in flight: at most batchUnits games (or lines)
// and about batchBytes of text each, and a few batches per worker queued.
const (
	batchUnits     = 64
	linesPerBatch  = 1024
	batchBytes     = 256 << 10
	batchesPerWork = 3
	recentKeys     = 1 << 20 // entries of the Dedupe table (8 MB)
)

// unit is one game (or one line) inside a batch's text.
type unit struct {
	start, end int
	number     int // game number (PGN) or line number
	line       int
	tooLong    bool
	// plain and binpack: closed says the entry ended with its "e" line, bad
	// is why the binpack reader stopped, game is the entry's game ID
	// (see chainer).
	closed bool
	bad    string
	game   uint64
}

// outcome is what a worker made of a unit.
type outcome struct {
	records []dataset.Record
	skip    skipKind
	// err rejects the unit; warn is reported but the unit is kept.
	err, warn error
	// counted says the unit is a game or a data line (not a blank,
	// comment or header line), so it counts as read.
	counted bool
}

type batch struct {
	text  []byte
	units []unit
	out   []outcome
	done  chan struct{}
}

// splitFunc fills a batch from the input; it returns io.EOF when the input
// is exhausted (the batch may still hold units).
type splitFunc func(b *batch) error

// decoder turns one unit of a batch into an outcome. Each worker has its own.
type decoder interface {
	decode(b *batch, u *unit) outcome
}

// Run reads every input in order and writes the kept records to sink in
// input order. Bad games and lines are counted and reported in the Summary;
// with Strict the first one ends the run with an error. stdin is read for
// the input "-".
func Run(ctx context.Context, inputs []string, stdin io.Reader, opts Options, sink Sink) (*Summary, error) {
	if err := opts.Check(); err != nil {
		return nil, err
	}
	if opts.Format == "" {
		opts.Format = FormatPGN
	}
	if opts.Workers == 0 {
		opts.Workers = runtime.GOMAXPROCS(0)
	}
	began := time.Now()
	sum := &Summary{Format: string(opts.Format), Inputs: len(inputs), FirstErrors: []string{}}
	r := &runner{opts: &opts, sink: sink, sum: sum, prefix: len(inputs) > 1}
	if opts.Dedupe {
		r.recent = make([]uint64, recentKeys)
	}
	var err error
	var empty []*NoRecordsError
	for _, name := range inputs {
		before := *sum
		r.firstErr = ""
		if err = r.input(ctx, name, stdin); err != nil || r.stopped {
			break
		}
		if sum.Positions == before.Positions {
			e := r.noRecords(name, &before)
			if opts.Strict {
				err = fmt.Errorf("%w (stopping: --strict)", e)
				break
			}
			empty = append(empty, e)
		}
	}
	err = r.checkYield(err, empty)
	sum.Bytes += r.read.Load()
	sum.Seconds = time.Since(began).Seconds()
	if dc, ok := sink.(DuplicateCounter); ok && sum.Duplicates > 0 {
		dc.CountDroppedDuplicates(sum.Duplicates)
	}
	return sum, err
}

type runner struct {
	opts *Options
	// recent holds the keys last written, direct-mapped by key, for Dedupe.
	recent  []uint64
	sink    Sink
	sum     *Summary
	prefix  bool // name the file in error messages
	read    atomic.Int64
	stopped bool // MaxGames reached
	// chain gives plain and binpack entries their game IDs, across inputs.
	chain chainer
	// firstErr is the first problem reported in the current input.
	firstErr string
}

// input runs the split → decode → ordered write pipeline over one input.
func (r *runner) input(ctx context.Context, name string, stdin io.Reader) error {
	in, closeIn, err := openInput(name, stdin, &r.read)
	if err != nil {
		return err
	}
	defer closeIn()
	var split splitFunc
	newDecoder := func() decoder { return &gameDecoder{conv: newGameConverter(r.opts)} }
	switch r.opts.Format {
	case FormatPGN:
		split = pgnSplitter(in)
	case FormatPuzzles:
		// The header says which column is which, for every worker.
		br := bufio.NewReaderSize(in, 1<<20)
		cols, err := readPuzzleHeader(br)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		split = lineSplitter(br, 1)
		newDecoder = func() decoder { return &puzzleDecoder{opts: r.opts, cols: cols} }
	case FormatPlain:
		split = plainSplitter(in, &r.chain)
		newDecoder = func() decoder { return newLineDecoder(r.opts) }
	case FormatBinpack:
		split = binpackSplitter(in, &r.chain)
		newDecoder = func() decoder { return newLineDecoder(r.opts) }
	default:
		split = lineSplitter(in, 0)
		newDecoder = func() decoder { return newLineDecoder(r.opts) }
	}

	parent := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	workers := r.opts.Workers
	jobs := make(chan *batch, workers)
	ordered := make(chan *batch, workers*batchesPerWork)
	var splitErr error
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(jobs)
		defer close(ordered)
		for {
			b := &batch{done: make(chan struct{})}
			err := split(b)
			if len(b.units) > 0 {
				// ordered first: its capacity is what bounds memory.
				select {
				case ordered <- b:
				case <-ctx.Done():
					return
				}
				select {
				case jobs <- b:
				case <-ctx.Done():
					return
				}
			}
			if err != nil {
				if err != io.EOF {
					splitErr = err
				}
				return
			}
		}
	}()
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			dec := newDecoder()
			for b := range jobs {
				b.out = make([]outcome, len(b.units))
				for i := range b.units {
					b.out[i] = dec.decode(b, &b.units[i])
				}
				close(b.done)
			}
		}()
	}

	var runErr error
consume:
	for b := range ordered {
		select {
		case <-b.done:
		case <-ctx.Done():
			runErr = ctx.Err()
			break consume
		}
		for i := range b.out {
			if err := r.take(name, &b.out[i]); err != nil {
				runErr = err
				break consume
			}
			if r.stopped {
				break consume
			}
		}
		if r.opts.Progress != nil {
			r.opts.Progress(r.progress())
		}
	}
	cancel()
	for range ordered { // let the splitter see the cancellation and stop
	}
	wg.Wait()
	if runErr == nil && splitErr != nil {
		runErr = fmt.Errorf("reading %s: %w", name, splitErr)
	}
	if runErr == nil && parent.Err() != nil {
		runErr = parent.Err()
	}
	if errors.Is(runErr, context.Canceled) && r.stopped && parent.Err() == nil {
		runErr = nil
	}
	return runErr
}

func (r *runner) progress() Progress {
	s := r.sum
	return Progress{
		Bytes:     s.Bytes + r.read.Load(),
		Games:     s.GamesRead + s.LinesRead,
		Skipped:   s.GamesSkipped + s.LinesBad + s.LinesFiltered,
		Positions: s.Positions,
	}
}

// take counts one outcome and writes its records, in input order.
func (r *runner) take(name string, o *outcome) error {
	s := r.sum
	games := r.opts.Format == FormatPGN
	if o.counted {
		if games {
			s.GamesRead++
		} else {
			s.LinesRead++
		}
	}
	for _, e := range []error{o.err, o.warn} {
		if e == nil {
			continue
		}
		msg := e.Error()
		if r.firstErr == "" {
			r.firstErr = msg
		}
		if r.prefix {
			msg = name + ": " + msg
		}
		if r.opts.Strict {
			return fmt.Errorf("%s (stopping: --strict)", msg)
		}
		s.Errors++
		if len(s.FirstErrors) < MaxReportedErrors {
			s.FirstErrors = append(s.FirstErrors, msg)
		}
	}
	if !o.counted {
		return nil
	}
	if o.skip != kept || len(o.records) == 0 {
		if games {
			s.GamesSkipped++
			switch o.skip {
			case skipMalformed:
				s.SkippedMalformed++
			case skipIllegal:
				s.SkippedIllegal++
			case skipVariant:
				s.SkippedVariant++
			default:
				s.SkippedFiltered++
			}
		} else if o.skip == skipFiltered {
			s.LinesFiltered++
		} else {
			s.LinesBad++
		}
		return nil
	}
	for i := range o.records {
		rec := &o.records[i]
		if rec.Label != nil {
			s.Labelled++
		}
		if r.recent != nil && rec.Key != 0 {
			slot := &r.recent[rec.Key&(recentKeys-1)]
			if *slot == rec.Key {
				s.Duplicates++
				continue
			}
			*slot = rec.Key
		}
		if err := r.sink.Write(rec); err != nil {
			return err
		}
	}
	s.Positions += int64(len(o.records))
	if games {
		s.GamesKept++
		if r.opts.MaxGames > 0 && s.GamesKept >= int64(r.opts.MaxGames) {
			r.stopped, s.StoppedAtMaxGames = true, true
		}
	} else {
		s.LinesKept++
		if r.opts.MaxGames > 0 && s.LinesKept >= int64(r.opts.MaxGames) {
			r.stopped, s.StoppedAtMaxGames = true, true
		}
	}
	return nil
}

// pgnSplitter cuts games from the stream into batches.
func pgnSplitter(in io.Reader) splitFunc {
	sp := pgn.NewSplitter(in)
	return func(b *batch) error {
		b.text = make([]byte, 0, batchBytes+batchBytes/4)
		for len(b.units) < batchUnits && len(b.text) < batchBytes {
			var raw pgn.RawGame
			var err error
			b.text, raw, err = sp.Next(b.text)
			if err != nil {
				return err
			}
			b.units = append(b.units, unit{start: raw.Start, end: raw.End, number: raw.Number, line: raw.Line, tooLong: raw.TooLong})
		}
		return nil
	}
}

type gameDecoder struct{ conv *gameConverter }

func (d *gameDecoder) decode(b *batch, u *unit) outcome {
	if u.tooLong {
		return outcome{counted: true, skip: skipMalformed, err: &pgn.Error{Game: u.number, Line: u.line, Reason: pgn.ErrTooLong.Error()}}
	}
	g, err := pgn.Parse(b.text[u.start:u.end], u.number, u.line)
	if g == nil {
		skip := skipMalformed
		if errors.Is(err, pgn.ErrNotStandardChess) {
			skip = skipVariant
		}
		return outcome{counted: true, skip: skip, err: err}
	}
	recs, skip, cerr := d.conv.convert(g)
	warn := err
	if warn == nil && d.conv.warn != nil {
		warn = d.conv.warn
	}
	return outcome{counted: true, records: recs, skip: skip, err: cerr, warn: warn}
}

// lineSplitter cuts a file of labelled positions into batches of lines;
// skipped lines were read before (a header), so numbering goes on after them.
func lineSplitter(in io.Reader, skipped int) splitFunc {
	br := bufio.NewReaderSize(in, 1<<20)
	lineNo := skipped
	var long []byte
	return func(b *batch) error {
		b.text = make([]byte, 0, batchBytes+batchBytes/4)
		for len(b.units) < linesPerBatch && len(b.text) < batchBytes {
			line, err := br.ReadSlice('\n')
			tooLong := false
			if err == bufio.ErrBufferFull {
				long = append(long[:0], line...)
				for err == bufio.ErrBufferFull {
					line, err = br.ReadSlice('\n')
					long = append(long, line...)
					if len(long) > pgn.MaxGameBytes {
						tooLong = true
						long = long[:0]
					}
				}
				line = long
			}
			if len(line) > 0 {
				lineNo++
				u := unit{start: len(b.text), number: lineNo, line: lineNo, tooLong: tooLong}
				b.text = append(b.text, line...)
				u.end = len(b.text)
				b.units = append(b.units, u)
			}
			if err != nil {
				return err
			}
		}
		return nil
	}
}
