package main

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/dchess/dchess/dataset"
	"github.com/dchess/dchess/dataset/ingest"
	"github.com/dchess/dchess/models/family"
)

// Shell completion of flag values ("dchess completion bash" and the other
// shells ask the hidden __complete command). A flag is completed by its
// name wherever it is defined, so a new command with --a or --players
// completes them as match does; --format is completed per command, as its
// values differ.

// specFlags take one player SPEC; specListFlags a comma-separated list.
var (
	specFlags     = []string{"a", "b", "player"}
	specListFlags = []string{"players"}
)

// valueFlags are flags whose values are a fixed list, by flag name.
var valueFlags = map[string]func() []string{
	"model":          family.Names,
	"openings-order": func() []string { return []string{"sequential", "random"} },
}

// formatValues are the values of --format, by the command's path.
var formatValues = map[string][]string{
	"dchess dataset export": dataset.ExportFormats,
	"dchess ingest":         ingest.FormatNames(),
}

// registerCompletions gives every command under root the completions of
// the flags it has.
func registerCompletions(root *cobra.Command) {
	var visit func(cmd *cobra.Command)
	visit = func(cmd *cobra.Command) {
		register := func(flag string, f cobra.CompletionFunc) {
			if cmd.Flags().Lookup(flag) == nil {
				return
			}
			if err := cmd.RegisterFlagCompletionFunc(flag, f); err != nil {
				panic(err) // registered twice: a programming error
			}
		}
		for _, flag := range specFlags {
			register(flag, completeSpec(family.CompleteSpec))
		}
		for _, flag := range specListFlags {
			register(flag, completeSpec(family.CompleteSpecList))
		}
		for flag, values := range valueFlags {
			register(flag, completeValues(values))
		}
		if values, ok := formatValues[cmd.CommandPath()]; ok {
			register("format", completeValues(func() []string { return values }))
		}
		for _, sub := range cmd.Commands() {
			visit(sub)
		}
	}
	visit(root)
}

// completeValues completes from a fixed list.
func completeValues(values func() []string) cobra.CompletionFunc {
	return func(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		var out []cobra.Completion
		for _, v := range values() {
			if strings.HasPrefix(v, toComplete) {
				out = append(out, v)
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

// completeSpec completes a player SPEC, or a list of them, with the
// weights under runs/ (family.CompleteSpec, family.CompleteSpecList).
func completeSpec(complete func(runsDir, word string) ([]string, bool)) cobra.CompletionFunc {
	return func(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		specs, paths := complete(family.DefaultRunsDir, toComplete)
		directive := cobra.ShellCompDirectiveNoFileComp
		if paths {
			directive |= cobra.ShellCompDirectiveNoSpace
		}
		return specs, directive
	}
}
