package deepchess

import (
	"context"
	"testing"

	"github.com/dchess/dchess/internal/chess/board"
	"github.com/dchess/dchess/models/nn/nntest"
	"github.com/dchess/dchess/search"
)

// paperComparator is the paper's comparator (773-600-400-200-100 towers,
// 400-200-100-2 head) with random weights: speed does not depend on them.
func paperComparator(b *testing.B) *Comparator {
	m, err := NewSiamese(SiameseConfig{Tower: DefaultAutoencoderConfig().Layers, Head: DefaultSiameseConfig().Head, Activation: "relu"})
	if err != nil {
		b.Fatal(err)
	}
	f, err := weightsFile(m, m.InitParams(1))
	if err != nil {
		b.Fatal(err)
	}
	c, err := NewComparator(f)
	if err != nil {
		b.Fatal(err)
	}
	return c
}

// BenchmarkCompareCached is one comparison of two positions whose
// projections are cached: the head only, what most comparisons in a search
// cost. It reports comparisons/s.
func BenchmarkCompareCached(b *testing.B) {
	c := paperComparator(b)
	boards := nntest.RandomBoards(64, 3)
	keys := make([]uint64, len(boards))
	for i, bd := range boards {
		keys[i] = c.See(bd)
		c.projection(keys[i])
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c.CompareSeen(keys[i%64], keys[(i+1)%64])
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "comparisons/s")
}

// BenchmarkEmbed is the first sight of a position: packing, the Pos2Vec
// tower and the two join projections. It reports positions/s.
func BenchmarkEmbed(b *testing.B) {
	c := paperComparator(b)
	boards := nntest.RandomBoards(256, 4)
	packed := make([]Packed, len(boards))
	for i, bd := range boards {
		packed[i] = Pack(bd)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c.embed(&packed[i%len(packed)])
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "positions/s")
}

// BenchmarkSearch is the siamese player's search at depth 2 from a middle
// game position with a fresh cache each time, reporting comparisons/s and
// nodes/s of the whole search.
func BenchmarkSearch(b *testing.B) {
	c := paperComparator(b)
	pos, err := board.FromFEN("r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4")
	if err != nil {
		b.Fatal(err)
	}
	var comparisons, nodes int64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		clear(c.proj)
		clear(c.seen)
		e := search.NewCompare(c, search.CompareOptions{HashMB: 1})
		res := e.Search(context.Background(), pos, search.Limits{Depth: 2}, nil)
		comparisons += e.Comparisons()
		nodes += res.Nodes
	}
	b.ReportMetric(float64(comparisons)/b.Elapsed().Seconds(), "comparisons/s")
	b.ReportMetric(float64(nodes)/b.Elapsed().Seconds(), "nodes/s")
}
