package flow

import (
	"fmt"
	"math/rand/v2"

	"github.com/dchess/dchess/models/family"
	"github.com/dchess/dchess/models/transformer"
	"github.com/dchess/dchess/models/transformer/sequence"
	"github.com/dchess/dchess/search/player"
)

// Discrete flow matching over action-state-action sequences (seed 000,
// section 3.2; docs/flow.md): the diffusion model's transformer learns
// p_{1|t} on a mixture path from a mask or board source and plays by Euler
// steps of the CTMC.
//
// Register adds it to the family registry and its player to the
// player registry; cmd/dchess calls it through families.RegisterAll.
func Register() {
	family.MustRegister(family.Family{
		Name:        Family,
		Description: "discrete flow matching over action-state-action sequences, mask or board source (seed 000, 3.2)",
		Data:        sequence.Data,
		FirstRun:    sequence.FirstRun(Family),
		NewSettings: func() any { c := DefaultConfig(); return &c },
		Defaults:    sequence.Defaults,
		Validate: func(c *family.Config) error {
			if c.Loss != family.LossCrossEntropy {
				return fmt.Errorf("flow is trained on a cross-entropy of its tokens (model.objective chooses which): loss must be cross_entropy, not %q", c.Loss)
			}
			fc := c.Model.Settings.(*Config)
			fc.Family = c.Model.Family
			return fc.Validate()
		},
		Objective: func(c *family.Config, _ family.ObjectiveEnv) (family.Objective, error) {
			m, err := NewModel(*c.Model.Settings.(*Config))
			if err != nil {
				return nil, err
			}
			return sequence.NewObjective(&flowModel{Model: m}, c), nil
		},
		Examples: func(c *family.Config) (string, bool) {
			return sequence.Examples(c.Model.Settings.(*Config).Target)
		},
		Bounds: sequence.Bounds,
		Size: func(c *family.Config) family.ModelSize {
			return sequence.Size(c.Model.Settings.(*Config).Transformer())
		},
		TrainingFLOPs: func(c *family.Config) float64 {
			return c.Model.Settings.(*Config).Transformer().TrainingFLOPs()
		},
		Accuracy: family.AccuracyAction,
		Metrics: []family.MetricInfo{
			{Name: "train_loss, val_loss", Meaning: "the flow loss of the corrupted tokens: kappa'_t/(1 - kappa_t)-weighted (elbo) or plain cross-entropy; a_i's over its legal moves with legal_mask"},
			{Name: "train_action_accuracy, val_action_accuracy", Meaning: "share of rows with a_i at its source whose argmax over all moves (the legal ones with legal_mask) is the target move; the corruption may leave s_{i+1} in view, which gives a_i away, so a player's a_i-first accuracy is eval --data's, not this"},
		},
		Player:      sequence.Player(flowDecoder),
		Decoder:     flowDecoder,
		Evaluations: family.EvalActions | family.EvalStepsSweep,
	})
}

// flowDecoder loads a flow SPEC's decoder: steps= Euler steps (default as
// trained), sampler=deterministic|stochastic, seed= the stochastic draws',
// order= when a_i is decided (sequence.DecodingOrder), and the player's
// repetition= (player.ProposerSettings), as the diffusion player.
func flowDecoder(spec player.Spec) (*family.Decoding, error) {
	if err := spec.CheckSettings(append([]string{"steps", "sampler", "seed", "order"}, player.ProposerSettings...)...); err != nil {
		return nil, err
	}
	actionFirst, err := sequence.DecodingOrder(spec)
	if err != nil {
		return nil, err
	}
	net, err := Load(spec.Path)
	if err != nil {
		return nil, fmt.Errorf("player flow: %w", err)
	}
	dec := NewDecoder(net)
	if dec.Steps, err = sequence.DecodingSteps(spec, dec.Steps); err != nil {
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
	return &family.Decoding{Decoder: dec, Steps: dec.Steps}, nil
}

// flowModel is flow's sequence model: the path's corruption also gives the
// board source's stay inputs.
type flowModel struct {
	*Model
	in           []int16
	weight, stay []float32
}

func (m *flowModel) Transformer() transformer.Arch { return m.Config().Transformer() }
func (m *flowModel) Target() string                { return m.Config().Target }
func (m *flowModel) Corrupt(rng *rand.Rand, seq []int16, rows [][]float32) {
	if m.in == nil {
		m.in, m.weight, m.stay = make([]int16, len(seq)), make([]float32, len(seq)), make([]float32, len(seq))
	}
	m.Config().Corrupt(rng, seq, m.in, m.weight, m.stay)
	m.Encode(m.in, seq, m.weight, m.stay, rows)
}
