// Package cmdref makes the Markdown reference of a cobra command tree, one
// page per command made from the same text as its --help, and writes it
// into a folder, removing the pages of commands that are gone.
package cmdref

import (
	"bytes"
	"fmt"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"

	"github.com/dchess/dchess/internal/safefile"
)

// Pages renders the page of root and of every available command under it,
// each starting with header, by file name (FileName). Links between pages
// are relative: all pages sit in one folder.
func Pages(root *cobra.Command, header string) (map[string][]byte, error) {
	// What Execute adds before running a command, so the pages show what
	// --help shows: the completion command and --version.
	root.InitDefaultCompletionCmd()
	root.InitDefaultVersionFlag()
	pages := map[string][]byte{}
	var visit func(c *cobra.Command) error
	visit = func(c *cobra.Command) error {
		c.DisableAutoGenTag = true // no date line: the pages are the same on every run
		var buf bytes.Buffer
		buf.WriteString(header)
		if err := doc.GenMarkdownCustom(c, &buf, func(link string) string { return link }); err != nil {
			return err
		}
		pages[FileName(c)] = buf.Bytes()
		for _, sub := range c.Commands() {
			if !sub.IsAvailableCommand() || sub.IsAdditionalHelpTopicCommand() {
				continue
			}
			if err := visit(sub); err != nil {
				return err
			}
		}
		return nil
	}
	if err := visit(root); err != nil {
		return nil, err
	}
	return pages, nil
}

// FileName is cobra's name for a command's page: dchess_dataset_info.md
// for "dchess dataset info".
func FileName(c *cobra.Command) string {
	return strings.ReplaceAll(c.CommandPath(), " ", "_") + ".md"
}

// IsPage says whether a file name is one Pages makes for a tree whose
// root command is named root, so Write removes stale pages and nothing
// else.
func IsPage(root, name string) bool {
	return (name == root+".md" || strings.HasPrefix(name, root+"_")) && strings.HasSuffix(name, ".md")
}

// Write writes the pages of root into dir and removes the pages of
// commands that are gone.
func Write(root *cobra.Command, header, dir string) error {
	pages, err := Pages(root, header)
	if err != nil {
		return err
	}
	if err := safefile.WriteFiles(dir, pages, func(name string) bool { return IsPage(root.Name(), name) }); err != nil {
		return fmt.Errorf("writing the reference: %w", err)
	}
	return nil
}

// Drift lists, sorted, how a checked-in reference (got, pages by file
// name) differs from the one the code generates (want): the pages missing,
// those that differ and those no longer generated. The reference tests of
// the commands and of the configs report it with the command that
// regenerates.
func Drift(want, got map[string][]byte) []string {
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
			drift = append(drift, name+" is no page of the reference")
		}
	}
	sort.Strings(drift)
	return drift
}
