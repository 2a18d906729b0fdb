package main

//go:generate go run . docs --out ../../docs/reference/commands

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"

	"github.com/dchess/dchess/internal/safefile"
)

// referenceDir is where the generated command reference is checked in,
// relative to the repository's root.
const referenceDir = "docs/reference/commands"

// regenerateReference is the command that rewrites the checked-in
// reference; TestReferenceIsUpToDate names it when the pages drifted.
const regenerateReference = "go run ./cmd/dchess docs --out " + referenceDir

// referenceHeader starts every generated page.
const referenceHeader = "<!-- Generated from dchess's --help by `" + regenerateReference + "`: do not edit by hand. -->\n\n"

// newDocsCmd is the hidden command that writes the Markdown reference of
// every command, made from the same text as --help.
func newDocsCmd(s *IOStreams) *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:    "docs",
		Short:  "Write the Markdown command reference (docs/reference/commands)",
		Long:   "Writes one Markdown page per command, made from its --help, into --out, and removes the pages of commands that no longer exist.",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			// A new tree, not the one running: the pages must not depend
			// on how this command was called.
			return writeReference(newRootCmd(s), out)
		},
	}
	cmd.Flags().StringVar(&out, "out", referenceDir, "folder to write the pages into")
	return cmd
}

// referencePages renders the Markdown page of root and of every available
// command under it, by file name (dchess_dataset_info.md). Links between
// pages are relative: all pages sit in one folder.
func referencePages(root *cobra.Command) (map[string][]byte, error) {
	// What Execute adds before running a command, so the pages show what
	// --help shows: the completion command and --version.
	root.InitDefaultCompletionCmd()
	root.InitDefaultVersionFlag()
	pages := map[string][]byte{}
	var visit func(c *cobra.Command) error
	visit = func(c *cobra.Command) error {
		c.DisableAutoGenTag = true // no date line: the pages are the same on every run
		var buf bytes.Buffer
		buf.WriteString(referenceHeader)
		if err := doc.GenMarkdownCustom(c, &buf, func(link string) string { return link }); err != nil {
			return err
		}
		pages[referenceFileName(c)] = buf.Bytes()
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

// referenceFileName is cobra's name for a command's page.
func referenceFileName(c *cobra.Command) string {
	return strings.ReplaceAll(c.CommandPath(), " ", "_") + ".md"
}

// isReferencePage says whether a file name is one referencePages makes,
// so writeReference removes stale pages and nothing else.
func isReferencePage(name string) bool {
	return (name == "dchess.md" || strings.HasPrefix(name, "dchess_")) && strings.HasSuffix(name, ".md")
}

// writeReference writes the pages of root into dir and removes the pages
// of commands that are gone.
func writeReference(root *cobra.Command, dir string) error {
	pages, err := referencePages(root)
	if err != nil {
		return err
	}
	if err := safefile.WriteFiles(dir, pages, isReferencePage); err != nil {
		return fmt.Errorf("writing the reference: %w", err)
	}
	return nil
}
