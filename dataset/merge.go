package dataset

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"iter"
	"path/filepath"
	"time"

	"github.com/dchess/dchess/internal/jobarray"
)

// Fingerprint identifies a dataset's contents by its record count and its
// shard files' names, sizes in records and checksums, without reading the
// records: two datasets with equal fingerprints hold the same records.
func Fingerprint(m *Manifest) string {
	h := sha256.New()
	fmt.Fprintf(h, "%d\n", m.Counts.Records)
	for _, sh := range m.Shards {
		fmt.Fprintf(h, "%s %d %s\n", sh.File, sh.Records, sh.SHA256)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// MergeOptions say which task shards to merge and where to.
type MergeOptions struct {
	// Base is the output NAME the tasks were given; their shards are the
	// datasets NAME-IIII-of-NNNN beside it.
	Base   string
	Output string
	// Input is the dataset the shards were made from, read again to put the
	// records back in its order; "" takes the path the shards recorded.
	Input   string
	Command []string // argv recorded in the merged manifest
	// Force replaces an existing dataset at Output.
	Force bool
	// Progress, if not nil, is called now and then with the input records
	// merged so far.
	Progress func(done, total int64)
}

// MergeSummary describes a merge.
type MergeSummary struct {
	Output   string  `json:"output"`
	Input    string  `json:"input"`
	Shards   int     `json:"shards"`
	Records  int64   `json:"records"`
	Labelled int64   `json:"labelled"`
	Failed   int64   `json:"failed"`
	Seconds  float64 `json:"seconds"`
}

// errStopScan ends a shard's scan when the merge stops pulling from it.
var errStopScan = errors.New("merge stopped reading")

// shardStream pulls one shard's records in stored order.
type shardStream struct {
	name string
	next func() (*Record, bool)
	stop func()
	err  error
}

func openShardStream(ctx context.Context, name string, d *Dataset) *shardStream {
	s := &shardStream{name: name}
	seq := func(yield func(*Record) bool) {
		err := d.Scan(ctx, AllSplits, func(r *Record) error {
			if !yield(r) {
				return errStopScan
			}
			return nil
		})
		if err != nil && !errors.Is(err, errStopScan) {
			s.err = err
		}
	}
	s.next, s.stop = iter.Pull(seq)
	return s
}

// MergeShards merges the datasets a sharded run wrote (dchess label
// --shard i/n) into one, as the unsharded run would have written it: every
// shard must be present, from the same job (equal settings hash, engines
// and bench signature) and made from the input, whose records it holds in
// input order, the ones whose position key it owns. The merge walks the
// input and takes each record from the shard that owns its key, so the
// result has the input's order and, record for record, the bytes of a
// --shard 0/1 run. The tasks of a sharded `dchess datagen` (settings kind
// "datagen") made their records from games they played, with no input:
// their records are joined in task order, deduplicated as one run's are.
// Errors name the missing or mismatched shard.
func MergeShards(ctx context.Context, opts MergeOptions) (MergeSummary, error) {
	started := time.Now()
	sum := MergeSummary{Output: opts.Output}
	if opts.Base == "" || opts.Output == "" {
		return sum, errors.New("merge needs the shards' NAME and an output dataset")
	}
	found, err := jobarray.Find(opts.Base)
	if err != nil {
		return sum, err
	}
	count, err := jobarray.Complete(opts.Base, found)
	if err != nil {
		return sum, err
	}
	shards := make([]*Dataset, count)
	infos := make([]jobarray.Info, count)
	names := make([]string, count)
	for i, f := range found {
		names[i] = filepath.Base(f.Path)
		if sameDir(f.Path, opts.Output) {
			return sum, fmt.Errorf("the output %s is one of the shards; write the merge elsewhere", opts.Output)
		}
		if shards[i], err = Open(f.Path); err != nil {
			return sum, err
		}
		m := shards[i].Manifest()
		if infos[i], err = jobarray.InfoFrom(m.Settings["shard"]); err != nil {
			return sum, fmt.Errorf("%s is not the output of a sharded run (its manifest has no shard settings)", f.Path)
		}
	}
	if err := jobarray.Consistent(names, infos); err != nil {
		return sum, err
	}
	if infos[0].Settings["kind"] == "datagen" {
		return joinTasks(ctx, opts, shards, infos[0], started)
	}
	if len(infos[0].Inputs) != 1 {
		return sum, fmt.Errorf("%s records %d inputs; a dataset merge needs the one input dataset it was made from", names[0], len(infos[0].Inputs))
	}
	want := infos[0].Inputs[0]
	sum.Input = opts.Input
	if sum.Input == "" {
		sum.Input = want.Path
	}
	in, err := Open(sum.Input)
	if err != nil {
		return sum, fmt.Errorf("the merge puts records back in the order of the input the shards were made from: %w (give its path with --input)", err)
	}
	if Fingerprint(in.Manifest()) != want.SHA256 {
		return sum, fmt.Errorf("input %s is not the dataset the shards were made from (its contents differ); give that one with --input", sum.Input)
	}
	if sameDir(sum.Input, opts.Output) {
		return sum, errors.New("the output must differ from the input dataset")
	}
	total := in.Manifest().Counts.Records

	first := shards[0].Manifest()
	settings := map[string]any{}
	for k, v := range first.Settings {
		settings[k] = v
	}
	delete(settings, "shard")
	settings["merged"] = map[string]any{"tasks": count, "settings_hash": infos[0].SettingsHash,
		"settings": infos[0].Settings, "engines": infos[0].Engines, "bench": infos[0].Bench}
	w, err := Create(opts.Output, WriteOptions{Command: opts.Command, Settings: settings, Sources: first.Sources, Replace: opts.Force})
	if err != nil {
		return sum, err
	}
	defer w.Abort()

	streams := make([]*shardStream, count)
	for i, d := range shards {
		streams[i] = openShardStream(ctx, names[i], d)
		defer streams[i].stop()
	}
	var done int64
	err = in.Scan(ctx, AllSplits, func(r *Record) error {
		key := r.Key
		if key == 0 {
			key = PositionKey(r.FEN)
		}
		s := streams[jobarray.KeyShard(key, count)]
		got, ok := s.next()
		if !ok {
			if s.err != nil {
				return s.err
			}
			return fmt.Errorf("%s ends before input record %d (%s), which it owns", s.name, done, r.FEN)
		}
		if got.Key != key || got.FEN != r.FEN {
			return fmt.Errorf("%s holds %q where the input has record %d, %q: it was made from another input or order", s.name, got.FEN, done, r.FEN)
		}
		if err := w.Write(got); err != nil {
			return err
		}
		done++
		if opts.Progress != nil && done%4096 == 0 {
			opts.Progress(done, total)
		}
		return nil
	})
	if err != nil {
		return sum, err
	}
	for _, s := range streams {
		if _, ok := s.next(); ok {
			return sum, fmt.Errorf("%s holds records the input does not", s.name)
		}
		if s.err != nil {
			return sum, s.err
		}
	}
	if err := w.Close(); err != nil {
		return sum, err
	}
	if opts.Progress != nil {
		opts.Progress(done, total)
	}
	st := w.Stats()
	sum.Shards, sum.Records, sum.Labelled, sum.Failed = count, st.Records, st.Labelled, st.Failed
	sum.Seconds = time.Since(started).Seconds()
	return sum, nil
}

// joinTasks merges the datasets of a sharded `dchess datagen`, which made
// their positions from games each task played itself (there is no input):
// the tasks' records in task order, deduplicated (the first one kept) as an
// unsharded run's are.
func joinTasks(ctx context.Context, opts MergeOptions, shards []*Dataset, info jobarray.Info, started time.Time) (MergeSummary, error) {
	sum := MergeSummary{Output: opts.Output, Shards: len(shards)}
	first := shards[0].Manifest()
	settings := map[string]any{}
	for k, v := range first.Settings {
		settings[k] = v
	}
	delete(settings, "shard")
	settings["merged"] = map[string]any{"tasks": len(shards), "settings_hash": info.SettingsHash,
		"settings": info.Settings, "engines": info.Engines, "bench": info.Bench}
	var total int64
	for _, d := range shards {
		total += d.Manifest().Counts.Records
	}
	w, err := Create(opts.Output, WriteOptions{Command: opts.Command, Settings: settings, Sources: first.Sources, Dedupe: true, Replace: opts.Force})
	if err != nil {
		return sum, err
	}
	defer w.Abort()
	var done int64
	for _, d := range shards {
		err := d.Scan(ctx, AllSplits, func(r *Record) error {
			done++
			if opts.Progress != nil && done%4096 == 0 {
				opts.Progress(done, total)
			}
			return w.Write(r)
		})
		if err != nil {
			return sum, err
		}
	}
	if err := w.Close(); err != nil {
		return sum, err
	}
	if opts.Progress != nil {
		opts.Progress(done, total)
	}
	st := w.Stats()
	sum.Records, sum.Labelled, sum.Failed = st.Records, st.Labelled, st.Failed
	sum.Seconds = time.Since(started).Seconds()
	return sum, nil
}

func sameDir(a, b string) bool {
	absA, errA := filepath.Abs(a)
	absB, errB := filepath.Abs(b)
	return errA == nil && errB == nil && absA == absB
}
