package main

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/dchess/dchess/dataset"
	"github.com/dchess/dchess/dataset/ingest"
	"github.com/dchess/dchess/models/family"
	"github.com/dchess/dchess/search/player"
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
	"dchess dataset export": {dataset.ExportJSONL, dataset.ExportCSV},
	"dchess ingest": {string(ingest.FormatPGN), string(ingest.FormatLichessEvals), string(ingest.FormatCSV),
		string(ingest.FormatEPD)},
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
			register(flag, completeSpec(false))
		}
		for _, flag := range specListFlags {
			register(flag, completeSpec(true))
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

// completeSpec completes a player SPEC: a family name; after "family:" the
// weights of that family under runs/ (runs/NAME/model.dcw and the other
// .dcw files of a run folder), or after "uci:" an engine's path. With
// list, the SPEC is the last of a comma-separated list, and the ones
// before it are kept.
func completeSpec(list bool) cobra.CompletionFunc {
	return func(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		before, word := "", toComplete
		if i := strings.LastIndex(toComplete, ","); list && i >= 0 {
			before, word = toComplete[:i+1], toComplete[i+1:]
		}
		var out []cobra.Completion
		fam, _, hasPath := strings.Cut(word, ":")
		if !hasPath {
			for _, f := range player.Families() {
				if strings.HasPrefix(f, strings.ToLower(word)) {
					out = append(out, before+f)
				}
			}
			return out, cobra.ShellCompDirectiveNoFileComp
		}
		directive := cobra.ShellCompDirectiveNoFileComp
		paths := family.WeightsOf(runsDir, strings.ToLower(fam))
		if strings.EqualFold(fam, "uci") {
			// An engine's path: the files and folders the typed part starts.
			paths = pathsFrom(word[len(fam)+1:])
			directive |= cobra.ShellCompDirectiveNoSpace
		}
		for _, path := range paths {
			if spec := fam + ":" + path; strings.HasPrefix(spec, word) {
				out = append(out, before+spec)
			}
		}
		return out, directive
	}
}

// pathsFrom lists the files and folders whose paths start with prefix, a
// folder with its trailing slash (so the next tab goes into it).
func pathsFrom(prefix string) []string {
	matches, _ := filepath.Glob(prefix + "*")
	for i, m := range matches {
		if st, err := os.Stat(m); err == nil && st.IsDir() {
			matches[i] += string(filepath.Separator)
		}
	}
	return matches
}
