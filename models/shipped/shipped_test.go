package shipped

import (
	"os"
	"strings"
	"testing"

	"github.com/dchess/dchess/models/dcw"
)

// TestEveryShippedFileLoadsWithItsProvenance: each shipped .dcw is a
// readable weights file of its own family, written out once, with a note
// saying how it was made; the total stays within the 25 MB the project
// allows itself.
func TestEveryShippedFileLoadsWithItsProvenance(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	var total int
	if len(Families()) == 0 {
		t.Fatal("nothing shipped")
	}
	for _, family := range Families() {
		path, err := Path(family)
		if err != nil {
			t.Fatal(err)
		}
		f, err := dcw.Read(path)
		if err != nil || f.Family != family {
			t.Fatalf("%s: %v (family %q)", family, err, f.Family)
		}
		st, _ := os.Stat(path)
		total += int(st.Size())
		again, err := Path(family)
		if err != nil || again != path {
			t.Fatalf("%s: written again to %q (%v)", family, again, err)
		}
		note := Provenance(family)
		for _, want := range []string{"Data recipe", "Command", "Config", "Figures"} {
			if !strings.Contains(note, want) {
				t.Errorf("%s.md lacks %q", family, want)
			}
		}
	}
	if total > 25<<20 {
		t.Fatalf("shipped weights total %d bytes, over 25 MB", total)
	}
	if _, err := Path("no-such-family"); err == nil || !strings.Contains(err.Error(), "shipped: ") {
		t.Fatalf("unknown family: %v", err)
	}
}
