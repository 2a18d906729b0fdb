package match

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dchess/dchess/internal/jobarray"
)

// BenchmarkMergeShards1000 merges 1,000 generated task folders of a
// 20,000-game match (10 pairs each) into one report and one PGN:
// docs/results/2026-11-21-sharding-speed.md.
func BenchmarkMergeShards1000(b *testing.B) {
	const tasks, games = 1000, 20_000
	base := filepath.Join(b.TempDir(), "m")
	settings := map[string]any{"a": "heuristic:depth=5", "b": "heuristic:depth=4", "games": games, "tasks": tasks}
	hash := jobarray.Hash(settings)
	assigned := jobarray.Split(games/2, tasks, jobarray.Seed(hash))
	results := []string{"1-0", "0-1", "1/2-1/2", "1/2-1/2"}
	for i := range tasks {
		spec := jobarray.Spec{Index: i, Count: tasks}
		info := jobarray.NewInfo(spec, []string{"dchess", "match"}, settings)
		info.Engines, info.Bench = []string{"H5", "H4"}, searchBench
		m := ShardManifest{Format: shardFormat, FormatVersion: shardFormatVersion, Shard: info, A: "H5", B: "H4",
			Games: games, Pairs: assigned[i]}
		var pgn strings.Builder
		for _, n := range shardNumbers(assigned[i], games) {
			text := fmt.Sprintf("[Event \"m\"]\n[Round \"%d\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 %s\n\n", n, results[n%4])
			pgn.WriteString(text)
			m.Results = append(m.Results, ShardGame{Number: n, Result: results[n%4], AIsWhite: n%2 == 1,
				Termination: TermCheckmate, PGNBytes: len(text)})
		}
		dir := jobarray.Name(base, spec)
		data, _ := json.Marshal(m)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, ShardPGNFile), []byte(pgn.String()), 0o644)
		os.WriteFile(filepath.Join(dir, ShardManifestFile), data, 0o644)
	}
	b.ResetTimer()
	for range b.N {
		mm, err := MergeShards(base, nil)
		if err != nil {
			b.Fatal(err)
		}
		if mm.Report.Games != games {
			b.Fatalf("merged %d games", mm.Report.Games)
		}
		if err := mm.WritePGN(io.Discard); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/merge")
}
