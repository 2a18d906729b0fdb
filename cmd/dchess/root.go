package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/dchess/dchess/internal/buildinfo"
	"github.com/dchess/dchess/internal/suggest"
	"github.com/dchess/dchess/models/family"
	"github.com/dchess/dchess/search/match"
	"github.com/dchess/dchess/search/player"
)

// version is set at build time with -ldflags "-X main.version=..." (make
// build does); otherwise buildinfo.Version reads what the go command stamped.
var version = ""

// Exit codes, one rule for every command (README, "Exit codes"): 0 when
// the command did its work, 2 when it was called wrongly (an unknown
// command or flag, a missing or malformed argument, a player SPEC that is
// wrong: nothing was done), 1 when it failed while working.
const (
	exitFailure = 1
	exitUsage   = 2
)

// usageError marks errors in how a command was called; main exits 2 on them.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// isUsageError reports whether err is about how dchess was called: a
// usageError, a *player.SpecError from any command that takes a player
// SPEC, or a *match.SettingsError from one that takes the game flags. Cobra reports an unknown command at the root as a plain error,
// recognised here by its wording.
func isUsageError(err error) bool {
	var usage *usageError
	var spec *player.SpecError
	var settings *match.SettingsError
	return errors.As(err, &usage) || errors.As(err, &spec) || errors.As(err, &settings) ||
		strings.HasPrefix(err.Error(), "unknown command ")
}

// playerFlag reads the player SPEC given to --flag and checks what can be
// checked without making the player (player.Check), so a misspelt family
// or a missing file fails before the command prints or plays anything.
func playerFlag(flag, raw string) (player.Spec, error) {
	s, err := player.ParseSpec(raw)
	if err == nil {
		err = player.Check(s)
	}
	if err != nil {
		return s, usagef("--%s: %v", flag, err)
	}
	return s, nil
}

// reportError prints err for the command that was run and returns the exit
// code: usage errors get the command's usage line and exit 2, other
// failures exit 1.
func reportError(w io.Writer, cmd *cobra.Command, err error) int {
	if err == nil {
		return 0
	}
	fmt.Fprintf(w, "dchess: %s\n", strings.TrimRight(err.Error(), "\n"))
	if !isUsageError(err) {
		return exitFailure
	}
	if cmd != nil {
		fmt.Fprintf(w, "\nUsage: %s\nRun '%s --help' for the flags and examples.\n", usageLine(cmd), cmd.CommandPath())
	}
	return exitUsage
}

// usageLine is the command's synopsis; a group of commands shows COMMAND.
func usageLine(cmd *cobra.Command) string {
	if !cmd.Runnable() && cmd.HasAvailableSubCommands() {
		return cmd.CommandPath() + " COMMAND [flags]"
	}
	return cmd.UseLine()
}

func newRootCmd(s *IOStreams) *cobra.Command {
	root := &cobra.Command{
		Use:   "dchess",
		Short: "Datasets, training and engine matches for learned chess evaluation",
		Long: `dchess turns PGN dumps and Stockfish labels into datasets, trains learned
chess evaluators with Gorgonia, and measures them in engine matches with Elo reports.

Exit codes: 0 done, 1 failed while working, 2 called wrongly (unknown command or
flag, bad argument; nothing was done).`,
		Example: `  dchess ingest games.pgn -o data/games
  dchess label --stockfish /usr/games/stockfish -i data/games -o data/labelled --depth 8`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       buildinfo.Version(version),
	}
	root.PersistentFlags().BoolVarP(&s.Quiet, "quiet", "q", false, "no progress bars, progress lines or informational messages")
	player.SetModelResolver(family.Resolver(family.DefaultRunsDir, s.Infof)) // a command run from main says which weights a bare name plays
	root.SetIn(s.In)
	root.SetOut(s.Out)
	root.SetErr(s.ErrOut)
	root.SetFlagErrorFunc(flagError)
	// Every command, each from its own file; help lists them sorted.
	root.AddCommand(
		newVersionCmd(s),
		newBenchCmd(s),
		newDatagenCmd(s),
		newDatasetCmd(s),
		newEvalCmd(s),
		newExperienceCmd(s),
		newExportCmd(s),
		newDocsCmd(s),
		newIngestCmd(s),
		newLabelCmd(s),
		newMatchCmd(s),
		newPerftCmd(s),
		newPipelineCmd(s),
		newPlayCmd(s),
		newPlotCmd(s),
		newSelfPlayCmd(s),
		newTournamentCmd(s),
		newTrainCmd(s),
		newUCICmd(s),
	)
	markArgErrorsAsUsage(root)
	checkInputsFirst(root)
	registerCompletions(root)
	return root
}

// flagError makes a flag error a usage error, and suggests the closest
// flag for an unknown one, as cobra suggests the closest command.
func flagError(cmd *cobra.Command, err error) error {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "unknown flag: --"); ok {
		var names []string
		visit := func(f *pflag.Flag) { names = append(names, f.Name) }
		cmd.Flags().VisitAll(visit)
		cmd.InheritedFlags().VisitAll(visit)
		if best := suggest.Closest(name, names); best != "" {
			msg += "\n\nDid you mean this?\n\t--" + best
		}
	}
	return &usageError{msg: msg}
}

// markArgErrorsAsUsage wraps every command's argument check so a wrong
// argument count exits 2 like any other usage error.
func markArgErrorsAsUsage(cmd *cobra.Command) {
	if check := cmd.Args; check != nil {
		cmd.Args = func(c *cobra.Command, args []string) error {
			if err := check(c, args); err != nil {
				return &usageError{msg: err.Error()}
			}
			return nil
		}
	}
	for _, sub := range cmd.Commands() {
		markArgErrorsAsUsage(sub)
	}
}

func newVersionCmd(s *IOStreams) *cobra.Command {
	return &cobra.Command{
		Use:     "version",
		Short:   "Print the dchess version",
		Example: "  dchess version",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fmt.Fprintf(s.Out, "dchess %s\n", buildinfo.Version(version))
			return nil
		},
	}
}
