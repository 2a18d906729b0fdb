package dataset

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
)

// Split names a part of a dataset.
type Split uint8

const (
	AllSplits Split = iota
	Train
	Val
	Test
)

// String returns the split's name as used on the command line: all, train, val, test.
func (s Split) String() string {
	switch s {
	case AllSplits:
		return "all"
	case Train:
		return "train"
	case Val:
		return "val"
	case Test:
		return "test"
	}
	return fmt.Sprintf("split(%d)", uint8(s))
}

// ParseSplit reads a split name; "" means AllSplits.
func ParseSplit(name string) (Split, error) {
	switch name {
	case "", "all":
		return AllSplits, nil
	case "train":
		return Train, nil
	case "val":
		return Val, nil
	case "test":
		return Test, nil
	}
	return AllSplits, fmt.Errorf("unknown split %q (want train, val, test or all)", name)
}

// Dataset is an opened dataset folder. Its methods only read, so one Dataset
// may be scanned by several goroutines at once.
type Dataset struct {
	dir      string
	manifest *Manifest
}

// Open reads a dataset's manifest. It fails with a clear message for a
// missing folder, a folder that is not a dchess dataset (ErrNotDataset) and a
// dataset written by a newer dchess (ErrNewerFormat).
func Open(dir string) (*Dataset, error) {
	m, err := readManifest(dir)
	if err != nil {
		return nil, err
	}
	return &Dataset{dir: dir, manifest: m}, nil
}

// Dir returns the dataset's folder.
func (d *Dataset) Dir() string { return d.dir }

// Manifest returns the dataset's manifest; callers must not modify it.
func (d *Dataset) Manifest() *Manifest { return d.manifest }

// SplitOf says which split a game belongs to under the manifest's split
// (Train when the dataset has not been split).
func (d *Dataset) SplitOf(gameID uint64) Split { return splitOf(gameID, d.manifest.Split) }

// splitOf maps a game to a split by hashing its ID with the split seed into a
// uniform number u in [0,1): Val when u < val, Test when u < val+test, else
// Train, unless the split placed the game (at most two games, of tiny
// datasets). It depends only on the game, so no game is in two splits.
func splitOf(gameID uint64, s *SplitInfo) Split {
	if s == nil {
		return Train
	}
	for _, p := range s.Placed {
		if p.Game == gameID {
			return p.Split
		}
	}
	u := drawOf(gameID, s.Seed)
	switch {
	case u < s.Val:
		return Val
	case u < s.Val+s.Test:
		return Test
	}
	return Train
}

// drawOf is a game's uniform number in [0,1) under a split seed.
func drawOf(gameID, seed uint64) float64 {
	return float64(mix64(gameID^mix64(seed))>>11) / (1 << 53)
}

// CheckCounts checks that the manifest's counts can be true (see
// Manifest.CountsProblem) and that its record count is the sum of its
// shards', which reading checks each shard against: a reader that trusted
// one and read the other would work on a dataset the manifest misdescribes.
func (d *Dataset) CheckCounts() error {
	if problem := d.manifest.CountsProblem(); problem != "" {
		return fmt.Errorf("dataset %s: damaged %s: %s", d.dir, ManifestFile, problem)
	}
	var listed int64
	for _, sh := range d.manifest.Shards {
		listed = sumCounts(listed, sh.Records)
	}
	if listed != d.manifest.Counts.Records {
		return fmt.Errorf("dataset %s: the shards list %d records but the manifest counts %d (run dchess dataset verify %s)",
			d.dir, listed, d.manifest.Counts.Records, d.dir)
	}
	return nil
}

// Scan streams the records of a split (AllSplits for every record) in stored
// order. fn may keep the record it is given. Scan stops at fn's first error
// and returns it unchanged; a damaged shard gives a *ShardError naming the
// file, a manifest that disagrees with its shards the CheckCounts error.
func (d *Dataset) Scan(ctx context.Context, split Split, fn func(*Record) error) error {
	if err := d.CheckCounts(); err != nil {
		return err
	}
	for _, sh := range d.manifest.Shards {
		if err := d.scanShard(ctx, sh, split, fn); err != nil {
			return err
		}
	}
	return nil
}

// ctxCheckEvery is how many records pass between context checks.
const ctxCheckEvery = 1024

func (d *Dataset) scanShard(ctx context.Context, sh ShardInfo, split Split, fn func(*Record) error) error {
	path := filepath.Join(d.dir, sh.File)
	f, err := os.Open(path)
	if err != nil {
		return &ShardError{File: path, Record: -1, Offset: -1, Err: err}
	}
	defer f.Close()
	fr, err := newFrameReader(path, f)
	if err != nil {
		return err
	}
	return d.readFrames(ctx, fr, sh, split, fn)
}

// readFrames streams every record of one shard, checking at the end that the
// shard holds as many records as the manifest says (a shard truncated
// exactly at a record boundary has only valid frames).
func (d *Dataset) readFrames(ctx context.Context, fr *frameReader, sh ShardInfo, split Split, fn func(*Record) error) error {
	for {
		if fr.index%ctxCheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		r := &Record{}
		err := fr.next(r)
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if fr.index > sh.Records {
			return &ShardError{File: fr.name, Record: -1, Offset: -1,
				Err: fmt.Errorf("holds more records than the %d the manifest lists", sh.Records)}
		}
		if split != AllSplits && d.SplitOf(r.GameID) != split {
			continue
		}
		if err := fn(r); err != nil {
			return err
		}
	}
	if fr.index != sh.Records {
		return &ShardError{File: fr.name, Record: -1, Offset: -1,
			Err: fmt.Errorf("truncated: %d records, the manifest lists %d", fr.index, sh.Records)}
	}
	return nil
}

// Shuffled streams one split's records in a seeded pseudo-random order
// without loading the dataset: the shard order is shuffled per epoch, then
// records pass through a shuffle buffer of bufferSize records (memory is
// bufferSize records). The same (seed, epoch) always gives the same order,
// so training can resume mid-epoch by skipping the records already seen.
func (d *Dataset) Shuffled(ctx context.Context, split Split, seed int64, epoch int, bufferSize int, fn func(*Record) error) error {
	if bufferSize < 1 {
		bufferSize = 1
	}
	if err := d.CheckCounts(); err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(uint64(seed), mix64(uint64(epoch))))
	shards := d.manifest.Shards
	order := rng.Perm(len(shards))
	buf := make([]*Record, 0, bufferSize)
	push := func(r *Record) error {
		if len(buf) < bufferSize {
			buf = append(buf, r)
			return nil
		}
		i := rng.IntN(bufferSize)
		out := buf[i]
		buf[i] = r
		return fn(out)
	}
	for _, i := range order {
		if err := d.scanShard(ctx, shards[i], split, push); err != nil {
			return err
		}
	}
	rng.Shuffle(len(buf), func(i, j int) { buf[i], buf[j] = buf[j], buf[i] })
	for i, r := range buf {
		if i%ctxCheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if err := fn(r); err != nil {
			return err
		}
	}
	return nil
}

// Verify reads every shard completely, checking its size, SHA-256, every
// record's checksum, the legality of every label's moves and the record
// counts against the manifest. It reports every damaged shard (joined
// *ShardErrors), not only the first.
func (d *Dataset) Verify(ctx context.Context) error {
	var errs []error
	for _, sh := range d.manifest.Shards {
		if err := d.VerifyShard(ctx, sh); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			errs = append(errs, err)
		}
	}
	errs = append(errs, d.CheckCounts())
	return errors.Join(errs...)
}

// VerifyShard checks one shard of the manifest as Verify does, so callers can
// show progress shard by shard.
func (d *Dataset) VerifyShard(ctx context.Context, sh ShardInfo) error {
	path := filepath.Join(d.dir, sh.File)
	f, err := os.Open(path)
	if err != nil {
		return &ShardError{File: path, Record: -1, Offset: -1, Err: err}
	}
	defer f.Close()
	sum := sha256.New()
	fr, err := newFrameReader(path, io.TeeReader(f, sum))
	if err != nil {
		return err
	}
	// A label is only worth its checksum if its moves can be played.
	start := fr.offset
	err = d.readFrames(ctx, fr, sh, AllSplits, func(r *Record) error {
		if r.Label != nil {
			if err := r.Label.CheckMoves(r.FEN); err != nil {
				return &ShardError{File: path, Record: fr.index - 1, Offset: start, Err: err}
			}
		}
		start = fr.offset
		return nil
	})
	if err != nil {
		return err
	}
	// Bytes after the last frame would have failed as a frame, so reaching
	// here means the whole file was hashed.
	if fr.offset != sh.Bytes {
		return &ShardError{File: path, Record: -1, Offset: -1, Err: fmt.Errorf("is %d bytes, the manifest lists %d", fr.offset, sh.Bytes)}
	}
	if got := hex.EncodeToString(sum.Sum(nil)); got != sh.SHA256 {
		return &ShardError{File: path, Record: -1, Offset: -1, Err: fmt.Errorf("SHA-256 %s does not match the manifest's %s", got, sh.SHA256)}
	}
	return nil
}
