package match_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/dchess/dchess/search/match"
)

// FuzzOpenJournal: no journal file panics the reader; what it keeps is a
// prefix of whole lines of the run's settings, and the file is cut back to
// that prefix, so the next game is appended after the last good one.
func FuzzOpenJournal(f *testing.F) {
	f.Add([]byte(`{"settings_hash":"h1","game":{"number":1,"white":"a","black":"b","result":"1-0"},"pgn":"[Event \"x\"]\n\n1. e4 1-0\n"}` + "\n"))
	f.Add([]byte(`{"settings_hash":"h1","game":{"number":2}}` + "\n" + `{"settings_hash":"h1","ga`))
	f.Add([]byte(`{"settings_hash":"other"}` + "\n"))
	f.Add([]byte("\n\n{}\n"))
	dir := f.TempDir() // one file, rewritten by each input: a folder an input is slow
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(dir, "j.jsonl")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		j, err := match.OpenJournal(path, "h1", false)
		if err != nil {
			return
		}
		n := j.Len()
		j.Close()
		kept, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if len(kept) > len(data) || string(kept) != string(data[:len(kept)]) {
			t.Fatalf("the journal was not cut to a prefix: kept %q of %q", kept, data)
		}
		if len(kept) > 0 && kept[len(kept)-1] != '\n' {
			t.Fatalf("the kept journal ends inside a line: %q", kept)
		}
		again, err := match.OpenJournal(path, "h1", false)
		if err != nil || again.Len() != n {
			t.Fatalf("reopened: %v, %d games, want %d", err, again.Len(), n)
		}
		again.Close()
	})
}
