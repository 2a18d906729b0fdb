package main

import (
	"bytes"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// readReference reads the pages in dir by file name.
func readReference(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	pages := map[string][]byte{}
	for _, e := range entries {
		if !isReferencePage(e.Name()) {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		pages[e.Name()] = b
	}
	return pages
}

// TestReferenceIsUpToDate: the checked-in docs/reference/commands is what
// the commands generate now. A flag or command added, changed or removed
// without regenerating fails here, with the command that regenerates.
func TestReferenceIsUpToDate(t *testing.T) {
	dir := t.TempDir()
	s, _, _ := playStreams("")
	if err := writeReference(newRootCmd(s), dir); err != nil {
		t.Fatal(err)
	}
	want := readReference(t, dir)
	got := readReference(t, filepath.Join("..", "..", referenceDir))
	var drift []string
	for name, page := range want {
		switch old, ok := got[name]; {
		case !ok:
			drift = append(drift, name+" is missing")
		case !bytes.Equal(old, page):
			drift = append(drift, name+" differs")
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			drift = append(drift, name+" is of no command")
		}
	}
	sort.Strings(drift)
	if len(drift) > 0 {
		t.Errorf("%s is out of date with the commands' --help:\n\t%s\nRegenerate it from the repository's root with\n\t%s",
			referenceDir, strings.Join(drift, "\n\t"), regenerateReference)
	}
}

// TestReferenceDoesNotDependOnTheMachine: no page names this checkout or
// the home folder, or carries a date.
func TestReferenceDoesNotDependOnTheMachine(t *testing.T) {
	s, _, _ := playStreams("")
	pages, err := referencePages(newRootCmd(s))
	if err != nil {
		t.Fatal(err)
	}
	var local []string
	if wd, err := os.Getwd(); err == nil {
		local = append(local, filepath.Dir(filepath.Dir(wd)))
	}
	if home, err := os.UserHomeDir(); err == nil && len(home) > 1 {
		local = append(local, home)
	}
	for name, page := range pages {
		for _, l := range local {
			if bytes.Contains(page, []byte(l+"/")) {
				t.Errorf("%s names %s, a path of this machine", name, l)
			}
		}
		if bytes.Contains(page, []byte("Auto generated")) {
			t.Errorf("%s has cobra's dated line", name)
		}
	}
	if len(pages) < 20 {
		t.Errorf("only %d pages", len(pages))
	}
}

// TestReferencePagesKeepExamples: --help is the first reference, and every
// dchess command's help shows examples, so every page has them (cobra's own
// completion commands aside).
func TestReferencePagesKeepExamples(t *testing.T) {
	s, _, _ := playStreams("")
	root := newRootCmd(s)
	pages, err := referencePages(root)
	if err != nil {
		t.Fatal(err)
	}
	var visit func(c *cobra.Command)
	visit = func(c *cobra.Command) {
		if !c.IsAvailableCommand() || c.Name() == "completion" {
			return
		}
		page := pages[referenceFileName(c)]
		if c.Example == "" || !bytes.Contains(page, []byte("### Examples")) {
			t.Errorf("%s: --help has no examples (set the command's Example)", c.CommandPath())
		}
		for _, sub := range c.Commands() {
			visit(sub)
		}
	}
	visit(root)
}

// writeReference replaces the pages in a folder and removes those of
// commands that are gone, and leaves other files alone.
func TestWriteReferenceRemovesStalePages(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{"dchess_gone.md": "old", "README.md": "index", "dchess.md": "old"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, _, _ := playStreams("")
	if err := writeReference(newRootCmd(s), dir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "dchess_gone.md")); !os.IsNotExist(err) {
		t.Errorf("the stale page stayed: %v", err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "README.md")); err != nil || string(b) != "index" {
		t.Errorf("README.md: %q %v", b, err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "dchess.md")); err != nil || !strings.Contains(string(b), "## dchess\n") {
		t.Errorf("dchess.md was not rewritten: %q %v", b, err)
	}
}
