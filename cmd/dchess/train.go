package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/dchess/dchess/models/family"
	"github.com/dchess/dchess/pipeline/plot"
	"github.com/dchess/dchess/pipeline/train"
)

type trainOptions struct {
	Model    string
	Data     string
	Config   string
	Out      string
	Resume   bool
	Init     string
	Seed     int64
	Epochs   int
	MaxSteps int64
	Workers  int
	// CheckpointEvery bounds what a run killed outright loses.
	CheckpointEvery time.Duration
	JSON            bool
	seedSet         bool
}

func newTrainCmd(s *IOStreams) *cobra.Command {
	opts := &trainOptions{}
	cmd := &cobra.Command{
		Use:   "train --model FAMILY --data DATASET",
		Short: "Train a model family with Gorgonia: evaluators, DeepChess, the sequence models",
		Long: `train fits a model family with Gorgonia: shuffled minibatches from the train split,
Adam, validation every epoch, early stopping. The run folder (--out, default
runs/<model>-<timestamp>) receives config.yaml (the config as run), metrics.jsonl,
loss.png, checkpoint/ and model.dcw.

The families (what each figure they report means: docs/reference/config/train-FAMILY.md):
` + family.Help() + `
Without --config the built-in configs/<model>.yaml (the published setup) is used.
Ctrl-C saves a checkpoint, and so does every --checkpoint-every inside an epoch (a
run killed outright loses at most that much); --resume continues a run exactly where
it stopped.`,
		Example: `  dchess train --model ann --data data/labelled
  dchess train --model cnn --data data/labelled --config configs/cnn-wide.yaml --out runs/cnn-wide
  dchess train --model cnn --data data/labelled --out runs/cnn-wide --resume --epochs 40
  dchess train --model autoencoder --data data/games --out runs/pos2vec
  dchess train --model siamese --data data/games --init runs/pos2vec --out runs/siamese
  dchess train --model diffusion --data data/pv4 --out runs/diffusion
  dchess train --model policy --data data/pv4 --out runs/policy
  dchess train --model cnn --data data/chunk-1,data/chunk-2 --out runs/cnn-2chunks`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.seedSet = cmd.Flags().Changed("seed")
			return runTrain(cmd.Context(), opts, s)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Model, "model", "", "model family: "+strings.Join(family.Names(), ", "))
	f.StringVar(&opts.Data, "data", "", "dataset folder, or several as one: A,B,C split alike (what each family needs: see the list above)")
	f.StringVar(&opts.Config, "config", "", "YAML config (default: the built-in configs/<model>.yaml)")
	f.StringVar(&opts.Out, "out", "", "run folder (default runs/<model>-<timestamp>)")
	f.BoolVar(&opts.Resume, "resume", false, "continue the run in --out from its newest checkpoint")
	f.StringVar(&opts.Init, "init", "", "siamese: the autoencoder run (or model.dcw) the towers start from (default: the newest under runs/)")
	f.Int64Var(&opts.Seed, "seed", 0, "seed for weight initialisation and data order (overrides the config)")
	f.IntVar(&opts.Epochs, "epochs", 0, "number of epochs (overrides the config)")
	f.Int64Var(&opts.MaxSteps, "max-steps", 0, "stop after this many optimizer steps (overrides the config)")
	f.IntVar(&opts.Workers, "workers", 0, "graphs each batch is split across, run side by side (default: the config's workers, where 0 is one per core)")
	f.DurationVar(&opts.CheckpointEvery, "checkpoint-every", train.DefaultCheckpointEvery, "also save a checkpoint inside an epoch this often (0: only at epoch ends and on Ctrl-C)")
	f.BoolVar(&opts.JSON, "json", false, "print the result as one JSON object")
	inputFlags(cmd, inputDatasets, "data")
	inputFlags(cmd, inputAny, "config", "init")
	return cmd
}

func runTrain(ctx context.Context, opts *trainOptions, s *IOStreams) error {
	if opts.Model == "" {
		return usagef("--model is required (%s)", strings.Join(family.Names(), ", "))
	}
	if opts.Data == "" {
		return usagef("--data is required")
	}
	if opts.Epochs < 0 || opts.MaxSteps < 0 || opts.CheckpointEvery < 0 || opts.Workers < 0 {
		return usagef("--epochs, --max-steps, --workers and --checkpoint-every must not be negative")
	}
	fam, err := family.Lookup(opts.Model)
	if err != nil {
		return usagef("--model: %v", err)
	}
	if opts.Init != "" && (fam.SetInit == nil || opts.Resume) {
		return usagef("--init starts a new run from another run's weights, which %s does not (a resumed run keeps its own)", opts.Model)
	}
	topts := train.Options{Data: opts.Data, RunDir: opts.Out, Resume: opts.Resume, AfterEpoch: plot.DrawLoss,
		Epochs: opts.Epochs, MaxSteps: opts.MaxSteps, Workers: opts.Workers, CheckpointEvery: opts.CheckpointEvery}
	if opts.CheckpointEvery == 0 {
		topts.CheckpointEvery = -1 // the flag's 0 is "never", the library's the default
	}
	if opts.Resume {
		if opts.Out == "" {
			return usagef("--resume needs --out RUNDIR, the run to continue")
		}
		if opts.Config != "" || opts.seedSet {
			return usagef("--resume keeps the run's own config and seed: drop --config and --seed")
		}
		// The run's config names its family; it must be the one asked for.
		if err := train.CheckResume(opts.Out, opts.Model); err != nil {
			return fmt.Errorf("cannot resume: %w", err)
		}
	} else {
		cfg, err := train.LoadConfig(opts.Config, opts.Model)
		if err != nil && opts.Config != "" {
			return usagef("%v", err)
		}
		if err != nil {
			return err
		}
		if opts.seedSet {
			cfg.Seed = opts.Seed
		}
		if opts.Init != "" {
			fam.SetInit(cfg, opts.Init)
		}
		topts.Config = cfg
		if topts.RunDir == "" {
			topts.RunDir = family.DefaultRunDir(family.DefaultRunsDir, opts.Model, time.Now())
		}
	}
	if !s.Quiet {
		topts.Progress = s.Progress
	}
	topts.Infof = s.Infof
	res, err := train.Run(ctx, topts)
	if err != nil {
		return err
	}
	return s.printReport(opts.JSON, res, func() string { return strings.Join(res.Summary(), "\n") + "\n" })
}
