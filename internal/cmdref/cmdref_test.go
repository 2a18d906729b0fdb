package cmdref_test

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/dchess/dchess/internal/cmdref"
)

// tree is a root with one runnable command, one group of one, and a
// hidden one.
func tree() *cobra.Command {
	root := &cobra.Command{Use: "tool", Short: "A tool", Version: "1.0"}
	run := func(*cobra.Command, []string) error { return nil }
	group := &cobra.Command{Use: "group", Short: "A group"}
	group.AddCommand(&cobra.Command{Use: "leaf", Short: "A leaf", Example: "  tool group leaf", RunE: run})
	root.AddCommand(group, &cobra.Command{Use: "hidden", Hidden: true, RunE: run}, &cobra.Command{Use: "do", Short: "Do it", RunE: run})
	return root
}

func TestPages(t *testing.T) {
	pages, err := cmdref.Pages(tree(), "<!-- header -->\n\n")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for name := range pages {
		names = append(names, name)
	}
	slices.Sort(names)
	// The completion command Execute would add is there; the hidden one is not.
	want := []string{"tool.md", "tool_completion.md", "tool_completion_bash.md", "tool_completion_fish.md",
		"tool_completion_powershell.md", "tool_completion_zsh.md", "tool_do.md", "tool_group.md", "tool_group_leaf.md"}
	if !slices.Equal(names, want) {
		t.Errorf("pages %q, want %q", names, want)
	}
	leaf := pages["tool_group_leaf.md"]
	if !bytes.HasPrefix(leaf, []byte("<!-- header -->\n\n## tool group leaf\n")) || !bytes.Contains(leaf, []byte("  tool group leaf")) {
		t.Errorf("leaf page:\n%s", leaf)
	}
	if !bytes.Contains(pages["tool.md"], []byte("--version")) || !bytes.Contains(pages["tool.md"], []byte("(tool_do.md)")) {
		t.Errorf("root page lacks --version or a relative link:\n%s", pages["tool.md"])
	}
	for name, page := range pages {
		if bytes.Contains(page, []byte("Auto generated")) {
			t.Errorf("%s has cobra's dated line", name)
		}
	}
}

// Write replaces the pages in a folder, removes those of commands that
// are gone, and leaves other files alone.
func TestWriteRemovesStalePages(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{"tool_gone.md": "old", "README.md": "index", "tool.md": "old", "other_tool.md": "theirs"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := cmdref.Write(tree(), "", dir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "tool_gone.md")); !os.IsNotExist(err) {
		t.Errorf("the stale page stayed: %v", err)
	}
	for name, text := range map[string]string{"README.md": "index", "other_tool.md": "theirs"} {
		if b, err := os.ReadFile(filepath.Join(dir, name)); err != nil || string(b) != text {
			t.Errorf("%s: %q %v", name, b, err)
		}
	}
	if b, err := os.ReadFile(filepath.Join(dir, "tool.md")); err != nil || !strings.Contains(string(b), "## tool\n") {
		t.Errorf("tool.md was not rewritten: %q %v", b, err)
	}
}

func TestDrift(t *testing.T) {
	want := map[string][]byte{"a.md": []byte("a"), "b.md": []byte("b"), "c.md": []byte("c")}
	got := map[string][]byte{"a.md": []byte("a"), "b.md": []byte("old"), "gone.md": []byte("x")}
	d := cmdref.Drift(want, got)
	if strings.Join(d, "; ") != "b.md differs; c.md is missing; gone.md is no page of the reference" {
		t.Errorf("drift %q", d)
	}
	if d := cmdref.Drift(want, want); len(d) != 0 {
		t.Errorf("a reference against itself: %q", d)
	}
}
