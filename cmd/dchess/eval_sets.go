package main

import (
	"context"
	"fmt"

	"github.com/dchess/dchess/models/family"
	"github.com/dchess/dchess/pipeline/evaluate"
)

// evalData scores --data: pair accuracy for a comparator or with --pairs,
// else action accuracy.
func evalData(ctx context.Context, opts *evalOptions, eo evaluate.Options, s *IOStreams) error {
	do := evaluate.DataOptions{Options: eo, Dataset: opts.Data, Steps: opts.Steps, RunsDir: family.DefaultRunsDir}
	if opts.Pairs || family.Supports(eo.Player.Family, family.EvalPairs) {
		return evalPairs(ctx, opts, do, s)
	}
	rep, err := evaluate.Data(ctx, do)
	if err != nil {
		return err
	}
	return s.printReport(opts.JSON, rep, rep.Text)
}

func evalPairs(ctx context.Context, opts *evalOptions, do evaluate.DataOptions, s *IOStreams) error {
	rep, err := evaluate.Pairs(ctx, do)
	if err != nil {
		return err
	}
	if !opts.JSON && rep.Unreadable > 0 {
		s.Infof("%d records skipped: their position or move does not parse\n", rep.Unreadable)
	}
	return s.printReport(opts.JSON, rep, rep.Text)
}

func evalPuzzles(ctx context.Context, opts *evalOptions, eo evaluate.Options, s *IOStreams) error {
	rep, err := evaluate.Puzzles(ctx, opts.Puzzles, eo)
	if err != nil {
		return err
	}
	fmt.Fprint(s.ErrOut, rep.Skipped.Text())
	return s.printReport(opts.JSON, rep, rep.Text)
}
