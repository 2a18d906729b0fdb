package family_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dchess/dchess/models/dcw"
	"github.com/dchess/dchess/models/family"
	"github.com/dchess/dchess/search/player"
)

// writeRun writes runs/<name>/model.dcw of fam, modified at, so that which
// one is newest does not depend on the file system's clock.
func writeRun(t *testing.T, runs, name, fam string, at time.Time) string {
	t.Helper()
	path := filepath.Join(runs, name, family.ModelFile)
	if err := dcw.Write(path, &dcw.File{Family: fam}); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, at, at); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestResolverSaysEachFileOnce(t *testing.T) {
	runs := filepath.Join(t.TempDir(), "runs")
	first := writeRun(t, runs, "nnue-a", "nnue", time.Now().Add(-time.Hour))
	var said []string
	resolve := family.Resolver(runs, func(format string, args ...any) { said = append(said, fmt.Sprintf(format, args...)) })
	for range 2 {
		if path, err := resolve(context.Background(), "nnue"); err != nil || path != first {
			t.Fatalf("nnue = %q, %v; want %s", path, err, first)
		}
	}
	if want := "nnue: weights " + first + ", the newest under " + runs + "/\n"; len(said) != 1 || said[0] != want {
		t.Fatalf("said %q, want once %q", said, want)
	}
	// Newer weights are another file: said too.
	second := writeRun(t, runs, "nnue-b", "nnue", time.Now())
	if path, err := resolve(context.Background(), "nnue"); err != nil || path != second || len(said) != 2 || !strings.Contains(said[1], second) {
		t.Errorf("after a newer run: %q, %v; said %q", path, err, said)
	}

	// cnn's weights ship with dchess: taken, and said so.
	t.Setenv("XDG_CACHE_HOME", t.TempDir()) // where the shipped weights are written out
	if path, err := resolve(context.Background(), "cnn"); err != nil || len(said) != 3 ||
		!strings.HasPrefix(said[2], "cnn: weights "+path+", the ones shipped with dchess: none under "+runs+"/") {
		t.Errorf("cnn with none under runs: %q, %v; said %q", path, err, said)
	}
	// None under runs and none shipped: the error, nothing said.
	if _, err := resolve(context.Background(), "ann"); err == nil || len(said) != 3 {
		t.Errorf("ann with none under runs: %v; said %q", err, said)
	}
	// No one to tell: resolved all the same.
	if path, err := family.Resolver(runs, nil)(context.Background(), "nnue"); err != nil || path != second {
		t.Errorf("without say: %q, %v", path, err)
	}
}

func TestPinWeights(t *testing.T) {
	player.RegisterModel("pintest", func(context.Context, player.Spec) (player.Player, error) { return nil, nil })
	player.RegisterBuiltins()
	runs := filepath.Join(t.TempDir(), "runs")
	path := writeRun(t, runs, "pintest-a", "pintest", time.Now())

	pin, err := family.PinWeights(runs, player.Spec{Family: "pintest"})
	if err != nil {
		t.Fatal(err)
	}
	if pin.Spec.Path != path || pin.Shown != path { // runs is absolute: shown as it is
		t.Errorf("pinned to %q, shown as %q; want %s", pin.Spec.Path, pin.Shown, path)
	}
	if want := "pintest: playing " + path + ", the newest pintest weights under " + runs + " (the runs/ of the folder"; !strings.HasPrefix(pin.Note, want) {
		t.Errorf("note %q, want it to start %q", pin.Note, want)
	}
	// A file named, or no model: as it is, nothing to say.
	for _, s := range []player.Spec{{Family: "pintest", Path: "elsewhere.dcw"}, {Family: "heuristic"}} {
		if pin, err := family.PinWeights(runs, s); err != nil || pin.Spec.Path != s.Path || pin.Shown != "" || pin.Note != "" {
			t.Errorf("%+v pinned as %+v, %v", s, pin, err)
		}
	}
	if _, err := family.PinWeights(filepath.Join(runs, "missing"), player.Spec{Family: "pintest"}); err == nil {
		t.Error("no weights anywhere: pinned")
	}
}
