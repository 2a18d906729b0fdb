package dataset

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// replaceDir moves the finished folder tmp to dir. A missing dir is a plain
// rename. An existing one is swapped atomically where the system can
// (exchangeDirs), and otherwise moved aside first, so that at every moment
// dir is the old dataset, the new one, or (only on the fallback, between
// two renames) absent, never a half-written folder.
func replaceDir(tmp, dir string) error {
	if _, err := os.Lstat(dir); errors.Is(err, fs.ErrNotExist) {
		if err := os.Rename(tmp, dir); err != nil {
			return err
		}
		return syncDir(filepath.Dir(dir))
	}
	if err := exchangeDirs(tmp, dir); err == nil {
		// tmp now holds the old dataset.
		if err := syncDir(filepath.Dir(dir)); err != nil {
			return err
		}
		return os.RemoveAll(tmp)
	}
	old := tmp + ".old"
	if err := os.Rename(dir, old); err != nil {
		return err
	}
	if err := os.Rename(tmp, dir); err != nil {
		// Put the old dataset back rather than leave nothing.
		os.Rename(old, dir)
		return err
	}
	if err := syncDir(filepath.Dir(dir)); err != nil {
		return err
	}
	return os.RemoveAll(old)
}
