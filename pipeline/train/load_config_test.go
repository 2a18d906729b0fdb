package train

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dchess/dchess/configs"
	"github.com/dchess/dchess/models/family"
)

// TestLoadConfig: without a file the built-in config of the family is
// read, the one configs/<model>.yaml holds; a file is read as the
// family's config.
func TestLoadConfig(t *testing.T) {
	builtin, err := LoadConfig("", "cnn")
	if err != nil {
		t.Fatal(err)
	}
	data, err := configs.Read("cnn")
	if err != nil {
		t.Fatal(err)
	}
	want, err := family.ParseConfig(data, "cnn")
	if err != nil {
		t.Fatal(err)
	}
	if builtin.Model.Family != "cnn" || builtin.Seed != want.Seed || builtin.Epochs != want.Epochs {
		t.Errorf("built-in cnn config %+v, want %+v", builtin, want)
	}
	path := filepath.Join(t.TempDir(), "cnn.yaml")
	if err := os.WriteFile(path, []byte("epochs: 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if cfg, err := LoadConfig(path, "cnn"); err != nil || cfg.Epochs != 3 || cfg.Model.Family != "cnn" {
		t.Errorf("from a file: %+v, %v", cfg, err)
	}
	if _, err := LoadConfig("", "no-such-family"); err == nil || !strings.Contains(err.Error(), "no-such-family") {
		t.Errorf("an unknown family: %v", err)
	}
}
