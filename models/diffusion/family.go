package diffusion

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/dchess/dchess/models/family"
	"github.com/dchess/dchess/models/transformer"
	"github.com/dchess/dchess/models/transformer/sequence"
	"github.com/dchess/dchess/search/player"
)

// The discrete diffusion model over action-state-action sequences (seed
// 000) and the one-step policy it is compared with: one transformer, read
// by the same training objective, decoder and player.
//
// Register adds both to the family registry and their players to the
// player registry; cmd/dchess calls it through families.RegisterAll.
func Register() {
	family.MustRegister(sequenceFamily(Family,
		"discrete diffusion over action-state-action sequences, ELBO-weighted (seed 000)", DefaultConfig,
		family.EvalActions|family.EvalStepsSweep))
	family.MustRegister(sequenceFamily(PolicyFamily,
		"the one-step policy the diffusion model is compared with: a_i from s_i", DefaultPolicyConfig,
		family.EvalActions))
}

func sequenceFamily(name, description string, defaults func() Config, evals family.Evaluations) family.Family {
	return family.Family{
		Name:        name,
		Description: description,
		Data:        sequence.Data,
		FirstRun:    sequence.FirstRun(name),
		NewSettings: func() any { c := defaults(); return &c },
		Defaults:    sequence.Defaults,
		Validate: func(c *family.Config) error {
			if c.Loss != family.LossCrossEntropy {
				return fmt.Errorf("%s is trained on the cross-entropy of its tokens: loss must be cross_entropy, not %q", c.Model.Family, c.Loss)
			}
			dc := c.Model.Settings.(*Config)
			dc.Family = c.Model.Family
			return dc.Validate()
		},
		Bounds: sequence.Bounds,
		Size: func(c *family.Config) family.ModelSize {
			return sequence.Size(c.Model.Settings.(*Config).Transformer())
		},
		TrainingFLOPs: func(c *family.Config) float64 {
			return c.Model.Settings.(*Config).Transformer().TrainingFLOPs()
		},
		Objective: newDiffusionObjective,
		Examples: func(c *family.Config) (string, bool) {
			return sequence.Examples(c.Model.Settings.(*Config).Target)
		},
		Accuracy: family.AccuracyAction,
		Metrics: []family.MetricInfo{
			{Name: "train_loss, val_loss", Meaning: "the weighted cross-entropy of the masked tokens (ELBO weighting lambda_t by default; a_i's over its legal moves with legal_mask)"},
			{Name: "train_action_accuracy, val_action_accuracy", Meaning: "share of rows with a_i masked whose argmax over all moves (the legal ones with legal_mask) is the target move; with a horizon past a_i the corruption may leave s_{i+1} in view, which gives a_i away, so a player's a_i-first accuracy is eval --data's, not this"},
		},
		Player:      sequence.Player(diffusionDecoder),
		Decoder:     diffusionDecoder,
		Evaluations: evals,
	}
}

// diffusionDecoder loads the decoder a diffusion or policy spec names (its
// path already resolved). steps= sets the diffusion model's decoding steps
// T (default: as trained), order= its decoding order (sequence.DecodingOrder).
// It accepts the player's repetition= (player.ProposerSettings), which
// only a game reads: scoring positions ignores it.
func diffusionDecoder(spec player.Spec) (*family.Decoding, error) {
	settings := slices.Clone(player.ProposerSettings)
	if spec.Family == Family {
		settings = append(settings, "steps", "order")
	}
	if err := spec.CheckSettings(settings...); err != nil {
		return nil, err
	}
	actionFirst, err := sequence.DecodingOrder(spec)
	if err != nil {
		return nil, err
	}
	net, err := Load(spec.Path)
	if err != nil {
		return nil, fmt.Errorf("player %s: %w", spec.Family, err)
	}
	if net.Config().Family != spec.Family {
		return nil, fmt.Errorf("player %s: %s holds %s weights", spec.Family, spec.Path, net.Config().Family)
	}
	dec := NewDecoder(net)
	if dec.Steps, err = sequence.DecodingSteps(spec, dec.Steps); err != nil {
		return nil, err
	}
	dec.ActionFirst = actionFirst
	return &family.Decoding{Decoder: dec, Steps: dec.Steps}, nil
}

// diffusionModel is diffusion's (and the policy's) sequence model.
type diffusionModel struct {
	*Model
	in     []int16
	weight []float32
}

func (m *diffusionModel) Transformer() transformer.Arch { return m.Config().Transformer() }
func (m *diffusionModel) Target() string                { return m.Config().Target }
func (m *diffusionModel) Corrupt(rng *rand.Rand, seq []int16, rows [][]float32) {
	if m.in == nil {
		m.in, m.weight = make([]int16, len(seq)), make([]float32, len(seq))
	}
	m.Config().Corrupt(rng, seq, m.in, m.weight)
	m.Encode(m.in, seq, m.weight, rows)
}

func newDiffusionObjective(cfg *family.Config, _ family.ObjectiveEnv) (family.Objective, error) {
	dc := *cfg.Model.Settings.(*Config)
	dc.Family = cfg.Model.Family
	m, err := NewModel(dc)
	if err != nil {
		return nil, err
	}
	return sequence.NewObjective(&diffusionModel{Model: m}, cfg), nil
}
