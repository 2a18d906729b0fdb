package dataset

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// VerifyReport is what Verify found (`dchess dataset verify --json`). The
// fields are in the order of the keys the command has always printed.
type VerifyReport struct {
	Damaged  []ShardDamage `json:"damaged"`
	Dataset  string        `json:"dataset"`
	OK       bool          `json:"ok"`
	Problems []string      `json:"problems"`
	Records  int64         `json:"records"`
	Shards   int           `json:"shards"`
}

// ShardDamage names a shard file that failed its checks, and why.
type ShardDamage struct {
	File  string `json:"file"`
	Error string `json:"error"`
}

// Verify reads every shard of d in full against the manifest and checks
// the manifest's counts; progress, if not nil, hears after each shard. Its
// error is only for an interrupted check: damage is in the report, and
// the report's Err says it in one line.
func Verify(ctx context.Context, d *Dataset, progress func(done, total int64)) (VerifyReport, error) {
	m := d.Manifest()
	r := VerifyReport{Dataset: d.Dir(), Shards: len(m.Shards), Damaged: []ShardDamage{}}
	for i, sh := range m.Shards {
		if err := d.VerifyShard(ctx, sh); err != nil {
			if ctx.Err() != nil {
				return r, ctx.Err()
			}
			r.Damaged = append(r.Damaged, ShardDamage{File: filepath.Join(d.Dir(), sh.File), Error: err.Error()})
		}
		r.Records += sh.Records
		if progress != nil {
			progress(int64(i+1), int64(len(m.Shards)))
		}
	}
	if err := d.CheckCounts(); err != nil {
		r.Problems = append(r.Problems, err.Error())
	}
	r.OK = len(r.Damaged) == 0 && len(r.Problems) == 0
	return r, nil
}

// Err is nil for a sound dataset; otherwise one line naming every damaged
// shard file, or the first problem with the counts.
func (r VerifyReport) Err() error {
	if len(r.Damaged) > 0 {
		files := make([]string, len(r.Damaged))
		for i, dmg := range r.Damaged {
			files[i] = dmg.File
		}
		return fmt.Errorf("dataset %s: %d of %d shards damaged: %s", r.Dataset, len(r.Damaged), r.Shards, strings.Join(files, ", "))
	}
	if len(r.Problems) > 0 {
		return errors.New(r.Problems[0])
	}
	return nil
}
