package experience

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// damagedTree writes a tree of a few thousand games, closes it and
// overwrites 8 KB in the middle of the file, as a failing disk might.
func damagedTree(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "exp.db")
	db, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	text := manyGames(3 * ImportBatch)
	if _, err := Import(context.Background(), db, strings.NewReader(text), ImportSource{Name: "many.pgn"}, nil); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	copy(data[len(data)/2:], bytes.Repeat([]byte{0x5a}, 8192))
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// The reported bugs: stats of a damaged tree failed without naming the
// file, and a learning player wrote into it.
func TestDamagedTreeIsNamedAndNotLearntInto(t *testing.T) {
	ctx := context.Background()
	path := damagedTree(t)
	before, _ := os.ReadFile(path)

	db, err := Open(ctx, path)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	_, err = db.Stats(ctx)
	db.Close()
	if err == nil || !strings.Contains(err.Error(), path) {
		t.Fatalf("stats of a damaged tree: %v, want an error naming %s", err, path)
	}

	_, err = NewPlayer(ctx, path, Options{Learn: true})
	if err == nil || !strings.Contains(err.Error(), path+" is damaged") {
		t.Fatalf("learning player on a damaged tree: %v", err)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Error("the damaged file was written to")
	}

	// A sound tree passes the check.
	sound := openTemp(t)
	if err := sound.Check(ctx); err != nil {
		t.Fatal(err)
	}
}
