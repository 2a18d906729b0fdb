package pipeline

import (
	"fmt"
	"math/rand/v2"

	"github.com/dchess/dchess/models/diffusion"
	"github.com/dchess/dchess/models/flow"
	"github.com/dchess/dchess/search/player"
)

// Discrete flow matching over action-state-action sequences (seed 000,
// section 3.2; docs/flow.md): the diffusion model's transformer learns
// p_{1|t} on a mixture path from a mask or board source and plays by Euler
// steps of the CTMC.
func init() {
	mustRegister(Family{
		Name:        flow.Family,
		Description: "discrete flow matching over action-state-action sequences, mask or board source (seed 000, 3.2)",
		Data:        sequenceData,
		FirstRun:    sequenceFirstRun(flow.Family),
		NewSettings: func() any { c := flow.DefaultConfig(); return &c },
		Defaults:    sequenceDefaults,
		Validate: func(c *Config) error {
			if c.Loss != LossCrossEntropy {
				return fmt.Errorf("flow is trained on a cross-entropy of its tokens (model.objective chooses which): loss must be cross_entropy, not %q", c.Loss)
			}
			fc := c.Model.Settings.(*flow.Config)
			fc.Family = c.Model.Family
			return fc.Validate()
		},
		Objective: func(c *Config, _ ObjectiveEnv) (objective, error) {
			m, err := flow.NewModel(*c.Model.Settings.(*flow.Config))
			if err != nil {
				return nil, err
			}
			return &sequenceObjective{m: &flowModel{Model: m}, cfg: c}, nil
		},
		Examples: func(c *Config) (string, bool) {
			return sequenceExamples(c.Model.Settings.(*flow.Config).Target)
		},
		Bounds: transformerBounds,
		Size: func(c *Config) ModelSize {
			return transformerSize(c.Model.Settings.(*flow.Config).Transformer())
		},
		Accuracy:  AccuracyAction,
		Reference: "at 20,000 steps on 331,763 positions with 4-move lines, flow-small with the board source chose Stockfish's move in 13.2 % of 500 test positions with a_i first, the player's default, diffusion-small in 11.8 % (13.4 % at best, jointly at 2 steps) and policy-small in 15.0 % (docs/results/2026-11-26-sequence-families-20000-steps.md)",
		Metrics: []MetricInfo{
			{"train_loss, val_loss", "the flow loss of the corrupted tokens: kappa'_t/(1 - kappa_t)-weighted (elbo) or plain cross-entropy; a_i's over its legal moves with legal_mask"},
			{"train_action_accuracy, val_action_accuracy", "share of rows with a_i at its source whose argmax over all moves (the legal ones with legal_mask) is the target move"},
		},
		Player:      sequencePlayer(flowDecoder),
		Decoder:     flowDecoder,
		Evaluations: EvalActions | EvalStepsSweep,
	})
}

// flowDecoder loads a flow SPEC's decoder: steps= Euler steps (default as
// trained), sampler=deterministic|stochastic, seed= the stochastic draws',
// order= when a_i is decided (decodingOrder), and the player's
// repetition= as diffusionDecoder does.
func flowDecoder(spec player.Spec) (*Decoding, error) {
	if err := spec.CheckSettings(append([]string{"steps", "sampler", "seed", "order"}, player.ProposerSettings...)...); err != nil {
		return nil, err
	}
	actionFirst, err := decodingOrder(spec)
	if err != nil {
		return nil, err
	}
	net, err := flow.Load(spec.Path)
	if err != nil {
		return nil, fmt.Errorf("player flow: %w", err)
	}
	dec := flow.NewDecoder(net)
	if dec.Steps, err = decodingSteps(spec, dec.Steps); err != nil {
		return nil, err
	}
	if err := dec.SetSampler(spec.Get("sampler", dec.Sampler)); err != nil {
		return nil, player.SpecErrorf("player flow: %w", err) // the only error: a sampler= it does not know
	}
	seed, err := spec.Int("seed", 0)
	if err != nil {
		return nil, err
	}
	dec.Seed, dec.ActionFirst = uint64(seed), actionFirst
	return &Decoding{Decoder: dec, Steps: dec.Steps}, nil
}

// flowModel is flow's sequence model: the path's corruption also gives the
// board source's stay inputs.
type flowModel struct {
	*flow.Model
	in           []int16
	weight, stay []float32
}

func (m *flowModel) transformer() diffusion.Transformer { return m.Config().Transformer() }
func (m *flowModel) target() string                     { return m.Config().Target }
func (m *flowModel) corrupt(rng *rand.Rand, seq []int16, rows [][]float32) {
	if m.in == nil {
		m.in, m.weight, m.stay = make([]int16, len(seq)), make([]float32, len(seq)), make([]float32, len(seq))
	}
	m.Config().Corrupt(rng, seq, m.in, m.weight, m.stay)
	m.Encode(m.in, seq, m.weight, m.stay, rows)
}
