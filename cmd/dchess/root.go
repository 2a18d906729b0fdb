package main

import (
	"fmt"

	"github.com/spf13/cobra"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

// usageError marks errors in how a command was called; main exits 2 on them.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

func newRootCmd(s *IOStreams) *cobra.Command {
	root := &cobra.Command{
		Use:   "dchess",
		Short: "Datasets, training and engine matches for learned chess evaluation",
		Long: `dchess turns PGN dumps and Stockfish labels into datasets, trains learned
chess evaluators with Gorgonia, and measures them in engine matches with Elo reports.`,
		Example: `  dchess ingest games.pgn -o data/games
  dchess label --stockfish /usr/games/stockfish -i data/games -o data/labelled --depth 8`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       version,
	}
	root.PersistentFlags().BoolVarP(&s.Quiet, "quiet", "q", false, "no progress bars or informational messages")
	root.SetIn(s.In)
	root.SetOut(s.Out)
	root.SetErr(s.ErrOut)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &usageError{msg: err.Error()} })
	root.AddCommand(newVersionCmd(s))
	for _, add := range commandRegistry {
		root.AddCommand(add(s))
	}
	return root
}

// commandRegistry lets each command file register itself in init, so adding
// a command touches only its own file.
var commandRegistry []func(*IOStreams) *cobra.Command

func register(f func(*IOStreams) *cobra.Command) { commandRegistry = append(commandRegistry, f) }

func newVersionCmd(s *IOStreams) *cobra.Command {
	return &cobra.Command{
		Use:     "version",
		Short:   "Print the dchess version",
		Example: "  dchess version",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fmt.Fprintf(s.Out, "dchess %s\n", version)
			return nil
		},
	}
}
