//go:build unix

package dataset

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// A dataset must be as readable as anything else the user creates: the
// temporary names it is built under must not leave it 0700/0600.
func TestDatasetPermissionsFollowUmask(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	dir := filepath.Join(t.TempDir(), "ds")
	writeDataset(t, dir, WriteOptions{}, sampleRecords(10, 5))
	if _, err := WriteSplit(dir, 0.1, 0.1, 1); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]os.FileMode{
		dir:                                   0o755,
		filepath.Join(dir, ManifestFile):      0o644,
		filepath.Join(dir, "shard-00000.rec"): 0o644,
	} {
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != want {
			t.Errorf("%s has mode %v, want %v", path, st.Mode().Perm(), want)
		}
	}
}
