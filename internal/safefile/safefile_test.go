package safefile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteFileReplacesWhole(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f.json")
	for _, text := range []string{"one", "two"} {
		if err := WriteFile(path, []byte(text)); err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(path); string(got) != text {
			t.Fatalf("file holds %q, want %q", got, text)
		}
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Fatalf("temporaries left: %v", entries)
	}
}

func TestDiscardLeavesTheOldFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "games.pgn")
	os.WriteFile(path, []byte("old"), 0o644)
	f, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("half a game")
	if got, _ := os.ReadFile(path); string(got) != "old" {
		t.Fatalf("the final name changed before Commit: %q", got)
	}
	f.Discard()
	f.Discard()
	if got, _ := os.ReadFile(path); string(got) != "old" {
		t.Fatalf("after Discard: %q", got)
	}
	if err := f.Commit(); err == nil {
		t.Fatal("Commit after Discard succeeded")
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Fatalf("temporaries left: %v", entries)
	}
}

// A killed writer leaves its temporary; the next writer of the same file
// removes it, and leaves a live writer's alone.
func TestStaleTemporariesGoAndLiveWritersExclude(t *testing.T) {
	if !LocksWork {
		t.Skip("no file locks here")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "out.csv")
	stale := TempPrefix(path) + "0badf00d"
	os.WriteFile(stale, []byte("76 MB of a killed export"), 0o644)
	other := filepath.Join(dir, ".other.csv.tmp-0badf00d")
	os.WriteFile(other, nil, 0o644)
	if !IsTemp(filepath.Base(stale)) || IsTemp("notes.txt") || IsTemp(".x.tmp-zz") {
		t.Fatal("IsTemp misreads names")
	}
	live, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("stale temporary kept: %v", err)
	}
	if _, err := os.Stat(other); err != nil {
		t.Fatalf("another file's temporary was removed: %v", err)
	}
	second, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(live.Name()); err != nil {
		t.Fatalf("a live writer's temporary was removed: %v", err)
	}
	second.WriteString("second")
	if err := second.Commit(); err != nil {
		t.Fatal(err)
	}
	live.WriteString("first")
	if err := live.Commit(); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); string(got) != "first" {
		t.Fatalf("the last commit should win: %q", got)
	}
}

func TestLock(t *testing.T) {
	if !LocksWork {
		t.Skip("no file locks here")
	}
	lock := filepath.Join(t.TempDir(), "lock")
	unlock, err := Lock(lock)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Lock(lock); !errors.Is(err, ErrLocked) {
		t.Fatalf("second lock: %v", err)
	}
	unlock()
	again, err := Lock(lock)
	if err != nil {
		t.Fatal(err)
	}
	again()
}

func TestCheckOutputFolder(t *testing.T) {
	own := func(name string) bool { return name == "mine" }
	dir := t.TempDir()
	if err := CheckOutputFolder(filepath.Join(dir, "new"), own); err != nil {
		t.Fatalf("a new folder: %v", err)
	}
	os.WriteFile(filepath.Join(dir, "mine"), nil, 0o644)
	if err := CheckOutputFolder(dir, own); err != nil {
		t.Fatalf("a folder of own files: %v", err)
	}
	os.WriteFile(filepath.Join(dir, "notes.txt"), nil, 0o644)
	if err := CheckOutputFolder(dir, own); err == nil || !strings.Contains(err.Error(), "notes.txt") {
		t.Fatalf("a folder with a user's file: %v", err)
	}
	if err := CheckOutputFolder("/", own); err == nil || !strings.Contains(err.Error(), "root") {
		t.Fatalf("the root: %v", err)
	}
	t.Setenv("HOME", dir)
	if err := CheckOutputFolder(dir+"/.", func(string) bool { return true }); err == nil || !strings.Contains(err.Error(), "home") {
		t.Fatalf("the home folder: %v", err)
	}
}

func TestCheckOutputFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.csv")
	if err := CheckOutputFile(path, false); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(path, nil, 0o644)
	if err := CheckOutputFile(path, false); !errors.Is(err, ErrExists) {
		t.Fatalf("an existing file without force: %v", err)
	}
	if err := CheckOutputFile(path, true); err != nil {
		t.Fatal(err)
	}
}

// WriteFiles writes every file and removes only the stale files it is told
// it owns, never another file of the folder.
func TestWriteFilesRemovesOnlyStaleOwnedFiles(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "gone.md"), []byte("old page"), 0o644)
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("the user's"), 0o644)
	os.WriteFile(filepath.Join(dir, "kept.md"), []byte("old"), 0o644)
	page := func(name string) bool { return strings.HasSuffix(name, ".md") }
	if err := WriteFiles(dir, map[string][]byte{"kept.md": []byte("new"), "added.md": []byte("a")}, page); err != nil {
		t.Fatal(err)
	}
	var names []string
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if strings.Join(names, " ") != "added.md kept.md notes.txt" {
		t.Fatalf("the folder holds %v", names)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "kept.md")); string(got) != "new" {
		t.Fatalf("kept.md holds %q", got)
	}
}
