package train

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/dchess/dchess/dataset"
	"github.com/dchess/dchess/internal/chess/board"
	"github.com/dchess/dchess/internal/safefile"
	"github.com/dchess/dchess/models/family"
	"github.com/dchess/dchess/models/nn/nntest"
	"github.com/dchess/dchess/search/player"
)

// familyDataset is one dataset every family can train on: decisiveGames'
// games (results, played moves, plies), each position also labelled with
// a material win probability and its lowestLine.
func familyDataset(t *testing.T, games int) string {
	t.Helper()
	src, err := dataset.Open(decisiveGames(t, games))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "all")
	w, err := dataset.Create(dir, dataset.WriteOptions{Shard: 2000})
	if err != nil {
		t.Fatal(err)
	}
	err = src.Scan(context.Background(), dataset.AllSplits, func(r *dataset.Record) error {
		b, err := board.FromFEN(r.FEN)
		if err != nil {
			return err
		}
		labelled := nntest.MaterialRecords([]*board.Board{b})[0] // before the line moves b
		if pv := lowestLine(b); len(pv) > 0 {
			labelled.Label.BestMove, labelled.Label.PV = pv[0], pv
		}
		r.Label = labelled.Label
		return w.Write(r)
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := dataset.WriteSplit(dir, 0.2, 0, 3); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestEveryFamilyHonoursItsRegistration holds each registered family to
// its registration: the default config round-trips through YAML, the test
// config trains with falling loss, and the exported weights play a legal
// move in the family's player.
func TestEveryFamilyHonoursItsRegistration(t *testing.T) {
	if testing.Short() {
		t.Skip("trains every family")
	}
	data := familyDataset(t, 120)
	runs := t.TempDir()
	// Sorted, so the autoencoder trains before the siamese run that
	// starts from it.
	for _, name := range family.Names() {
		t.Run(name, func(t *testing.T) {
			fam, err := family.Lookup(name)
			if err != nil {
				t.Fatal(err)
			}
			def, err := family.DefaultConfig(name)
			if err != nil {
				t.Fatal(err)
			}
			yml, err := def.Marshal()
			if err != nil {
				t.Fatal(err)
			}
			back, err := family.ParseConfig(yml, "")
			if err != nil {
				t.Fatalf("default config does not read back: %v\n%s", err, yml)
			}
			if !reflect.DeepEqual(back, def) {
				t.Fatalf("default config changes through YAML:\n%s", yml)
			}

			cfg := testConfig(t, name)
			cfg.LogEvery, cfg.MaxSteps, cfg.Epochs, cfg.Patience = 1, 40, 100, 0
			run := filepath.Join(runs, name+"-test")
			res, err := Run(context.Background(), Options{Config: cfg, Data: data, RunDir: run, RunsDir: runs})
			if err != nil {
				t.Fatal(err)
			}
			steps := stepLosses(t, run, 20)
			// Every figure the registration names is in the epoch lines.
			var epoch map[string]any
			data, _ := os.ReadFile(filepath.Join(run, MetricsFile))
			for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
				var m map[string]any
				if json.Unmarshal([]byte(line), &m) == nil && (m["kind"] == "epoch" || m["kind"] == "partial") {
					epoch = m
				}
			}
			for _, info := range fam.Metrics {
				for _, key := range strings.Split(info.Name, ", ") {
					if _, ok := epoch[key]; !ok {
						t.Errorf("metric %s of the registration is not in the epoch lines: %v", key, epoch)
					}
				}
			}
			first, last := mean(steps[:5]), mean(steps[len(steps)-5:])
			t.Logf("loss %.4f -> %.4f", first, last)
			if !(last < first) {
				t.Fatalf("loss did not fall: first steps %.4f, last steps %.4f", first, last)
			}
			if fam.Player == nil {
				return
			}
			p, err := player.New(context.Background(), name+":"+res.Model)
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			mi, err := p.Move(context.Background(), player.Position{}, player.Limits{Depth: 1})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := board.New().ParseUCI(mi.Move); err != nil {
				t.Fatalf("%s played %q: %v", name, mi.Move, err)
			}
		})
	}
}

func mean(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

func TestRegistryRefusesClashesAndUnknownSections(t *testing.T) {
	fam, err := family.Lookup("ann")
	if err != nil {
		t.Fatal(err)
	}
	err = family.Register(*fam)
	if err == nil || !strings.Contains(err.Error(), `"ann" is registered twice`) || strings.Contains(err.Error(), "\n") {
		t.Fatalf("second registration: %v", err)
	}
	if err := family.Register(family.Family{Name: "Bad Name"}); err == nil || strings.Contains(err.Error(), "\n") {
		t.Fatalf("bad name: %v", err)
	}
	_, err = family.ParseConfig([]byte("model:\n  family: transformer\n  dim: 3\n"), "")
	if err == nil || !strings.Contains(err.Error(), `unknown model family "transformer"`) || strings.Contains(err.Error(), "\n") {
		t.Fatalf("unknown section: %v", err)
	}
	if help := family.Help(); !strings.Contains(help, "siamese") || !strings.Contains(help, "diffusion") {
		t.Fatalf("help lists %q", help)
	}
}

// TestOldMetricsReadUnderNewNames: a siamese run's metrics.jsonl from
// before the accuracies had their own names reads its sign agreement as
// pair accuracy.
func TestOldMetricsReadUnderNewNames(t *testing.T) {
	dir := t.TempDir()
	cfg, err := family.DefaultConfig("siamese")
	if err != nil {
		t.Fatal(err)
	}
	yml, _ := cfg.Marshal()
	if err := safefile.WriteFile(filepath.Join(dir, family.ConfigFile), yml); err != nil {
		t.Fatal(err)
	}
	line := `{"kind":"epoch","epoch":1,"step":9,"lr":0.01,"train_loss":0.6,"train_sign_agreement":0.7,"val_loss":0.5,"val_sign_agreement":0.75,"val_within_0_1":0.1,"val_pair_accuracy":0.75}` + "\n"
	if err := safefile.WriteFile(filepath.Join(dir, MetricsFile), []byte(line)); err != nil {
		t.Fatal(err)
	}
	ms, err := ReadMetrics(filepath.Join(dir, MetricsFile))
	if err != nil {
		t.Fatal(err)
	}
	m := ms[0]
	if m.TrainPairAccuracy != 0.7 || m.ValPairAccuracy == nil || *m.ValPairAccuracy != 0.75 || m.TrainSign != 0 || m.ValSign != nil || m.ValWithin != nil {
		t.Fatalf("read as %+v", m)
	}
}

// stepLosses reads a run's metrics and returns the loss of each step
// line, failing when there are fewer than least.
func stepLosses(t *testing.T, run string, least int) []float64 {
	t.Helper()
	metrics, err := ReadMetrics(filepath.Join(run, MetricsFile))
	if err != nil {
		t.Fatal(err)
	}
	var steps []float64
	for _, m := range metrics {
		if m.Kind == "step" {
			steps = append(steps, m.Loss)
		}
	}
	if len(steps) < least {
		t.Fatalf("%d step lines, want at least %d", len(steps), least)
	}
	return steps
}
