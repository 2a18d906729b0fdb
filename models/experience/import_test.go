package experience

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// manyGames is n one-move games, 1. e4 won by White, as one PGN text.
func manyGames(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "[Event \"g%d\"]\n[Result \"1-0\"]\n\n1. e4 1-0\n\n", i+1)
	}
	return b.String()
}

func sourceOf(name, text string) ImportSource {
	sum := sha256.Sum256([]byte(text))
	return ImportSource{Name: name, SHA256: hex.EncodeToString(sum[:])}
}

func gameCount(t *testing.T, db *DB) int64 {
	t.Helper()
	st, err := db.Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if e4, _, _ := edgeCounts(t, db, "", nil, "e2e4"); e4.w != st.Games {
		t.Fatalf("e2e4 counts %d wins, the games table %d games", e4.w, st.Games)
	}
	return st.Games
}

// The reported bug: an import killed after its first transaction and run
// again counted the first transaction's games twice.
func TestInterruptedImportResumesWithoutCountingTwice(t *testing.T) {
	db := openTemp(t)
	const n = ImportBatch*2 + 500
	text := manyGames(n)
	src := sourceOf("many.pgn", text)
	ctx, cancel := context.WithCancel(context.Background())
	sum, err := Import(ctx, db, strings.NewReader(text), src, func(ImportSummary) { cancel() })
	if !errors.Is(err, context.Canceled) || sum.Games < ImportBatch {
		t.Fatalf("interrupted import: %v, %+v", err, sum)
	}
	if got := gameCount(t, db); got != ImportBatch {
		t.Fatalf("%d games committed before the interruption, want %d", got, ImportBatch)
	}
	sum, err = Import(context.Background(), db, strings.NewReader(text), src, nil)
	if err != nil {
		t.Fatal(err)
	}
	if sum.ResumedAt != ImportBatch+1 || sum.Games != n-ImportBatch || sum.Copy != 1 {
		t.Fatalf("rerun %+v: want it to resume at game %d", sum, ImportBatch+1)
	}
	if got := gameCount(t, db); got != n {
		t.Fatalf("after the rerun the tree holds %d games of %d", got, n)
	}

	// Finished: a third run adds nothing, a deliberate one counts again.
	sum, err = Import(context.Background(), db, strings.NewReader(text), src, nil)
	if err != nil || !sum.AlreadyIn || sum.Games != 0 || gameCount(t, db) != n {
		t.Fatalf("import of a finished file: %v, %+v", err, sum)
	}
	again := src
	again.Again = true
	sum, err = Import(context.Background(), db, strings.NewReader(text), again, nil)
	if err != nil || sum.Copy != 2 || sum.Games != n || gameCount(t, db) != 2*n {
		t.Fatalf("deliberate second import: %v, %+v", err, sum)
	}
	var copies int64
	db.sql.QueryRow(`SELECT COUNT(*) FROM games WHERE source LIKE 'many.pgn(copy 2)#%'`).Scan(&copies)
	if copies != n {
		t.Errorf("%d games are labelled as the second copy, want %d", copies, n)
	}
}

func TestChangedFileIsANewInput(t *testing.T) {
	db := openTemp(t)
	first := manyGames(3)
	if _, err := Import(context.Background(), db, strings.NewReader(first), sourceOf("g.pgn", first), nil); err != nil {
		t.Fatal(err)
	}
	// Same name, one more game: the content differs, so all of it counts.
	second := manyGames(4)
	sum, err := Import(context.Background(), db, strings.NewReader(second), sourceOf("g.pgn", second), nil)
	if err != nil || sum.AlreadyIn || sum.Games != 4 || gameCount(t, db) != 7 {
		t.Fatalf("changed file: %v, %+v", err, sum)
	}
}
