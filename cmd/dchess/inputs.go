package main

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/dchess/dchess/internal/jobarray"
)

// An input named on the command line that does not exist (a dataset, a
// file of openings, a run folder) is a wrong argument: exit 2, found
// before the command starts, so nothing was done. An input that exists
// but cannot be read fails while working: exit 1. Commands declare their
// inputs with inputFlags and inputArgs, and newRootCmd checks them all
// the same way before any command runs. Player SPECs name files too;
// player.Check finds those (see playerFlag).

// inputKind says what an input is, for the check and its message.
type inputKind string

const (
	inputFile     inputKind = "file"
	inputRun      inputKind = "run folder"
	inputAny      inputKind = "file or folder"
	inputDataset  inputKind = "dataset"
	inputDatasets inputKind = "datasets" // A,B,C as train --data takes them
	// inputShards is the NAME of the NAME-IIII-of-NNNN outputs of a job array.
	inputShards inputKind = "shards"
)

// inputAnnotation marks a flag (pflag annotation) or a command's
// positional arguments (cobra annotation) as inputs of a kind.
const inputAnnotation = "dchess-input"

// inputFlags declares flags of cmd whose values name inputs of kind.
func inputFlags(cmd *cobra.Command, kind inputKind, names ...string) {
	for _, name := range names {
		if err := cmd.Flags().SetAnnotation(name, inputAnnotation, []string{string(kind)}); err != nil {
			panic(err) // a flag renamed without its declaration
		}
	}
}

// inputArgs declares that every positional argument of cmd names an input
// of kind.
func inputArgs(cmd *cobra.Command, kind inputKind) {
	if cmd.Annotations == nil {
		cmd.Annotations = map[string]string{}
	}
	cmd.Annotations[inputAnnotation] = string(kind)
}

// checkInputsFirst makes every command check its declared inputs before
// it runs.
func checkInputsFirst(cmd *cobra.Command) {
	if run := cmd.RunE; run != nil {
		cmd.RunE = func(c *cobra.Command, args []string) error {
			if err := checkInputs(c, args); err != nil {
				return err
			}
			return run(c, args)
		}
	}
	for _, sub := range cmd.Commands() {
		checkInputsFirst(sub)
	}
}

// checkInputs returns a usage error for the first declared input of cmd
// that does not exist: flags given on the command line, then arguments.
func checkInputs(cmd *cobra.Command, args []string) error {
	var err error
	cmd.Flags().Visit(func(f *pflag.Flag) {
		if kind := f.Annotations[inputAnnotation]; err == nil && len(kind) == 1 {
			err = checkInput("--"+f.Name+": ", inputKind(kind[0]), f.Value.String())
		}
	})
	if err != nil {
		return err
	}
	if kind, ok := cmd.Annotations[inputAnnotation]; ok {
		for _, arg := range args {
			if err := checkInput("", inputKind(kind), arg); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkInput checks one input; an empty value is the command's to refuse.
// Messages name the input as the code that reads it would.
func checkInput(flag string, kind inputKind, value string) error {
	paths := []string{value}
	if kind == inputDatasets {
		paths = strings.Split(value, ",")
	}
	for _, path := range paths {
		if path == "" {
			continue
		}
		if kind == inputShards {
			if found, err := jobarray.Find(path); len(found) == 0 && (err == nil || errors.Is(err, fs.ErrNotExist)) {
				base := filepath.Clean(path)
				return usagef("%sno shards named %s-NNNN-of-NNNN in %s", flag, filepath.Base(base), filepath.Dir(base))
			}
			continue
		}
		if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
			continue
		}
		switch kind {
		case inputDataset, inputDatasets:
			return usagef("%sdataset %s: no such folder", flag, path)
		default:
			return usagef("%s%s: no such %s", flag, path, kind)
		}
	}
	return nil
}
