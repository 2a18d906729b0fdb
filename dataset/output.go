package dataset

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// ErrExists reports an output that is already there and was not to be
// replaced: the commands' --force replaces it.
var ErrExists = errors.New("exists")

// CheckOutputFile refuses to write over an existing file unless force.
func CheckOutputFile(path string, force bool) error {
	st, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return err
	case st.IsDir():
		return fmt.Errorf("%s is a folder, not a file", path)
	case !force:
		return fmt.Errorf("%s %w: pass --force to replace it", path, ErrExists)
	}
	return nil
}

// CheckOutputFolder refuses dir as the folder a command fills with its own
// files when it is the file system root or the home folder, or when it holds
// an entry own does not claim: the command would mix its files with the
// user's, and a later replacement could take theirs with it.
func CheckOutputFolder(dir string, own func(name string) bool) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	if abs == filepath.Dir(abs) {
		return fmt.Errorf("output folder %s is the root folder: give a folder of its own", dir)
	}
	if home, err := os.UserHomeDir(); err == nil {
		if real, err := filepath.EvalSymlinks(home); err == nil {
			home = real
		}
		if abs == filepath.Clean(home) {
			return fmt.Errorf("output folder %s is your home folder: give a folder of its own", dir)
		}
	}
	foreign, err := foreignEntries(dir, own)
	if err != nil {
		return err
	}
	if len(foreign) > 0 {
		return fmt.Errorf("output folder %s holds files dchess did not write (%s): give a new or empty folder", dir, listNames(foreign))
	}
	return nil
}

// foreignEntries lists the names in dir that own does not claim; a missing
// dir has none.
func foreignEntries(dir string, own func(name string) bool) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var foreign []string
	for _, e := range entries {
		if !own(e.Name()) {
			foreign = append(foreign, e.Name())
		}
	}
	sort.Strings(foreign)
	return foreign, nil
}

// listNames names the first few of names.
func listNames(names []string) string {
	const shown = 5
	if len(names) <= shown {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:shown], ", "), len(names)-shown)
}

// datasetOwns says whether a dataset folder's entry is one dchess writes
// there: the manifest, shards, and the temporaries of a manifest rewrite
// and of a split.
func datasetOwns(name string) bool {
	return name == ManifestFile || (strings.HasPrefix(name, "shard-") && strings.HasSuffix(name, ".rec")) ||
		strings.HasPrefix(name, "."+ManifestFile+".tmp-") || strings.HasPrefix(name, splitScratchPrefix)
}
