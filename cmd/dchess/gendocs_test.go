package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/dchess/dchess/internal/cmdref"
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
		if !cmdref.IsPage("dchess", e.Name()) {
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
	if err := cmdref.Write(newRootCmd(s), referenceHeader, dir); err != nil {
		t.Fatal(err)
	}
	want := readReference(t, dir)
	got := readReference(t, filepath.Join("..", "..", referenceDir))
	drift := cmdref.Drift(want, got)
	if len(drift) > 0 {
		t.Errorf("%s is out of date with the commands' --help:\n\t%s\nRegenerate it from the repository's root with\n\t%s",
			referenceDir, strings.Join(drift, "\n\t"), regenerateReference)
	}
}

// TestReferenceDoesNotDependOnTheMachine: no page names this checkout or
// the home folder (that none carries a date is cmdref's test).
func TestReferenceDoesNotDependOnTheMachine(t *testing.T) {
	s, _, _ := playStreams("")
	pages, err := cmdref.Pages(newRootCmd(s), referenceHeader)
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
	pages, err := cmdref.Pages(root, referenceHeader)
	if err != nil {
		t.Fatal(err)
	}
	var visit func(c *cobra.Command)
	visit = func(c *cobra.Command) {
		if !c.IsAvailableCommand() || c.Name() == "completion" {
			return
		}
		page := pages[cmdref.FileName(c)]
		if c.Example == "" || !bytes.Contains(page, []byte("### Examples")) {
			t.Errorf("%s: --help has no examples (set the command's Example)", c.CommandPath())
		}
		for _, sub := range c.Commands() {
			visit(sub)
		}
	}
	visit(root)
}
