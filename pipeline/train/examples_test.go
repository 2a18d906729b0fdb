package train

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dchess/dchess/dataset"
	"github.com/dchess/dchess/internal/chess/pgn"
	"github.com/dchess/dchess/models/dcw"
	"github.com/dchess/dchess/models/deepchess"
	"github.com/dchess/dchess/models/diffusion"
	"github.com/dchess/dchess/models/family"
)

// rewrittenDataset copies src's records through edit (a record edit
// returns false for is dropped) into a new dataset, split as given.
func rewrittenDataset(t *testing.T, src string, val, test float64, edit func(r *dataset.Record) bool) string {
	t.Helper()
	in, err := dataset.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "data")
	w, err := dataset.Create(dir, dataset.WriteOptions{Shard: 2000})
	if err != nil {
		t.Fatal(err)
	}
	err = in.Scan(context.Background(), dataset.AllSplits, func(r *dataset.Record) error {
		if !edit(r) {
			return nil
		}
		return w.Write(r)
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := dataset.WriteSplit(dir, val, test, 3); err != nil {
		t.Fatal(err)
	}
	return dir
}

// The reported bug: `train` on an unlabelled dataset trained 0 steps on 0
// samples, exited 0 and wrote random weights as model.dcw, for every
// family that trains on labels. A dataset without a single example of
// what the family trains on (labels, played moves, pairs of decisive
// games) is refused before the run folder is made, with one line saying
// what is missing and which command makes it.
func TestTrainingWithoutExamplesIsRefused(t *testing.T) {
	games := decisiveGames(t, 12) // results and played moves, no labels
	labelled := familyDataset(t, 12)
	keep := func(*dataset.Record) bool { return true }
	draws := rewrittenDataset(t, games, 0.2, 0, func(r *dataset.Record) bool { r.Result = pgn.Draw; return true })
	whiteWins := rewrittenDataset(t, games, 0.2, 0, func(r *dataset.Record) bool { return r.Result == pgn.WhiteWin })
	noMoves := rewrittenDataset(t, labelled, 0.2, 0, func(r *dataset.Record) bool { r.Move, r.Next = "", nil; return true })
	allVal := rewrittenDataset(t, labelled, 1, 0, keep)

	// The siamese towers start from an autoencoder, which the run loads
	// before it reads the data.
	ae, err := deepchess.NewAutoencoder(*testConfig(t, deepchess.AutoencoderFamily).Model.Settings.(*deepchess.AutoencoderConfig))
	if err != nil {
		t.Fatal(err)
	}
	arch, err := ae.Arch()
	if err != nil {
		t.Fatal(err)
	}
	aeWeights := filepath.Join(t.TempDir(), family.ModelFile)
	if err := dcw.Write(aeWeights, &dcw.File{Family: ae.Family(), Arch: arch, Tensors: ae.InitParams(1)}); err != nil {
		t.Fatal(err)
	}

	type missing struct {
		data string
		want []string
	}
	unlabelled := missing{games, []string{"no position labelled by Stockfish", "dchess label"}}
	cases := map[string][]missing{
		"ann":         {unlabelled},
		"cnn":         {unlabelled},
		"nnue":        {unlabelled},
		"diffusion":   {unlabelled},
		"policy":      {unlabelled},
		"flow":        {unlabelled},
		"autoencoder": {{draws, []string{"no example autoencoder trains on", "decisive games", "dchess ingest"}}},
		"siamese":     {{whiteWins, []string{"no example siamese trains on", "games Black won", "dchess ingest"}}},
	}
	for _, name := range family.Names() {
		if _, ok := cases[name]; !ok {
			t.Errorf("family %s has no case: say which dataset it cannot train on", name)
		}
	}
	for name, cs := range cases {
		t.Run(name, func(t *testing.T) {
			// An empty train split is refused for every family.
			cs = append(cs, missing{allVal, []string{"train split of " + allVal + " is empty", "dchess dataset split"}})
			for _, c := range cs {
				cfg := testConfig(t, name)
				if sc, ok := cfg.Model.Settings.(*deepchess.SiameseConfig); ok {
					sc.Init = aeWeights
				}
				run := filepath.Join(t.TempDir(), "run")
				_, err := Run(context.Background(), Options{Config: cfg, Data: c.data, RunDir: run})
				if err == nil || strings.Contains(err.Error(), "\n") {
					t.Fatalf("on %s: got %v, want a one-line error", c.data, err)
				}
				for _, w := range c.want {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("on %s: %v\nwant %q in it", c.data, err, w)
					}
				}
				if _, err := os.Stat(run); !os.IsNotExist(err) {
					t.Errorf("the refused run made its folder (%v)", err)
				}
			}
		})
	}

	// A sequence model of the moves played needs the moves, not labels.
	cfg := testConfig(t, diffusion.Family)
	cfg.Model.Settings.(*diffusion.Config).Target = diffusion.TargetGame
	_, err = Run(context.Background(), Options{Config: cfg, Data: noMoves, RunDir: filepath.Join(t.TempDir(), "run")})
	if err == nil || !strings.Contains(err.Error(), "no example diffusion trains on") || !strings.Contains(err.Error(), "dchess ingest --horizon") {
		t.Fatalf("target game without played moves: %v", err)
	}
}
