package dataset

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkMergeShards1000 merges 1,000 generated task shards of a
// 100,000-record input (100 labelled records each), the merge step of a
// 1,000-task job array: docs/results/2026-11-21-sharding-speed.md.
func BenchmarkMergeShards1000(b *testing.B) {
	const tasks, records = 1000, 100_000
	dir := b.TempDir()
	input := filepath.Join(dir, "in")
	mergeInput(b, input, records)
	base := filepath.Join(dir, "labels")
	writeTaskShards(b, input, base, tasks, nil)
	out := filepath.Join(dir, "merged")
	b.ResetTimer()
	for range b.N {
		sum, err := MergeShards(context.Background(), MergeOptions{Base: base, Output: out})
		if err != nil {
			b.Fatal(err)
		}
		if sum.Records != records {
			b.Fatalf("merged %d records", sum.Records)
		}
		b.StopTimer()
		os.RemoveAll(out)
		b.StartTimer()
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/merge")
}
