// Package shipped holds the trained weights dchess ships, as engines ship
// their networks, so a bare family name plays on a fresh checkout with no
// training: <family>.dcw beside <family>.md, which says how it was made
// (the data recipe, the command, the config and the figures it reached).
package shipped

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/dchess/dchess/internal/safefile"
)

//go:embed *.dcw *.md
var files embed.FS

// Families lists the families with shipped weights, sorted.
func Families() []string {
	entries, _ := fs.Glob(files, "*.dcw")
	var out []string
	for _, e := range entries {
		out = append(out, strings.TrimSuffix(e, ".dcw"))
	}
	slices.Sort(out)
	return out
}

// Provenance is the note that says how family's shipped weights were made
// ("" when none are shipped).
func Provenance(family string) string {
	data, err := files.ReadFile(family + ".md")
	if err != nil {
		return ""
	}
	return string(data)
}

// Path returns a file holding family's shipped weights: the players load
// weights from a path, so the embedded bytes are written once into the
// user's cache folder, under a name that carries their hash (a newer dchess
// with other weights writes another file, never over one in use).
func Path(family string) (string, error) {
	data, err := files.ReadFile(family + ".dcw")
	if err != nil {
		return "", fmt.Errorf("no %s weights are shipped with dchess (shipped: %s)", family, strings.Join(Families(), ", "))
	}
	sum := sha256.Sum256(data)
	dir, err := os.UserCacheDir()
	if err != nil {
		dir = os.TempDir()
	}
	dir = filepath.Join(dir, "dchess", "shipped")
	path := filepath.Join(dir, family+"-"+hex.EncodeToString(sum[:6])+".dcw")
	if old, err := os.ReadFile(path); err == nil && sha256.Sum256(old) == sum {
		return path, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("shipped %s weights: %w", family, err)
	}
	if err := safefile.WriteFile(path, data); err != nil {
		return "", fmt.Errorf("shipped %s weights: %w", family, err)
	}
	return path, nil
}
