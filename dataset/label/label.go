// Package label labels a dataset's positions with Stockfish over UCI:
// several single-threaded engine processes in parallel, a fresh hash per
// position so runs repeat, a journal so an interrupted run resumes without
// losing or recomputing labels, and an atomic write of the output dataset.
package label

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/dchess/dchess/dataset"
	"github.com/dchess/dchess/internal/chess/uci"
	"github.com/dchess/dchess/internal/jobarray"
)

// DefaultDepth is the search depth when no limit is given.
const DefaultDepth = 8

// DefaultMaxFailures tolerates the odd unlabellable position but not an
// engine or input that fails wholesale.
const DefaultMaxFailures = "1%"

// Options say what to label and how.
type Options struct {
	Stockfish string // path of the engine
	Input     string // dataset folder to label
	Output    string // dataset folder to write; must differ from Input
	// At most one limit; none means DefaultDepth.
	Depth    int
	Nodes    int64
	MoveTime time.Duration
	// Workers is the number of engine processes (0: one per core).
	Workers int
	// Hash is each engine's hash table in MB (0: 16).
	Hash int
	// PV keeps the principal variation up to PV moves (0: none).
	PV int
	// MultiPV > 1 also stores lines 2..MultiPV in Label.MultiPV.
	MultiPV int
	// Timeout bounds one search before the engine is restarted (0: derived
	// from the limit, see positionTimeout).
	Timeout time.Duration
	// Command is the argv recorded in the output manifest.
	Command []string
	// Force replaces an existing dataset at Output.
	Force bool
	// MaxFailures is how many failed labels a run accepts, a count ("20")
	// or a share of its records ("1%"); "" means DefaultMaxFailures. Past
	// it no output is written (the journal keeps every label) and Run
	// fails saying how many failed.
	MaxFailures string
	// Shard, when its Count is above 0, labels one task's share of the
	// input: the records whose position key it owns (jobarray.Spec.Owns), in
	// input order. Output is then that task's folder (jobarray.Name), and its
	// manifest records a jobarray.Info under settings "shard" for
	// dataset.MergeShards. A finished shard with the same settings is not
	// labelled again. The zero Spec labels the whole input as before.
	Shard jobarray.Spec
}

// Progress is reported after every finished position.
type Progress struct {
	Done    int64 // positions with a label, including Resumed
	Total   int64
	Failed  int64 // labels with LabelFailed, including resumed ones
	Resumed int64 // labels taken from an earlier run's journal
}

// Summary describes a run.
type Summary struct {
	Input    string `json:"input"`
	Output   string `json:"output"`
	Engine   string `json:"engine"`
	Records  int64  `json:"records"`
	Labelled int64  `json:"labelled"` // labels computed by this run
	Resumed  int64  `json:"resumed"`  // labels taken from an interrupted run's journal
	Failed   int64  `json:"failed"`   // records with LabelFailed in the output
	Restarts int    `json:"engine_restarts"`
	// Shard is "i/n" for a sharded run; Skipped says that its output was
	// already finished with the same settings, so nothing was done.
	Shard   string `json:"shard,omitempty"`
	Skipped bool   `json:"skipped,omitempty"`
	// Seconds is the wall time of this run, PositionsPerSecond the rate of
	// the labels it computed.
	Seconds            float64 `json:"seconds"`
	PositionsPerSecond float64 `json:"positions_per_second"`
}

// config is Options resolved: defaults applied, limits in UCI form.
type config struct {
	stockfish string
	limits    uci.Limits
	hash      int
	pv        int
	workers   int
	timeout   time.Duration
	// maxFailures of records failed are accepted.
	maxFailures failureLimit
}

// failureLimit is a parsed MaxFailures: a count, or a percentage of the
// records when percent is set.
type failureLimit struct {
	count   int64
	percent float64
	text    string
}

func parseFailureLimit(s string) (failureLimit, error) {
	if s == "" {
		s = DefaultMaxFailures
	}
	bad := fmt.Errorf("max failures %q: want a count (20) or a percentage of the positions (1%%)", s)
	if p, ok := strings.CutSuffix(s, "%"); ok {
		v, err := strconv.ParseFloat(p, 64)
		if err != nil || v < 0 || v > 100 || math.IsNaN(v) {
			return failureLimit{}, bad
		}
		return failureLimit{percent: v, count: -1, text: s}, nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return failureLimit{}, bad
	}
	return failureLimit{count: n, text: s}, nil
}

// allows says whether failed of records failed labels are within the limit.
func (f failureLimit) allows(failed, records int64) bool {
	if f.count >= 0 {
		return failed <= f.count
	}
	return float64(failed) <= f.percent/100*float64(records)
}

func resolve(o Options) (config, error) {
	limits := 0
	for _, set := range []bool{o.Depth > 0, o.Nodes > 0, o.MoveTime > 0} {
		if set {
			limits++
		}
	}
	switch {
	case o.Stockfish == "":
		return config{}, errors.New("no engine given (--stockfish)")
	case o.Input == "" || o.Output == "":
		return config{}, errors.New("an input and an output dataset are needed")
	case limits > 1:
		return config{}, errors.New("give at most one of depth, nodes and movetime")
	case o.Depth < 0 || o.Nodes < 0 || o.MoveTime < 0 || o.Workers < 0 || o.Hash < 0 || o.PV < 0 || o.MultiPV < 0 || o.Timeout < 0:
		return config{}, errors.New("limits, workers, hash, pv, multipv and timeout must not be negative")
	case o.MoveTime > 0 && o.MoveTime < time.Millisecond:
		return config{}, errors.New("movetime must be at least 1 ms")
	}
	if limits == 0 {
		o.Depth = DefaultDepth
	}
	maxFailures, err := parseFailureLimit(o.MaxFailures)
	if err != nil {
		return config{}, err
	}
	c := config{
		stockfish: o.Stockfish,
		limits:    uci.Limits{Depth: int64(o.Depth), Nodes: o.Nodes, MoveTime: o.MoveTime.Milliseconds(), MultiPV: max(o.MultiPV, 1)},
		hash:      o.Hash,
		pv:        o.PV,
		workers:   o.Workers,
		timeout:   o.Timeout,
	}
	c.maxFailures = maxFailures
	if c.hash == 0 {
		c.hash = 16
	}
	if c.workers == 0 {
		c.workers = runtime.NumCPU()
	}
	if c.timeout == 0 {
		c.timeout = positionTimeout(o.Depth, o.Nodes, o.MoveTime)
	}
	return c, nil
}

func sameDir(a, b string) bool {
	absA, errA := filepath.Abs(a)
	absB, errB := filepath.Abs(b)
	return errA == nil && errB == nil && absA == absB
}

// fingerprint identifies the input's contents by its shard checksums.
func fingerprint(m *dataset.Manifest) string { return dataset.Fingerprint(m) }

// source is the part of the input a run labels: all of it, or the records
// one shard owns.
type source struct {
	in      *dataset.Dataset
	shard   jobarray.Spec
	records int64 // records in the part
}

func newSource(ctx context.Context, in *dataset.Dataset, spec jobarray.Spec) (*source, error) {
	src := &source{in: in, shard: spec, records: in.Manifest().Counts.Records}
	if spec.Whole() {
		return src, nil
	}
	src.records = 0
	err := src.scan(ctx, func(*dataset.Record, uint64) error {
		src.records++
		return nil
	})
	return src, err
}

// scan calls fn with each record of the part and its position key, in
// input order.
func (s *source) scan(ctx context.Context, fn func(r *dataset.Record, key uint64) error) error {
	return s.in.Scan(ctx, dataset.AllSplits, func(r *dataset.Record) error {
		key := r.Key
		if key == 0 {
			key = dataset.PositionKey(r.FEN)
		}
		if !s.shard.Owns(key) {
			return nil
		}
		return fn(r, key)
	})
}

// shardSettings are what a shard's labels depend on, for its settings
// hash: every shard of one job must agree on them.
func shardSettings(cfg *config, inputFingerprint string, inputRecords int64, count int) map[string]any {
	return map[string]any{
		"input_sha256":  inputFingerprint,
		"input_records": inputRecords,
		"depth":         cfg.limits.Depth,
		"nodes":         cfg.limits.Nodes,
		"movetime_ms":   cfg.limits.MoveTime,
		"hash_mb":       cfg.hash,
		"threads":       1,
		"pv":            cfg.pv,
		"multipv":       cfg.limits.MultiPV,
		"tasks":         count,
	}
}

// finishedShard returns the manifest of a finished shard at dir with this
// settings hash, or nil.
func finishedShard(dir string, spec jobarray.Spec, hash string) *dataset.Manifest {
	d, err := dataset.Open(dir)
	if err != nil {
		return nil
	}
	m := d.Manifest()
	info, err := jobarray.InfoFrom(m.Settings["shard"])
	if err != nil || info.SettingsHash != hash || info.Index != spec.Index || info.Count != spec.Count {
		return nil
	}
	return m
}

// Run labels every record of opts.Input into opts.Output, resuming the
// journal of an interrupted run with the same settings. progress, if not
// nil, is called from one goroutine after each label. When ctx ends, the
// positions being searched are finished and journalled and Run returns an
// error (matching ctx.Err()) that says how to resume.
func Run(ctx context.Context, opts Options, progress func(Progress)) (Summary, error) {
	started := time.Now()
	cfg, err := resolve(opts)
	if err != nil {
		return Summary{}, err
	}
	if sameDir(opts.Input, opts.Output) {
		return Summary{}, errors.New("the output dataset must differ from the input")
	}
	in, err := dataset.Open(opts.Input)
	if err != nil {
		return Summary{}, err
	}
	sharded := opts.Shard.Count > 0
	var info jobarray.Info
	if sharded {
		settings := shardSettings(&cfg, fingerprint(in.Manifest()), in.Manifest().Counts.Records, opts.Shard.Count)
		info = jobarray.NewInfo(opts.Shard, opts.Command, settings)
		info.Inputs = []jobarray.Input{{Path: opts.Input, SHA256: fingerprint(in.Manifest())}}
		if m := finishedShard(opts.Output, opts.Shard, info.SettingsHash); m != nil {
			return Summary{Input: opts.Input, Output: opts.Output, Records: m.Counts.Records, Failed: m.Counts.Failed,
				Shard: opts.Shard.String(), Skipped: true, Seconds: time.Since(started).Seconds()}, nil
		}
	}
	src, err := newSource(ctx, in, opts.Shard)
	if err != nil {
		return Summary{}, err
	}
	// Fail now, not after hours of labelling, if the output cannot be written.
	probe, err := dataset.Create(opts.Output, dataset.WriteOptions{Replace: opts.Force})
	if err != nil {
		return Summary{}, err
	}
	probe.Abort()

	total := src.records
	workers, err := startWorkers(ctx, &cfg, int(min(int64(cfg.workers), max(total, 1))))
	defer func() {
		for _, w := range workers {
			w.close()
		}
	}()
	if err != nil {
		return Summary{}, err
	}
	engineName := workers[0].engine.Name()
	if sharded {
		if info.Bench, err = workers[0].signature(); err != nil {
			return Summary{}, err
		}
	}
	settings := journalSettings{
		Version:          journalVersion,
		InputFingerprint: fingerprint(in.Manifest()),
		InputRecords:     total,
		Shard:            shardText(opts.Shard),
		Engine:           engineName,
		Depth:            int(cfg.limits.Depth),
		Nodes:            cfg.limits.Nodes,
		MoveTimeMs:       cfg.limits.MoveTime,
		Hash:             cfg.hash,
		PV:               cfg.pv,
		MultiPV:          cfg.limits.MultiPV,
		Window:           max(minWindow, int64(windowPerWorker*cfg.workers)),
	}
	j, err := openJournal(partialDir(opts.Output), settings)
	if err != nil {
		return Summary{}, err
	}
	defer j.close()

	sum := Summary{Input: opts.Input, Output: opts.Output, Engine: engineName, Records: total, Resumed: j.resumed, Shard: shardText(opts.Shard)}
	// Engines beyond the work left would only idle.
	remaining := max(total-j.resumed, 1)
	for int64(len(workers)) > remaining {
		workers[len(workers)-1].close()
		workers = workers[:len(workers)-1]
	}
	active := workers

	labelStart := time.Now()
	stats, runErr := dispatch(ctx, src, j, active, progress)
	sum.Labelled, sum.Failed = stats.labelled, stats.failed
	for _, w := range active {
		sum.Restarts += w.restarts
	}
	if secs := time.Since(labelStart).Seconds(); secs > 0 {
		sum.PositionsPerSecond = float64(sum.Labelled) / secs
	}
	finish := func() { sum.Seconds = time.Since(started).Seconds() }
	if runErr == nil && j.resumed+stats.labelled != total {
		runErr = fmt.Errorf("labelled %d of %d records", j.resumed+stats.labelled, total)
	}
	if runErr != nil {
		finish()
		if ctx.Err() != nil && errors.Is(runErr, ctx.Err()) {
			return sum, &interruptedError{cause: runErr, msg: fmt.Sprintf(
				"interrupted with %d of %d positions labelled, kept in %s: run the same command again to resume",
				j.resumed+stats.labelled, total, j.dir)}
		}
		return sum, fmt.Errorf("%w (the %d labels so far are kept in %s; run the same command again to resume)", runErr, j.resumed+stats.labelled, j.dir)
	}
	for _, w := range active {
		w.close()
	}
	if !cfg.maxFailures.allows(sum.Failed, total) {
		finish()
		return sum, fmt.Errorf("%d of %d positions failed to label, more than max failures %s allows (first: %s); "+
			"no output was written, the labels are kept in %s: rerun with a higher limit to write them",
			sum.Failed, total, cfg.maxFailures.text, stats.firstFailureOr("in an earlier run"), j.dir)
	}
	var shardInfo *jobarray.Info
	if sharded {
		info.Engines = []string{engineName}
		shardInfo = &info
	}
	if err := writeOutput(ctx, src, j, opts, engineName, shardInfo); err != nil {
		finish()
		return sum, err
	}
	finish()
	return sum, nil
}

// shardText is the journal's and summary's record of a shard, "" for an
// unsharded run.
func shardText(s jobarray.Spec) string {
	if s.Count == 0 {
		return ""
	}
	return s.String()
}

// interruptedError reads as a short how-to-resume line but still matches
// the context's error under errors.Is.
type interruptedError struct {
	msg   string
	cause error
}

func (e *interruptedError) Error() string { return e.msg }
func (e *interruptedError) Unwrap() error { return e.cause }

// startWorkers starts n engines at once: Stockfish takes a noticeable
// fraction of a second to load its network, and a short run should not pay
// that n times over.
func startWorkers(ctx context.Context, cfg *config, n int) ([]*worker, error) {
	workers := make([]*worker, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range workers {
		workers[i] = &worker{cfg: cfg}
		wg.Go(func() { errs[i] = workers[i].start(ctx) })
	}
	wg.Wait()
	// The first failure is enough: the others are usually the same one.
	for _, err := range errs {
		if err != nil {
			return workers, err
		}
	}
	return workers, nil
}

// dispatchStats are what dispatch counted.
type dispatchStats struct {
	labelled int64 // labels computed and journalled by this run
	failed   int64 // failed labels, resumed ones included
	seen     int64 // input records read
	// firstFailure is why the first label this run failed, failed.
	firstFailure string
}

func (s dispatchStats) firstFailureOr(otherwise string) string {
	if s.firstFailure == "" {
		return otherwise
	}
	return s.firstFailure
}

// batchEntries and flushEvery bound how many finished labels a kill can
// lose; syncEvery bounds what a machine crash can lose.
const (
	batchEntries = 32
	flushEvery   = 200 * time.Millisecond
	syncEvery    = 2 * time.Second
)

// dispatch reads the input in order, hands unlabelled records to the
// workers within the journal's window and journals their labels. It owns
// all bookkeeping in one goroutine.
func dispatch(ctx context.Context, src *source, j *journal, workers []*worker, progress func(Progress)) (dispatchStats, error) {
	stats := dispatchStats{failed: j.failed}
	total := src.records
	report := func() {
		if progress != nil {
			progress(Progress{Done: j.resumed + stats.labelled, Total: total, Failed: stats.failed, Resumed: j.resumed})
		}
	}
	report()

	// The reader streams records not yet labelled; it stops when quit closes.
	readCtx, quit := context.WithCancel(context.Background())
	defer quit()
	records := make(chan job, 256)
	readErr := make(chan error, 1)
	var seen int64
	go func() {
		defer close(records)
		var index uint64
		err := src.scan(readCtx, func(r *dataset.Record, key uint64) error {
			i := index
			index++
			if j.done.has(i) {
				return nil
			}
			select {
			case records <- job{index: i, key: key, fen: r.FEN}:
				return nil
			case <-readCtx.Done():
				return readCtx.Err()
			}
		})
		seen = int64(index)
		readErr <- err
	}()

	jobs := make(chan job)
	results := make(chan result, len(workers))
	for _, w := range workers {
		go func() {
			for jb := range jobs {
				results <- w.label(ctx, jb)
			}
		}()
	}

	var (
		window    = uint64(j.settings.Window)
		inFlight  []uint64 // dispatched indices, oldest first; finished ones popped lazily
		finished  = map[uint64]bool{}
		running   int
		next      *job
		skipped   int
		inputDone bool
		stopping  bool
		failure   error // why the run stops early
		writeErr  error // the journal could not be written
		batch     []byte
		batchN    int
		lastSync  = time.Now()
	)
	flush := func(sync bool) {
		if writeErr != nil {
			return
		}
		if batchN > 0 {
			writeErr = j.append(batch)
			batch, batchN = batch[:0], 0
		}
		if sync && writeErr == nil {
			if err := j.sync(); err != nil {
				writeErr = fmt.Errorf("journal %s: %w", j.dir, err)
			}
			lastSync = time.Now()
		}
	}
	stop := func(err error) {
		if !stopping {
			stopping = true
			quit()
			if failure == nil {
				failure = err
			}
		}
	}
	ticker := time.NewTicker(flushEvery)
	defer ticker.Stop()
	jobsOpen := true
	interrupted := ctx.Done()
	for {
		if stopping && jobsOpen {
			close(jobs)
			jobsOpen = false
		}
		if running == 0 && (stopping || (inputDone && next == nil)) {
			break
		}
		// Offer the next record only within the window behind the oldest
		// unfinished one.
		var sendJobs chan job
		if !stopping && next != nil && (len(inFlight) == 0 || next.index-inFlight[0] < window) {
			sendJobs = jobs
		}
		var recv <-chan job
		if !stopping && next == nil && !inputDone {
			recv = records
		}
		var sendJob job
		if next != nil {
			sendJob = *next
		}
		select {
		case jb, ok := <-recv:
			if !ok {
				inputDone = true
				if err := <-readErr; err != nil {
					stop(err)
				}
				continue
			}
			next = &jb
		case sendJobs <- sendJob:
			inFlight = append(inFlight, next.index)
			running++
			next = nil
		case res := <-results:
			running--
			if res.fatal != nil {
				stop(res.fatal)
				continue
			}
			finished[res.entry.Index] = true
			for len(inFlight) > 0 && finished[inFlight[0]] {
				delete(finished, inFlight[0])
				inFlight = inFlight[1:]
			}
			if res.skipped {
				skipped++
				continue
			}
			batch = appendEntry(batch, &res.entry)
			batchN++
			stats.labelled++
			if res.entry.Label.Status == dataset.LabelFailed {
				stats.failed++
				if stats.firstFailure == "" {
					stats.firstFailure = res.entry.Label.Error
				}
			}
			if batchN >= batchEntries {
				flush(false)
				if writeErr != nil {
					stop(writeErr)
				}
			}
			report()
		case <-ticker.C:
			flush(time.Since(lastSync) >= syncEvery)
			if writeErr != nil {
				stop(writeErr)
			}
		case <-interrupted:
			interrupted = nil // seen once; the select must not spin on it
			stop(ctx.Err())
		}
	}
	if jobsOpen {
		close(jobs)
	}
	flush(true)
	if writeErr != nil {
		return stats, writeErr
	}
	if skipped > 0 && failure == nil {
		// Workers saw the interrupt before this loop did.
		failure = ctx.Err()
	}
	if failure == nil {
		// A normal end: the reader has finished, so seen is final.
		stats.seen = seen
		if stats.seen != total {
			return stats, fmt.Errorf("input %s holds %d records to label, it held %d when the run began", src.in.Dir(), stats.seen, total)
		}
	}
	return stats, failure
}

// writeOutput writes the output dataset from the input and the journal,
// then removes the journal. A shard's info goes into its settings.
func writeOutput(ctx context.Context, src *source, j *journal, opts Options, engineName string, info *jobarray.Info) error {
	lookup, err := newLabelLookup(j.file.Name(), j.settings.Window)
	if err != nil {
		return err
	}
	defer lookup.close()
	m := src.in.Manifest()
	settings := map[string]any{}
	for k, v := range m.Settings {
		settings[k] = v
	}
	settings["label"] = map[string]any{
		"input":       opts.Input,
		"engine":      engineName,
		"depth":       j.settings.Depth,
		"nodes":       j.settings.Nodes,
		"movetime_ms": j.settings.MoveTimeMs,
		"hash_mb":     j.settings.Hash,
		"threads":     1,
		"pv":          j.settings.PV,
		"multipv":     j.settings.MultiPV,
	}
	if info != nil {
		settings["shard"] = info
	}
	w, err := dataset.Create(opts.Output, dataset.WriteOptions{Command: opts.Command, Settings: settings, Sources: m.Sources, Replace: opts.Force})
	if err != nil {
		return err
	}
	var index uint64
	err = src.scan(ctx, func(r *dataset.Record, key uint64) error {
		e, err := lookup.find(index)
		if err != nil {
			return err
		}
		if e.Key != key {
			return fmt.Errorf("journal %s: label %d belongs to another position (was the input changed?)", j.dir, index)
		}
		index++
		l := e.Label
		l.Engine = engineName
		r.Label = &l
		return w.Write(r)
	})
	if err != nil {
		w.Abort()
		if ctx.Err() != nil {
			return &interruptedError{cause: err, msg: fmt.Sprintf(
				"interrupted while writing %s; all labels are kept in %s: run the same command again to finish", opts.Output, j.dir)}
		}
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	return j.remove()
}
