package dataset

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/dchess/dchess/internal/chess/pgn"
)

// heapPeak samples the heap's object bytes in the background (runtime/metrics
// reads do not stop the world) and reports the largest value seen.
type heapPeak struct {
	stop chan struct{}
	wg   sync.WaitGroup
	peak uint64
}

func startHeapPeak() *heapPeak {
	runtime.GC()
	h := &heapPeak{stop: make(chan struct{})}
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			metrics.Read(sample)
			h.peak = max(h.peak, sample[0].Value.Uint64())
			select {
			case <-h.stop:
				return
			case <-tick.C:
			}
		}
	}()
	return h
}

func (h *heapPeak) end() uint64 {
	close(h.stop)
	h.wg.Wait()
	return h.peak
}

// benchRecord fills r with the i-th of a stream of ingest-like records: real
// FEN shapes, a played move, 8 next moves and Elos, 80 positions per game.
// Every other position repeats an earlier one, as openings do.
func benchRecord(r *Record, i int) {
	pos := i
	if i%2 == 1 {
		pos = i / 7
	}
	r.FEN = "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - " + strconv.Itoa(pos%50) + " " + strconv.Itoa(pos)
	r.Key = mix64(uint64(pos) + 1)
	r.Move = "e1g1"
	r.Next = []string{"f8c5", "c2c3", "d7d6", "d2d4", "e5d4", "c3d4", "c5b4", "b1c3"}
	r.Result = pgn.Result(i % 4)
	r.Ply = uint16(i % 80)
	r.WhiteElo, r.BlackElo = 2100, 2250
	r.GameID = uint64(i / 80)
}

// BenchmarkWriterDedupeMemory writes 200k and 2M records with Dedupe and
// reports the peak heap during Write and Close: flat memory means the two
// peaks are about the same.
func BenchmarkWriterDedupeMemory(b *testing.B) {
	for _, n := range []int{200_000, 2_000_000} {
		b.Run(fmt.Sprintf("records=%d", n), func(b *testing.B) {
			var peak uint64
			var elapsed time.Duration
			for it := 0; it < b.N; it++ {
				dir := filepath.Join(b.TempDir(), "ds")
				h := startHeapPeak()
				start := time.Now()
				w, err := Create(dir, WriteOptions{Dedupe: true})
				if err != nil {
					b.Fatal(err)
				}
				var r Record
				for i := 0; i < n; i++ {
					benchRecord(&r, i)
					if err := w.Write(&r); err != nil {
						b.Fatal(err)
					}
				}
				if err := w.Close(); err != nil {
					b.Fatal(err)
				}
				elapsed += time.Since(start)
				peak = max(peak, h.end())
				if s := w.Stats(); s.Records+s.Duplicates != int64(n) || s.Duplicates == 0 {
					b.Fatalf("stats %+v", s)
				}
			}
			b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
			b.ReportMetric(float64(n)*float64(b.N)/elapsed.Seconds(), "records/s")
		})
	}
}

// BenchmarkWriteAndScan measures plain (no dedupe) write and scan throughput
// and the bytes a record takes on disk.
func BenchmarkWriteAndScan(b *testing.B) {
	const n = 500_000
	dir := filepath.Join(b.TempDir(), "ds")
	start := time.Now()
	w, err := Create(dir, WriteOptions{})
	if err != nil {
		b.Fatal(err)
	}
	var r Record
	for i := 0; i < n; i++ {
		benchRecord(&r, i)
		r.Label = &Label{Status: LabelOK, CP: int32(i%600 - 300), WinProb: 0.5, BestMove: "f8c5", Depth: 8, Nodes: 12345,
			Engine: "Stockfish 15.1", PV: []string{"f8c5", "c2c3", "d7d6", "d2d4"}}
		if err := w.Write(&r); err != nil {
			b.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	writeRate := n / time.Since(start).Seconds()
	d, err := Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for it := 0; it < b.N; it++ {
		count := 0
		if err := d.Scan(context.Background(), AllSplits, func(*Record) error { count++; return nil }); err != nil || count != n {
			b.Fatal(err, count)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "scan-records/s")
	b.ReportMetric(writeRate, "write-records/s")
	b.ReportMetric(float64(w.Stats().Bytes)/n, "bytes/record")
}
