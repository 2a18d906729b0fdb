package ingest

import (
	"bytes"
	"context"
	"io"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dchess/dchess/dataset"
	"github.com/dchess/dchess/internal/chess/pgn"
	"github.com/dchess/dchess/internal/testenv"
)

// discard counts records and keeps none, so benchmarks time ingest alone.
type discard struct{ n int64 }

func (d *discard) Write(*dataset.Record) error { d.n++; return nil }

// repeatReader yields data n times without holding more than one copy.
type repeatReader struct {
	data []byte
	n    int
	off  int
}

func (r *repeatReader) Read(p []byte) (int, error) {
	if r.n == 0 {
		return 0, io.EOF
	}
	k := copy(p, r.data[r.off:])
	r.off += k
	if r.off == len(r.data) {
		r.off, r.n = 0, r.n-1
	}
	return k, nil
}

func kasparovBytes(b *testing.B) []byte {
	data, err := os.ReadFile(testenv.SharedData(b, "pgn/Kasparov.pgn"))
	if err != nil {
		b.Fatal(err)
	}
	return data
}

// BenchmarkIngestGames reports games/s for the whole pipeline (split,
// parse, replay, records) on the Kasparov games, all workers.
func BenchmarkIngestGames(b *testing.B) {
	data := kasparovBytes(b)
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	var games int64
	for i := 0; i < b.N; i++ {
		sum, err := Run(context.Background(), []string{Stdin}, bytes.NewReader(data), DefaultOptions(), &discard{})
		if err != nil {
			b.Fatal(err)
		}
		games += sum.GamesKept
	}
	b.ReportMetric(float64(games)/b.Elapsed().Seconds(), "games/s")
}

// BenchmarkConvertGame times one game's replay into records on one core.
func BenchmarkConvertGame(b *testing.B) {
	r := pgn.NewReader(bytes.NewReader(kasparovBytes(b)))
	var games []*pgn.Game
	plies := 0
	for {
		g, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			b.Fatal(err)
		}
		games = append(games, g)
		plies += len(g.Moves)
	}
	opts := DefaultOptions()
	c := newGameConverter(&opts)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, _, err := c.convert(games[i%len(games)]); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/(float64(plies)/float64(len(games))), "ns/ply")
}

// BenchmarkIngestMemory ingests a long generated stream (the Kasparov
// file 40 times, 85,000 games) and reports the peak Go heap and the peak
// resident set seen while it ran: both must stay flat, whatever the input size.
func BenchmarkIngestMemory(b *testing.B) {
	data := kasparovBytes(b)
	for i := 0; i < b.N; i++ {
		runtime.GC()
		var peakHeap, peakRSS atomic.Uint64
		stop := make(chan struct{})
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			var ms runtime.MemStats
			for {
				runtime.ReadMemStats(&ms)
				if ms.HeapAlloc > peakHeap.Load() {
					peakHeap.Store(ms.HeapAlloc)
				}
				if rss := residentBytes(); rss > peakRSS.Load() {
					peakRSS.Store(rss)
				}
				select {
				case <-stop:
					return
				case <-time.After(20 * time.Millisecond):
				}
			}
		}()
		sink := &discard{}
		sum, err := Run(context.Background(), []string{Stdin}, &repeatReader{data: data, n: 40}, DefaultOptions(), sink)
		close(stop)
		wg.Wait()
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(sum.Bytes)/(1<<20), "input-MB")
		b.ReportMetric(float64(peakHeap.Load())/(1<<20), "peak-heap-MB")
		b.ReportMetric(float64(peakRSS.Load())/(1<<20), "peak-RSS-MB")
	}
}

// residentBytes reads the process's resident set size from /proc (0 elsewhere).
func residentBytes() uint64 {
	data, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	var size, resident uint64
	for i, f := range bytes.Fields(data) {
		var v uint64
		for _, c := range f {
			v = v*10 + uint64(c-'0')
		}
		switch i {
		case 0:
			size = v
		case 1:
			resident = v
		}
	}
	_ = size
	return resident * uint64(os.Getpagesize())
}
