package main

//go:generate go run . docs --out ../../docs/reference/commands

import (
	"github.com/spf13/cobra"

	"github.com/dchess/dchess/internal/cmdref"
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
			return cmdref.Write(newRootCmd(s), referenceHeader, out)
		},
	}
	cmd.Flags().StringVar(&out, "out", referenceDir, "folder to write the pages into")
	return cmd
}
