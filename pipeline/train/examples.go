package train

import (
	"context"
	"errors"
	"fmt"

	"github.com/dchess/dchess/dataset"
	"github.com/dchess/dchess/models/family"
)

// checkExamples refuses, before anything is written, a dataset whose
// train split holds no example the objective trains on: the run would take
// no step and export its random initial weights as if trained. The error
// says what is missing and which command makes it. The manifest answers
// at once for an empty dataset, an empty train split or no labels; for the
// rest the train split is read up to its first example (all of it when it
// has none).
func (t *trainer) checkExamples(ctx context.Context) error {
	f := t.cfg.Family()
	what, labelled := f.Examples(t.cfg)
	man, name := t.ds.Manifest(), t.opts.Data
	switch {
	case man.Counts.Records == 0:
		return fmt.Errorf("train: %s holds no positions: %s trains on %s", name, f.Name, what)
	case man.Split != nil && man.Split.Records.Train == 0:
		return fmt.Errorf("train: the train split of %s is empty (its %d positions are all in val and test): split it again with `dchess dataset split %s --val 0.05 --test 0.05`",
			name, man.Counts.Records, name)
	case labelled && man.Counts.Labelled == 0:
		return fmt.Errorf("train: %s holds no position labelled by Stockfish (none of its %d): %s trains on %s", name, man.Counts.Records, f.Name, what)
	}
	err := t.obj.Stream(ctx, t.ds, dataset.Train, family.StreamOrder{}, newProbeSink(t.obj))
	if errors.Is(err, errEnough) {
		return nil
	}
	if ctx.Err() != nil {
		// Interrupted before the answer: the run stops as any interrupted
		// run does, and its --resume checks again.
		return nil
	}
	if err != nil {
		return fmt.Errorf("train: %w", err)
	}
	return t.noExamplesError()
}

// noExamplesError is the error of a train split that gave no example.
func (t *trainer) noExamplesError() error {
	f := t.cfg.Family()
	what, _ := f.Examples(t.cfg)
	return fmt.Errorf("train: the train split of %s holds no example %s trains on (none in its %d positions): it trains on %s",
		t.opts.Data, f.Name, family.TrainRecords(t.ds.Manifest()), what)
}

// probeSink takes the first example a stream gives and ends the stream.
type probeSink struct {
	ins    [][]float32
	target []float32
}

func newProbeSink(o family.Objective) *probeSink {
	ins, target := oneRow(o)
	return &probeSink{ins: ins, target: target}
}

// oneRow makes the buffers of one example of o: each input's values and
// the target.
func oneRow(o family.Objective) (ins [][]float32, target []float32) {
	for _, shape := range o.InputShapes(1) {
		width := 1
		for _, d := range shape[1:] {
			width *= d
		}
		ins = append(ins, make([]float32, width))
	}
	return ins, make([]float32, o.TargetWidth())
}

func (p *probeSink) Row() ([][]float32, []float32) { return p.ins, p.target }
func (p *probeSink) Add() error                    { return errEnough }
func (p *probeSink) Reject()                       {}
