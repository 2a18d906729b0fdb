package experience

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/dchess/dchess/internal/testenv"
)

// BenchmarkImportKasparov imports the 2,128 master games into a new tree;
// games/s is the figure docs/results/2026-11-21-experience-import-speed.md records.
func BenchmarkImportKasparov(b *testing.B) {
	data, err := os.ReadFile(testenv.SharedData(b, "pgn/Kasparov.pgn"))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	var games int64
	for i := 0; i < b.N; i++ {
		db, err := Open(ctx, filepath.Join(b.TempDir(), "bench.db"))
		if err != nil {
			b.Fatal(err)
		}
		sum, err := Import(ctx, db, bytes.NewReader(data), ImportSource{Name: "Kasparov.pgn"}, nil)
		db.Close()
		if err != nil {
			b.Fatal(err)
		}
		games += sum.Games
	}
	b.ReportMetric(float64(games)/b.Elapsed().Seconds(), "games/s")
}
