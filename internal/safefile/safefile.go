// Package safefile is the one way dchess writes a file: the file appears
// whole or not at all (a temporary beside it, synced, renamed, the folder
// synced), an existing file is replaced only when the user asked for it, and
// what a killed writer left behind is found and removed by the next writer
// of the same file. Every command that writes goes through it, so the rule
// is kept in one place.
package safefile

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// ErrExists reports an output that is already there and was not to be
// replaced: the commands' --force replaces it.
var ErrExists = errors.New("exists")

// ErrLocked is the error when another process holds a lock or is writing
// the same file.
var ErrLocked = errors.New("another dchess process is writing it")

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
	foreign, err := ForeignEntries(dir, own)
	if err != nil {
		return err
	}
	if len(foreign) > 0 {
		return fmt.Errorf("output folder %s holds files dchess did not write (%s): give a new or empty folder", dir, ListNames(foreign))
	}
	return nil
}

// ForeignEntries lists the names in dir that own does not claim; a missing
// dir has none.
func ForeignEntries(dir string, own func(name string) bool) ([]string, error) {
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

// ListNames names the first few of names.
func ListNames(names []string) string {
	const shown = 5
	if len(names) <= shown {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:shown], ", "), len(names)-shown)
}

// WriteFile replaces path with data: written to a temporary beside it,
// synced and renamed, the folder synced, so a reader sees the old file or
// the new one and a kill or a full disk leaves no half-written file under
// path.
func WriteFile(path string, data []byte) error {
	f, err := Create(path)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Discard()
		return err
	}
	return f.Commit()
}

// WriteFiles makes dir hold files, each written whole as WriteFile writes
// it, and removes the regular files there that stale claims and files
// lacks: a generator's folder, whose pages of things now gone must go.
func WriteFiles(dir string, files map[string][]byte, stale func(name string) bool) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if _, ok := files[e.Name()]; !ok && e.Type().IsRegular() && stale(e.Name()) {
			if err := os.Remove(filepath.Join(dir, e.Name())); err != nil {
				return err
			}
		}
	}
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if err := WriteFile(filepath.Join(dir, name), files[name]); err != nil {
			return err
		}
	}
	return nil
}

// File is a file being written under a temporary name beside its final
// path. Commit puts it in place; Discard removes it. The writer holds a
// lock on the temporary for as long as it is open, so a temporary whose lock
// can be taken was left by a killed writer and is removed by the next Create
// of that path. Two live writers of one path each write their own
// temporary, and the last Commit wins, as with any rename.
type File struct {
	*os.File
	path string
	done bool
}

// TempPrefix is how the temporaries of path's writers begin; they end in
// eight hex digits.
func TempPrefix(path string) string {
	return filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp-")
}

// IsTemp says whether a folder entry's name is one of the temporaries
// Create makes (of any file).
func IsTemp(name string) bool {
	i := strings.LastIndex(name, ".tmp-")
	if !strings.HasPrefix(name, ".") || i < 1 || len(name)-i-len(".tmp-") != 8 {
		return false
	}
	for _, c := range name[i+len(".tmp-"):] {
		if !strings.ContainsRune("0123456789abcdef", c) {
			return false
		}
	}
	return true
}

// Create starts writing path. It first removes the temporaries of path that
// killed writers left.
func Create(path string) (*File, error) {
	if err := RemoveStale(path); err != nil {
		return nil, err
	}
	prefix := TempPrefix(path)
	for range 100 {
		name := fmt.Sprintf("%s%08x", prefix, rand.Uint32())
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if err := lockFile(f); err != nil {
			f.Close()
			os.Remove(name)
			return nil, err
		}
		return &File{File: f, path: path}, nil
	}
	return nil, fmt.Errorf("cannot create a temporary file beside %s", path)
}

// Path is the final name the file gets on Commit.
func (f *File) Path() string { return f.path }

// Commit syncs the file, renames it to its final name and syncs the folder.
// On failure the temporary is removed and the old file, if any, stays.
func (f *File) Commit() error {
	if f.done {
		return fmt.Errorf("%s: already committed or discarded", f.path)
	}
	f.done = true
	tmp := f.Name()
	err := f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, f.path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("writing %s: %w", f.path, err)
	}
	return SyncDir(filepath.Dir(f.path))
}

// Discard removes the temporary; the final path is untouched. It does
// nothing after Commit, so a deferred Discard is safe.
func (f *File) Discard() {
	if f.done {
		return
	}
	f.done = true
	f.Close()
	os.Remove(f.Name())
}

// RemoveStale deletes the temporaries of path whose writer is gone and
// keeps those of live writers. Where file locks do not work nothing is
// removed: a live writer could not be told from a dead one.
func RemoveStale(path string) error {
	if !LocksWork {
		return nil
	}
	names, err := filepath.Glob(globEscape(TempPrefix(path)) + "????????")
	if err != nil {
		return err
	}
	for _, name := range names {
		if !IsTemp(filepath.Base(name)) {
			continue
		}
		f, err := os.OpenFile(name, os.O_RDWR, 0)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		err = lockFile(f)
		if err == nil {
			err = os.Remove(name)
		} else if errors.Is(err, ErrLocked) {
			err = nil
		}
		f.Close()
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}

// globEscape quotes the characters filepath.Match treats as special.
func globEscape(s string) string {
	var b strings.Builder
	for _, c := range s {
		if strings.ContainsRune(`*?[\`, c) {
			b.WriteByte('\\')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// SyncDir makes a folder's entries (new or renamed files) durable.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, fs.ErrInvalid) {
		return err
	}
	return nil
}
