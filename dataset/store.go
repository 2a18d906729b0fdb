package dataset

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dchess/dchess/internal/safefile"
)

// DefaultShardRecords is the shard size when WriteOptions.Shard is 0: about
// 10 MB of records, small enough that shuffling shard order mixes well.
const DefaultShardRecords = 100_000

// WriteOptions say what a new dataset records about itself and how records are stored.
type WriteOptions struct {
	Command  []string       // argv that made the dataset, stored in the manifest
	Settings map[string]any // the settings that made it (filters, limits, engine...)
	Sources  []Source
	// Dedupe drops records whose Key was already written (the first one wins).
	// Records keep their written order either way.
	Dedupe bool
	Shard  int // records per shard file; 0 = DefaultShardRecords
	// Replace allows writing over an existing dataset (--force).
	Replace bool
}

// WriteStats are a Writer's counts. Written is live; the others are final
// once Close has returned (with Dedupe, duplicates are only known then).
type WriteStats struct {
	Written    int64 // records passed to Write
	Records    int64 // records stored
	Duplicates int64 // records Dedupe dropped here; the manifest adds CountDroppedDuplicates' to them
	Games      int64 // distinct GameIDs stored
	Labelled   int64
	Failed     int64
	Shards     int
	Bytes      int64 // total size of the shard files
}

// Writer builds a dataset in a temporary folder beside its destination and
// moves it into place on Close. It is not safe for concurrent use, except
// Stats, which may be called from another goroutine (a progress bar).
//
// Memory stays flat whatever the number of records: records go straight to
// shard files (or, with Dedupe, to a spool file plus 16 bytes per record in
// 256 hash partitions on disk). At Close the dedupe holds at most maxSetKeys
// keys in one 16 MB table, and every other buffer is fixed in size (1 MB per
// open shard or spool, 16 KB per partition, 4 KB per drop file, at most one
// drop file per partition). That is about 25 MB live; BenchmarkWriterDedupeMemory
// measures a peak heap of about 42 MB for 200k and for 2M records alike.
type Writer struct {
	dir      string // destination
	tmp      string // folder being built
	unlock   func() // releases tmp's lock (see makeLockedTempDir)
	opts     WriteOptions
	shardCap int

	manifest Manifest
	shard    *shardFile
	// lastGame tracks GameID runs: games are spilled once per run, which is
	// once per game when a game's positions are written together.
	lastGame  uint64
	haveGame  bool
	games     *keySpill
	scratch   string // temp files that are not part of the dataset
	spool     *spoolFile
	dedupe    *keySpill
	sequence  uint64
	written   atomic.Int64
	statsMu   sync.Mutex
	stats     WriteStats
	done      bool // Close or Abort has run
	aborted   bool
	stickyErr error

	// droppedBefore counts the repeats the caller dropped before Write.
	droppedBefore int64
}

// shardFile is the shard being written.
type shardFile struct {
	file  *os.File
	buf   *bufio.Writer
	sum   hash.Hash
	frame *frameWriter
	info  ShardInfo
}

// spoolFile holds every written record, in order, until the dedupe at Close
// decides which to keep.
type spoolFile struct {
	file  *os.File
	buf   *bufio.Writer
	frame *frameWriter
}

// Create starts writing a dataset to dir. Nothing appears at dir until Close;
// an existing dataset at dir (only with opts.Replace) stays readable until
// then and is replaced atomically. dir must not exist, be empty, or hold a
// dchess dataset and nothing else: Create refuses to replace any other
// folder, or files a user put into a dataset's.
func Create(dir string, opts WriteOptions) (*Writer, error) {
	if dir == "" {
		return nil, errors.New("dataset: no output folder given")
	}
	if err := checkReplaceable(dir, opts.Replace); err != nil {
		return nil, err
	}
	if opts.Shard < 0 {
		return nil, fmt.Errorf("dataset %s: shard size %d must not be negative", dir, opts.Shard)
	}
	parent, base := filepath.Split(filepath.Clean(dir))
	if parent == "" {
		parent = "."
	}
	if base == "." || base == ".." || base == "" {
		return nil, fmt.Errorf("dataset %s: give the dataset's own folder name, not the current or parent folder", dir)
	}
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, fmt.Errorf("dataset %s: %w", dir, err)
	}
	// A killed earlier run (kill -9, a crash) left its temporary folder.
	if _, err := removeStaleTemps(parent, base); err != nil {
		return nil, fmt.Errorf("dataset %s: %w", dir, err)
	}
	tmp, unlock, err := makeLockedTempDir(parent, tempPrefix(base))
	if err != nil {
		return nil, fmt.Errorf("dataset %s: %w", dir, err)
	}
	w := &Writer{dir: filepath.Clean(dir), tmp: tmp, unlock: unlock, opts: opts, shardCap: opts.Shard}
	if w.shardCap == 0 {
		w.shardCap = DefaultShardRecords
	}
	w.manifest = Manifest{
		Format:        formatName,
		FormatVersion: baseFormatVersion,
		Command:       opts.Command,
		Settings:      opts.Settings,
		Sources:       opts.Sources,
		Histogram:     newScoreHistogram(),
		Shards:        []ShardInfo{},
	}
	if w.manifest.Sources == nil {
		w.manifest.Sources = []Source{}
	}
	w.scratch = filepath.Join(tmp, "scratch")
	if err := os.Mkdir(w.scratch, 0o755); err != nil {
		w.Abort()
		return nil, fmt.Errorf("dataset %s: %w", dir, err)
	}
	if w.games, err = newKeySpill(filepath.Join(w.scratch, "games"), gamePartitions, 4<<10); err != nil {
		w.Abort()
		return nil, fmt.Errorf("dataset %s: %w", dir, err)
	}
	if opts.Dedupe {
		if w.dedupe, err = newKeySpill(filepath.Join(w.scratch, "keys"), keyPartitions, 16<<10); err != nil {
			w.Abort()
			return nil, fmt.Errorf("dataset %s: %w", dir, err)
		}
		if w.spool, err = newSpoolFile(filepath.Join(w.scratch, "spool.bin")); err != nil {
			w.Abort()
			return nil, fmt.Errorf("dataset %s: %w", dir, err)
		}
	}
	return w, nil
}

// checkReplaceable refuses destinations whose contents Close would destroy:
// a folder that is not a dataset (a typo like "-o ." must not delete a
// folder), a dataset unless replace, and one holding files dchess did not
// write there.
// CheckOutput says whether Create may write a dataset at dir (with replace,
// over an existing one), before a long run that ends by writing it.
func CheckOutput(dir string, replace bool) error { return checkReplaceable(dir, replace) }

func checkReplaceable(dir string, replace bool) error {
	st, err := os.Stat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("dataset %s: %w", dir, err)
	}
	if !st.IsDir() {
		return fmt.Errorf("dataset %s: exists and is a file, not a dataset folder", dir)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("dataset %s: %w", dir, err)
	}
	if len(entries) == 0 {
		return nil
	}
	// A damaged or newer dataset is still a dataset; replacing it is what the user asked for.
	if _, err := readManifest(dir); errors.Is(err, ErrNotDataset) {
		return fmt.Errorf("dataset %s: refusing to replace a folder that is not a dchess dataset", dir)
	}
	foreign, err := safefile.ForeignEntries(dir, datasetOwns)
	if err != nil {
		return fmt.Errorf("dataset %s: %w", dir, err)
	}
	if len(foreign) > 0 {
		return fmt.Errorf("dataset %s holds files dchess did not write (%s): move them elsewhere before replacing it", dir, safefile.ListNames(foreign))
	}
	if !replace {
		return fmt.Errorf("dataset %s %w: pass --force to replace it", dir, safefile.ErrExists)
	}
	return nil
}

func newSpoolFile(path string) (*spoolFile, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	s := &spoolFile{file: f, buf: bufio.NewWriterSize(f, 1<<20)}
	if s.frame, err = newFrameWriter(s.buf); err != nil {
		f.Close()
		return nil, err
	}
	return s, nil
}

// Write adds a record. A zero Key is filled in with PositionKey(FEN) in the
// stored copy (r itself is not modified).
func (w *Writer) Write(r *Record) error {
	if w.done {
		return fmt.Errorf("dataset %s: write after Close or Abort", w.dir)
	}
	if w.stickyErr != nil {
		return w.stickyErr
	}
	if r.FEN == "" {
		return fmt.Errorf("dataset %s: record %d has no FEN", w.dir, w.written.Load())
	}
	key := r.Key
	if key == 0 {
		key = PositionKey(r.FEN)
	}
	var err error
	if w.dedupe != nil {
		if err = w.spool.frame.write(r, key); err == nil {
			err = w.dedupe.add(key, w.sequence)
		}
		w.sequence++
	} else {
		err = w.store(r, key)
	}
	if err != nil {
		w.stickyErr = fmt.Errorf("dataset %s: %w", w.dir, err)
		return w.stickyErr
	}
	w.written.Add(1)
	return nil
}

// store appends a record that is to be kept to the current shard and counts it.
func (w *Writer) store(r *Record, key uint64) error {
	if w.shard == nil {
		if err := w.openShard(); err != nil {
			return err
		}
	}
	if err := w.shard.frame.write(r, key); err != nil {
		return err
	}
	w.shard.info.Records++
	if r.ClockMS != 0 || r.Notes != "" {
		w.manifest.FormatVersion = max(w.manifest.FormatVersion, recordFieldsFormatVersion)
	}
	c := &w.manifest.Counts
	c.Records++
	if r.Label != nil {
		switch r.Label.Status {
		case LabelOK:
			c.Labelled++
		case LabelFailed:
			c.Failed++
		}
		w.manifest.Histogram.Add(r.Label)
	}
	if !w.haveGame || r.GameID != w.lastGame {
		w.haveGame, w.lastGame = true, r.GameID
		if err := w.games.add(r.GameID, 0); err != nil {
			return err
		}
	}
	if w.shard.info.Records >= int64(w.shardCap) {
		return w.closeShard()
	}
	return nil
}

func (w *Writer) openShard() error {
	name := fmt.Sprintf("shard-%05d.rec", len(w.manifest.Shards))
	f, err := os.Create(filepath.Join(w.tmp, name))
	if err != nil {
		return err
	}
	sh := &shardFile{file: f, sum: sha256.New(), info: ShardInfo{File: name}}
	sh.buf = bufio.NewWriterSize(io.MultiWriter(f, sh.sum), 1<<20)
	if sh.frame, err = newFrameWriter(sh.buf); err != nil {
		f.Close()
		return err
	}
	w.shard = sh
	return nil
}

func (w *Writer) closeShard() error {
	sh := w.shard
	w.shard = nil
	err := sh.buf.Flush()
	if err == nil {
		err = sh.file.Sync()
	}
	if cerr := sh.file.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	sh.info.Bytes = sh.frame.written
	sh.info.SHA256 = hex.EncodeToString(sh.sum.Sum(nil))
	w.manifest.Shards = append(w.manifest.Shards, sh.info)
	return nil
}

// CountDroppedDuplicates adds n records that the caller dropped as repeats
// before they reached Write (ingest's early dedupe), so that the
// manifest's duplicates_dropped counts every repeat of the run and agrees
// with what the run reported, not only the repeats the writer dropped.
func (w *Writer) CountDroppedDuplicates(n int64) { w.droppedBefore += n }

// Stats returns the writer's counts so far.
func (w *Writer) Stats() WriteStats {
	w.statsMu.Lock()
	s := w.stats
	w.statsMu.Unlock()
	s.Written = w.written.Load()
	return s
}

// Close finishes the dataset and atomically replaces dir with it. On error
// the destination is left as it was and the temporary folder is removed.
func (w *Writer) Close() error {
	if w.aborted {
		return fmt.Errorf("dataset %s: Close after Abort", w.dir)
	}
	if w.done {
		return w.stickyErr
	}
	if w.stickyErr != nil {
		err := w.stickyErr
		w.Abort()
		w.aborted = false
		return err
	}
	if err := w.finish(); err != nil {
		w.Abort()
		w.aborted = false
		w.stickyErr = fmt.Errorf("dataset %s: %w", w.dir, err)
		return w.stickyErr
	}
	w.done = true
	w.releaseTemp()
	return nil
}

// releaseTemp gives up the lock on the temporary folder, which is gone.
func (w *Writer) releaseTemp() {
	if w.unlock != nil {
		w.unlock()
		w.unlock = nil
	}
}

func (w *Writer) finish() error {
	if w.dedupe != nil {
		if err := w.storeDeduped(); err != nil {
			return err
		}
	}
	if w.shard != nil {
		if err := w.closeShard(); err != nil {
			return err
		}
	}
	games, err := w.games.countDistinct(nil)
	if err != nil {
		return err
	}
	w.manifest.Counts.Games = games
	w.manifest.Counts.Duplicates = w.written.Load() - w.manifest.Counts.Records + w.droppedBefore
	if err := os.RemoveAll(w.scratch); err != nil {
		return err
	}
	w.manifest.CreatedAt = time.Now().UTC().Truncate(time.Second)
	if err := writeManifest(w.tmp, &w.manifest); err != nil {
		return err
	}
	// Check again: the destination may have been created since Create.
	if err := checkReplaceable(w.dir, w.opts.Replace); err != nil {
		return err
	}
	if err := replaceDir(w.tmp, w.dir); err != nil {
		return err
	}
	w.statsMu.Lock()
	c := w.manifest.Counts
	w.stats = WriteStats{Records: c.Records, Duplicates: c.Duplicates - w.droppedBefore, Games: c.Games, Labelled: c.Labelled,
		Failed: c.Failed, Shards: len(w.manifest.Shards)}
	for _, sh := range w.manifest.Shards {
		w.stats.Bytes += sh.Bytes
	}
	w.statsMu.Unlock()
	return nil
}

// storeDeduped streams the spool in written order into the shards, skipping
// the sequence numbers the partitioned dedupe marked as repeats.
func (w *Writer) storeDeduped() error {
	spool := w.spool
	w.spool = nil
	err := spool.buf.Flush()
	if cerr := spool.file.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	drops, err := w.dedupe.duplicates(filepath.Join(w.scratch, "drops"))
	if err != nil {
		return err
	}
	defer drops.close()
	f, err := os.Open(spool.file.Name())
	if err != nil {
		return err
	}
	defer f.Close()
	fr, err := newFrameReader(spool.file.Name(), f)
	if err != nil {
		return err
	}
	nextDrop, err := drops.next()
	if err != nil {
		return err
	}
	var r Record
	for seq := uint64(0); ; seq++ {
		err := fr.next(&r)
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if seq == nextDrop {
			if nextDrop, err = drops.next(); err != nil {
				return err
			}
			continue
		}
		if err := w.store(&r, r.Key); err != nil {
			return err
		}
	}
	return nil
}

// Abort discards everything written; the destination is left as it was.
// It is safe to call after Close (it then does nothing), so callers can defer it.
func (w *Writer) Abort() error {
	if w.done {
		return nil
	}
	w.done, w.aborted = true, true
	if w.shard != nil {
		w.shard.file.Close()
		w.shard = nil
	}
	if w.spool != nil {
		w.spool.file.Close()
		w.spool = nil
	}
	if w.dedupe != nil {
		w.dedupe.close()
	}
	if w.games != nil {
		w.games.close()
	}
	if err := os.RemoveAll(w.tmp); err != nil {
		return fmt.Errorf("dataset %s: removing temporary folder: %w", w.dir, err)
	}
	w.releaseTemp()
	return nil
}
