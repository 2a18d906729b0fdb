package family

import (
	"context"
	"errors"
	"path/filepath"
	"runtime"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dchess/dchess/dataset"
	"github.com/dchess/dchess/dataset/datasettest"
	"github.com/dchess/dchess/models/nn/nntest"
)

// recordsDataset writes n labelled positions over several shards, split
// 80/20 into train and val.
func recordsDataset(t *testing.T, n int) *dataset.Dataset {
	t.Helper()
	dir := datasettest.Write(t, filepath.Join(t.TempDir(), "data"), dataset.WriteOptions{Shard: 200}, nntest.MaterialRecords(nntest.RandomBoards(n, 5)))
	if _, err := dataset.WriteSplit(dir, 0.2, 0, 5); err != nil {
		t.Fatal(err)
	}
	ds, err := dataset.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

// streamedRecord is a record as a stream handed it on: its position and
// the records counted by then.
type streamedRecord struct {
	fen      string
	streamed int64
}

// keySlot is what the tests' encode writes: the record's position.
type keySlot struct{ fen string }

// TestEachEncodedIsEachRecord: EachEncoded hands on the records EachRecord
// gives, in its order, with the same records counted at each, shuffled
// and in stored order, across chunks and a short last one.
func TestEachEncodedIsEachRecord(t *testing.T) {
	ds := recordsDataset(t, 3*encodeChunk+117)
	cfg := &Config{Seed: 7, Data: DataConfig{ShuffleBuffer: 100}}
	for _, c := range []struct {
		split dataset.Split
		order StreamOrder
	}{
		{dataset.Train, StreamOrder{Shuffled: true, Epoch: 2}},
		{dataset.Val, StreamOrder{}},
		{dataset.AllSplits, StreamOrder{Shuffled: true}},
	} {
		var want, got []streamedRecord
		var n int64
		order := c.order
		order.Streamed = &n
		if err := EachRecord(context.Background(), ds, c.split, order, cfg, func(r *dataset.Record) error {
			want = append(want, streamedRecord{r.FEN, n})
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		n = 0
		err := EachEncoded(context.Background(), ds, c.split, order, cfg,
			func() *keySlot { return &keySlot{} },
			func(r *dataset.Record, s *keySlot) { s.fen = r.FEN },
			func(s *keySlot) error {
				got = append(got, streamedRecord{s.fen, n})
				return nil
			})
		if err != nil {
			t.Fatal(err)
		}
		if len(want) < 2*encodeChunk && c.split != dataset.Val {
			t.Fatalf("split %v: %d records, too few to span chunks", c.split, len(want))
		}
		if !slices.Equal(got, want) {
			t.Errorf("split %v, %+v: EachEncoded handed on %d records, EachRecord %d, not the same in the same order with the same counts",
				c.split, c.order, len(got), len(want))
		}
	}
}

// TestEachEncodedStopsOnEmitsError: an error from emit ends the stream
// with that error, no record emitted after it.
func TestEachEncodedStopsOnEmitsError(t *testing.T) {
	ds := recordsDataset(t, 3*encodeChunk)
	cfg := &Config{Seed: 1, Data: DataConfig{ShuffleBuffer: 100}}
	stop := errors.New("enough")
	emitted := 0
	err := EachEncoded(context.Background(), ds, dataset.AllSplits, StreamOrder{Shuffled: true}, cfg,
		func() *keySlot { return &keySlot{} },
		func(r *dataset.Record, s *keySlot) { s.fen = r.FEN },
		func(*keySlot) error {
			if emitted++; emitted == encodeChunk+10 {
				return stop
			}
			return nil
		})
	if !errors.Is(err, stop) || emitted != encodeChunk+10 {
		t.Fatalf("error %v after %d records, want %v after %d", err, emitted, stop, encodeChunk+10)
	}
}

// TestEachEncodedEncodesSideBySide: with two cores or more, records are
// encoded on several goroutines at once. Each encode waits for another to
// run beside it, until a deadline.
func TestEachEncodedEncodesSideBySide(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	}
	ds := recordsDataset(t, encodeChunk)
	cfg := &Config{Seed: 1, Data: DataConfig{ShuffleBuffer: 100}}
	var running, most atomic.Int64
	deadline := time.Now().Add(5 * time.Second)
	err := EachEncoded(context.Background(), ds, dataset.AllSplits, StreamOrder{}, cfg,
		func() *keySlot { return &keySlot{} },
		func(r *dataset.Record, s *keySlot) {
			now := running.Add(1)
			defer running.Add(-1)
			for most.Load() < 2 && time.Now().Before(deadline) {
				if now = max(now, running.Load()); now > most.Load() {
					most.Store(now)
				}
				runtime.Gosched()
			}
			s.fen = r.FEN
		},
		func(*keySlot) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	if most.Load() < 2 {
		t.Fatalf("at most %d record encoded at once, want several", most.Load())
	}
}
