package dataset

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/dchess/dchess/internal/safefile"
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
		return safefile.SyncDir(filepath.Dir(dir))
	}
	if err := exchangeDirs(tmp, dir); err == nil {
		// tmp now holds the old dataset.
		if err := safefile.SyncDir(filepath.Dir(dir)); err != nil {
			return err
		}
		return removeOld(tmp, dir)
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
	if err := safefile.SyncDir(filepath.Dir(dir)); err != nil {
		return err
	}
	return removeOld(old, dir)
}

// removeOld deletes the replaced dataset; failing that, the new one is in
// place all the same, and the error says so.
func removeOld(old, dir string) error {
	if err := os.RemoveAll(old); err != nil {
		return fmt.Errorf("the new dataset is in place, but the old copy at %s could not be removed: %w", old, err)
	}
	return nil
}
