package family

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// docs/training.md's contract lists every field of the descriptor, so a
// field added to Family without a line there, or a line left for a field
// that is gone, fails here.
func TestTrainingDocListsEveryDescriptorField(t *testing.T) {
	text, err := os.ReadFile(filepath.Join("..", "..", "docs", "training.md"))
	if err != nil {
		t.Fatal(err)
	}
	// The table under the header "| field | what it gives |".
	_, table, found := strings.Cut(string(text), "| field | what it gives |\n")
	if !found {
		t.Fatal("docs/training.md has no table of the descriptor's fields")
	}
	listed := map[string]bool{}
	row := regexp.MustCompile("^\\| (`[A-Za-z]+`(?:, `[A-Za-z]+`)*) \\|")
	for _, line := range strings.Split(table, "\n")[1:] {
		if !strings.HasPrefix(line, "|") {
			break
		}
		if m := row.FindStringSubmatch(line); m != nil {
			for _, name := range strings.Split(m[1], ", ") {
				listed[strings.Trim(name, "`")] = true
			}
		}
	}
	fields := reflect.TypeOf(Family{})
	has := map[string]bool{}
	for i := 0; i < fields.NumField(); i++ {
		name := fields.Field(i).Name
		has[name] = true
		if fields.Field(i).IsExported() && !listed[name] {
			t.Errorf("docs/training.md's contract does not list Family.%s", name)
		}
	}
	for name := range listed {
		if !has[name] && name[0] >= 'A' && name[0] <= 'Z' {
			t.Errorf("docs/training.md's contract lists %s, which Family does not have", name)
		}
	}
}
