package pipeline

import (
	"context"
	"fmt"

	"github.com/dchess/dchess/models/diffusion"
	"github.com/dchess/dchess/models/nn"
	"github.com/dchess/dchess/search/player"
)

// The discrete diffusion model over action-state-action sequences (seed
// 000) and the one-step policy it is compared with: one transformer, read
// by the same training objective, decoder and player.
func init() {
	mustRegister(sequenceFamily(diffusion.Family,
		"discrete diffusion over action-state-action sequences, ELBO-weighted (seed 000)", diffusion.DefaultConfig))
	mustRegister(sequenceFamily(diffusion.PolicyFamily,
		"the one-step policy the diffusion model is compared with: a_i from s_i", diffusion.DefaultPolicyConfig))
}

func sequenceFamily(name, description string, defaults func() diffusion.Config) Family {
	return Family{
		Name:        name,
		Description: description,
		Data:        "positions labelled with principal variations (label --pv H) or games' next moves (ingest --horizon)",
		NewSettings: func() any { c := defaults(); return &c },
		Defaults:    sequenceDefaults,
		Validate: func(c *Config) error {
			if c.Loss != LossCrossEntropy {
				return fmt.Errorf("%s is trained on the cross-entropy of its tokens: loss must be cross_entropy, not %q", c.Model.Family, c.Loss)
			}
			dc := c.Model.Settings.(*diffusion.Config)
			dc.Family = c.Model.Family
			return dc.Validate()
		},
		Objective: func(c *Config, _ ObjectiveEnv) (objective, error) { return newSequenceObjective(c) },
		Accuracy:  AccuracyAction,
		Metrics: []MetricInfo{
			{"train_loss, val_loss", "the weighted cross-entropy of the masked tokens (ELBO weighting lambda_t by default)"},
			{"train_action_accuracy, val_action_accuracy", "share of rows with a_i masked whose argmax over all moves is the target move"},
		},
		Player:      newSequencePlayer,
		Evaluations: EvalActions,
	}
}

// sequenceDefaults: a small transformer, Adam at 3e-4 with clipping,
// batches of 32 sequences, validation capped so an epoch's check stays
// short.
func sequenceDefaults(c *Config) {
	c.Data = DataConfig{Encoding: nn.EncodingCodes, InputMin: -7, InputMax: 7, ValSplit: "val",
		ShuffleBuffer: 10000, ValMax: 2000}
	c.Optimizer.LR, c.Optimizer.ClipNorm = 3e-4, 1
	c.Loss, c.BatchSize, c.Patience = LossCrossEntropy, 32, 3
}

// newSequencePlayer makes the diffusion or policy player: it plays the
// first action of the sequence it decodes, without search.
func newSequencePlayer(_ context.Context, spec player.Spec) (player.Player, error) {
	dec, err := SequenceDecoder(spec)
	if err != nil {
		return nil, err
	}
	return player.ProposerPlayer(spec.DisplayName(), dec), nil
}

// MaxDecodingSteps bounds the diffusion decoder's T.
const MaxDecodingSteps = 1000

// SequenceDecoder loads the decoder a diffusion or policy spec names (its
// path already resolved). steps= sets the diffusion model's decoding steps
// T (default: as trained).
func SequenceDecoder(spec player.Spec) (*diffusion.Decoder, error) {
	settings := []string{}
	if spec.Family == diffusion.Family {
		settings = append(settings, "steps")
	}
	if err := spec.CheckSettings(settings...); err != nil {
		return nil, err
	}
	net, err := diffusion.Load(spec.Path)
	if err != nil {
		return nil, fmt.Errorf("player %s: %w", spec.Family, err)
	}
	if net.Config().Family != spec.Family {
		return nil, fmt.Errorf("player %s: %s holds %s weights", spec.Family, spec.Path, net.Config().Family)
	}
	dec := diffusion.NewDecoder(net)
	steps, err := spec.Int("steps", int64(dec.Steps))
	if err != nil {
		return nil, err
	}
	if steps < 1 || steps > MaxDecodingSteps {
		return nil, fmt.Errorf("player %s: steps=%d must be in 1..%d", spec.Family, steps, MaxDecodingSteps)
	}
	dec.Steps = int(steps)
	return dec, nil
}
