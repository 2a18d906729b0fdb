package player

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestFamiliesRegisterWhereThePackageCommentSays scans the module's
// sources: model families register their players only through the
// family registry (RegisterModel, RegisterModelChecked and
// RegisterProposer in models/family/family.go), and any
// other player family outside this package registers from its own package
// under models/, so a reader finds every family where the package comment
// says.
func TestFamiliesRegisterWhereThePackageCommentSays(t *testing.T) {
	root := filepath.Join("..", "..")
	call := regexp.MustCompile(`\bplayer\.(Register|RegisterChecked|RegisterModel|RegisterModelChecked|RegisterProposer)\(`)
	found := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); strings.HasPrefix(name, ".") && path != root {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		for _, m := range call.FindAllStringSubmatch(string(src), -1) {
			found++
			switch {
			case modelCall(m[1]) && rel == "models/family/family.go":
			case !modelCall(m[1]) && strings.HasPrefix(rel, "models/") && strings.Count(rel, "/") == 2:
			default:
				t.Errorf("%s calls player.%s: model families register through family.MustRegister, other families from their own package under models/", rel, m[1])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if found < 3 {
		t.Fatalf("found %d registrations outside search/player; the scan is looking in the wrong place", found)
	}
}

func modelCall(name string) bool {
	return name == "RegisterModel" || name == "RegisterModelChecked" || name == "RegisterProposer"
}
