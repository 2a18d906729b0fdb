package ingest

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/dchess/dchess/dataset"
)

// ToDataset is the one way games become a dataset: the manifest records the
// options' settings and the sources, the summary counts every repeat
// dropped, and a run that fails leaves no dataset behind.
func TestToDataset(t *testing.T) {
	dir := t.TempDir()
	pgnPath := filepath.Join(dir, "games.pgn")
	// The same game twice: its positions repeat.
	if err := os.WriteFile(pgnPath, []byte(twoGames+"\n"+twoGames), 0o644); err != nil {
		t.Fatal(err)
	}
	opts := DefaultOptions()
	opts.MinPly, opts.MaxElo = 1, 3000
	out := filepath.Join(dir, "ds")
	sum, st, err := ToDataset(context.Background(), []string{pgnPath}, nil, opts,
		Destination{Out: out, Command: []string{"dchess", "ingest"}})
	if err != nil {
		t.Fatal(err)
	}
	if st.Records == 0 || sum.Positions != st.Records+sum.Duplicates {
		t.Errorf("%d positions taken, %d stored, %d repeats: they do not add up", sum.Positions, st.Records, sum.Duplicates)
	}
	d, err := dataset.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	m := d.Manifest()
	// Compared through JSON, as the manifest stores them.
	want, _ := json.Marshal(opts.Settings())
	got, _ := json.Marshal(m.Settings)
	if string(got) != string(want) || !strings.Contains(string(got), `"max_elo":3000`) || strings.Contains(string(got), "time_control") {
		t.Errorf("manifest settings %s, want %s", got, want)
	}
	if len(m.Sources) != 1 || m.Sources[0].SHA256 == "" || !reflect.DeepEqual(m.Command, []string{"dchess", "ingest"}) {
		t.Errorf("manifest sources %+v, command %v", m.Sources, m.Command)
	}
	// A run that fails (the input is gone) leaves nothing at Out.
	failed := filepath.Join(dir, "failed")
	if _, _, err := ToDataset(context.Background(), []string{filepath.Join(dir, "missing.pgn")}, nil, opts,
		Destination{Out: failed}); err == nil {
		t.Fatal("a missing input made a dataset")
	}
	if _, err := os.Stat(failed); !os.IsNotExist(err) {
		t.Errorf("a failed run left %s: %v", failed, err)
	}
}
