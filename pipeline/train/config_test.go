package train

import (
	"reflect"
	"strings"
	"testing"

	"github.com/dchess/dchess/configs"
	"github.com/dchess/dchess/models/ann"
	"github.com/dchess/dchess/models/family"
)

func TestEmbeddedConfigsLoad(t *testing.T) {
	for _, name := range []string{"ann", "cnn", "ann-wide", "cnn-wide", "material", "test/ann", "test/cnn"} {
		data, err := configs.Read(name)
		if err != nil {
			t.Fatal(err)
		}
		c, err := family.ParseConfig(data, "")
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if _, err := c.Family().Objective(c, family.ObjectiveEnv{}); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	for _, name := range []string{"autoencoder", "siamese", "test/autoencoder", "test/siamese", "diffusion-small", "policy-small", "flow-small", "test/flow", "nnue-small", "test/nnue"} {
		data, err := configs.Read(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := family.ParseConfig(data, ""); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	// The thesis and paper files spell out exactly the defaults.
	for _, fam := range family.Names() {
		data, _ := configs.Read(fam)
		c, _ := family.ParseConfig(data, fam)
		def, _ := family.DefaultConfig(fam)
		if !reflect.DeepEqual(c, def) {
			t.Fatalf("configs/%s.yaml differs from DefaultConfig:\n%+v\n%+v", fam, c, def)
		}
	}
}

func TestConfigErrors(t *testing.T) {
	cases := map[string]struct{ yaml, fam, want string }{
		"unknown top key":      {"batch_sise: 4\n", "ann", "batch_sise"},
		"unknown model key":    {"model:\n  hiden: [3]\n", "ann", "hiden"},
		"cnn key in ann":       {"model:\n  conv: []\n", "ann", "conv"},
		"family mismatch":      {"model:\n  family: cnn\n", "ann", "not \"ann\""},
		"policy horizon":       {"model:\n  horizon: 4\n", "policy", "horizon and steps must be 1"},
		"diffusion loss":       {"loss: mse\n", "diffusion", "must be cross_entropy"},
		"diffusion schedule":   {"model:\n  schedule: sqrt\n", "diffusion", "linear or cosine"},
		"scaled bits":          {"data:\n  input_min: 0\n", "autoencoder", "unscaled"},
		"autoencoder loss":     {"loss: cross_entropy\n", "autoencoder", "must be mse"},
		"siamese loss":         {"loss: mse\n", "siamese", "must be cross_entropy"},
		"ann key in siamese":   {"model:\n  hidden: [3]\n", "siamese", "hidden"},
		"empty head":           {"model:\n  head: []\n", "siamese", "at least one"},
		"unknown family":       {"", "transformer", "unknown model family"},
		"bad loss":             {"loss: hinge\n", "ann", "hinge"},
		"bad encoding for cnn": {"data:\n  encoding: bits\n", "cnn", "not board-shaped"},
		"pool too big":         {"model:\n  conv:\n    - {filters: 2, kernel: 3, pad: 0, pool: 7, pool_stride: 1}\n", "cnn", "does not fit"},
		"empty range":          {"data:\n  input_min: 1\n  input_max: 1\n", "ann", "empty"},
		"no family":            {"epochs: 2\n", "", "no model family"},
		"decay without adamw":  {"optimizer:\n  weight_decay: 0.1\n", "ann", "needs name: adamw"},
		"cosine without steps": {"optimizer:\n  schedule: cosine\n", "ann", "decay_steps"},
		"unknown schedule":     {"optimizer:\n  schedule: step\n", "ann", "constant or cosine"},
	}
	for name, c := range cases {
		_, err := family.ParseConfig([]byte(c.yaml), c.fam)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error containing %q", name, err, c.want)
		}
	}
}

func TestConfigFillsDefaults(t *testing.T) {
	c, err := family.ParseConfig([]byte("model:\n  hidden: [8]\nepochs: 2\n"), "ann")
	if err != nil {
		t.Fatal(err)
	}
	a := c.Model.Settings.(*ann.Config)
	if c.Epochs != 2 || !reflect.DeepEqual(a.Hidden, []int{8}) || c.BatchSize != 256 || c.Optimizer.LR != 0.001 || a.Activation != "relu" {
		t.Fatalf("defaults not filled: %+v", c)
	}
}
