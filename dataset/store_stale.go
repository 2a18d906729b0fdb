package dataset

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"

	"github.com/dchess/dchess/internal/safefile"
)

// A Writer's temporary folder parent/.NAME.tmp-XXXXXXXX has a lock file
// beside it, the same name plus lockSuffix, that the writer holds from
// before the folder exists until it is gone or renamed into place. The lock
// goes with the process, even after kill -9, so a folder whose lock can be
// taken belongs to no running writer and is stale. A command's scratch
// folder inside a dataset (dataset split's, splitScratchPrefix) is locked
// the same way.
const lockSuffix = ".lock"

// makeLockedTempDir creates a folder in parent named prefix and eight hex
// digits, with its lock held; unlock releases and removes the lock file.
func makeLockedTempDir(parent, prefix string) (tmp string, unlock func(), err error) {
	for range 100 {
		tmp = filepath.Join(parent, fmt.Sprintf("%s%08x", prefix, rand.Uint32()))
		release, err := safefile.Lock(tmp + lockSuffix)
		if errors.Is(err, safefile.ErrLocked) {
			continue
		}
		if err != nil {
			return "", nil, err
		}
		unlock = func() {
			os.Remove(tmp + lockSuffix)
			release()
		}
		// 0777 minus the umask: os.MkdirTemp's 0700 would make the dataset,
		// once renamed into place, less readable than the user's folders.
		err = os.Mkdir(tmp, 0o777)
		if err == nil {
			return tmp, unlock, nil
		}
		unlock()
		if !errors.Is(err, os.ErrExist) {
			return "", nil, err
		}
	}
	return "", nil, fmt.Errorf("cannot create a temporary folder in %s", parent)
}

func tempPrefix(base string) string { return "." + base + ".tmp-" }

// removeStaleTemps deletes what killed writers of dataset parent/base left
// behind: temporary folders and lock files whose lock nobody holds. The
// moved-aside old dataset of an interrupted replacement (".old") goes only
// when the dataset itself is in place, since otherwise it is the only copy.
// Where locks do not work nothing is removed: a running writer could not be
// told from a dead one. It returns the names removed.
func removeStaleTemps(parent, base string) ([]string, error) {
	return removeUnlocked(parent, tempPrefix(base), func() bool { return exists(filepath.Join(parent, base)) })
}

// removeStaleScratch deletes the scratch folders that killed commands left
// inside dataset dir (those named prefix*, whose lock nobody holds), never
// a running command's. It returns the names removed.
func removeStaleScratch(dir, prefix string) ([]string, error) {
	return removeUnlocked(dir, prefix, func() bool { return true })
}

// removeUnlocked deletes the entries of parent named prefix* whose lock
// (see makeLockedTempDir) nobody holds: folders, moved-aside copies
// (".old", only when oldIsSpare says so) and lock files. A folder without a
// lock file, left by a dchess from before the locks, is stale too.
func removeUnlocked(parent, prefix string, oldIsSpare func() bool) ([]string, error) {
	if !safefile.LocksWork {
		return nil, nil
	}
	entries, err := os.ReadDir(parent)
	if err != nil {
		return nil, nil // nothing to clear; the caller reports real problems
	}
	var removed []string
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, prefix) {
			continue
		}
		tmp := filepath.Join(parent, strings.TrimSuffix(strings.TrimSuffix(name, lockSuffix), ".old"))
		if strings.HasSuffix(name, ".old") && !oldIsSpare() {
			continue
		}
		release, err := safefile.Lock(tmp + lockSuffix)
		if errors.Is(err, safefile.ErrLocked) {
			continue // a running command's
		}
		if err != nil {
			return removed, err
		}
		path := filepath.Join(parent, name)
		if !strings.HasSuffix(name, lockSuffix) {
			err = os.RemoveAll(path)
		}
		if !exists(tmp) && !exists(tmp+".old") {
			os.Remove(tmp + lockSuffix)
		}
		release()
		if err != nil {
			return removed, fmt.Errorf("removing the stale temporary %s: %w", path, err)
		}
		removed = append(removed, name)
	}
	return removed, nil
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}
