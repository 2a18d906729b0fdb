package pipeline

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/dchess/dchess/models/diffusion"
	"github.com/dchess/dchess/models/nn"
	"github.com/dchess/dchess/search/player"
)

// The discrete diffusion model over action-state-action sequences (seed
// 000) and the one-step policy it is compared with: one transformer, read
// by the same training objective, decoder and player.
func init() {
	mustRegister(sequenceFamily(diffusion.Family,
		"discrete diffusion over action-state-action sequences, ELBO-weighted (seed 000)", diffusion.DefaultConfig,
		EvalActions|EvalStepsSweep))
	mustRegister(sequenceFamily(diffusion.PolicyFamily,
		"the one-step policy the diffusion model is compared with: a_i from s_i", diffusion.DefaultPolicyConfig,
		EvalActions))
}

// sequenceData is what the sequence families (diffusion, policy, flow)
// train on: a line of moves after each position.
const sequenceData = "positions labelled with principal variations (dchess label --pv 4) or games' next moves (dchess ingest --horizon 4)"

// transformerBounds are the sequence families' bounds: their transformer's
// sizes (which Transformer.Validate also keeps) and the decoding steps.
var transformerBounds = Bounds{
	"horizon": {1, 16},
	"dim":     {1, 4096},
	"heads":   {1, 4096},
	"layers":  {1, maxLayers},
	"mlp":     {1, 1 << 14},
	"steps":   {1, MaxDecodingSteps},
}

// sequenceExamples says what a sequence family trains on for its target.
func sequenceExamples(target string) (string, bool) {
	if target == diffusion.TargetGame {
		return "positions with the moves played from them (`dchess ingest --horizon 4` makes them; model.target game)", false
	}
	return "positions labelled with Stockfish's principal variation (`dchess label --pv 4` makes them; model.target pv)", true
}

// sequenceFirstRun is a sequence family's first short run: the default
// size trains at a few sequences a second (docs/results/2026-11-21-diffusion-speed.md), so the
// small config, stopped after a few hundred steps.
func sequenceFirstRun(family string) string {
	return "dchess train --model " + family + " --data DATASET --config configs/" + family + "-small.yaml --max-steps 500"
}

func sequenceFamily(name, description string, defaults func() diffusion.Config, evals Evaluations) Family {
	return Family{
		Name:        name,
		Description: description,
		Data:        sequenceData,
		FirstRun:    sequenceFirstRun(name),
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
		Bounds: transformerBounds,
		Size: func(c *Config) ModelSize {
			return transformerSize(c.Model.Settings.(*diffusion.Config).Transformer())
		},
		Objective: newDiffusionObjective,
		Examples: func(c *Config) (string, bool) {
			return sequenceExamples(c.Model.Settings.(*diffusion.Config).Target)
		},
		Accuracy:  AccuracyAction,
		Reference: "at 20,000 steps on 331,763 positions with 4-move lines, diffusion-small chose Stockfish's move in 11.8 % of 500 test positions with a_i first, the player's default (8.2 % decoded jointly at its trained 20 steps, 13.4 % at 2), and policy-small in 15.0 % (docs/results/2026-11-26-sequence-families-20000-steps.md); DiffuSearch trained on about 50 times as many sequences",
		Metrics: []MetricInfo{
			{"train_loss, val_loss", "the weighted cross-entropy of the masked tokens (ELBO weighting lambda_t by default; a_i's over its legal moves with legal_mask)"},
			{"train_action_accuracy, val_action_accuracy", "share of rows with a_i masked whose argmax over all moves (the legal ones with legal_mask) is the target move"},
		},
		Player:      sequencePlayer(diffusionDecoder),
		Decoder:     diffusionDecoder,
		Evaluations: evals,
	}
}

// sequenceDefaults: the recipe the comparison of
// docs/results/2026-11-25-policy-loss-and-recipe.md chose for
// the three sequence families (#20): AdamW at 3e-4 with weight decay 0.01,
// clipping at 1, 250 warm-up steps and a cosine to 0 over 20,000 steps in
// all, batches of 128 sequences; validation capped so an epoch's check
// stays short.
func sequenceDefaults(c *Config) {
	c.Data = DataConfig{Encoding: nn.EncodingCodes, InputMin: -7, InputMax: 7, ValSplit: "val",
		ShuffleBuffer: 10000, ValMax: 2000}
	o := &c.Optimizer
	o.Name, o.LR, o.WeightDecay, o.ClipNorm = OptimizerAdamW, 3e-4, 0.01, 1
	o.Schedule, o.WarmupSteps, o.DecaySteps = ScheduleCosine, 250, 19750
	c.Loss, c.BatchSize, c.MaxSteps, c.Patience = LossCrossEntropy, 128, 20000, 3
}

// MaxDecodingSteps bounds a sequence decoder's steps.
const MaxDecodingSteps = 1000

// diffusionDecoder loads the decoder a diffusion or policy spec names (its
// path already resolved). steps= sets the diffusion model's decoding steps
// T (default: as trained), order= its decoding order (decodingOrder).
// It accepts the player's repetition= (player.ProposerSettings), which
// only a game reads: scoring positions ignores it.
func diffusionDecoder(spec player.Spec) (*Decoding, error) {
	settings := slices.Clone(player.ProposerSettings)
	if spec.Family == diffusion.Family {
		settings = append(settings, "steps", "order")
	}
	if err := spec.CheckSettings(settings...); err != nil {
		return nil, err
	}
	actionFirst, err := decodingOrder(spec)
	if err != nil {
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
	if dec.Steps, err = decodingSteps(spec, dec.Steps); err != nil {
		return nil, err
	}
	dec.ActionFirst = actionFirst
	return &Decoding{Decoder: dec, Steps: dec.Steps}, nil
}

// Decoding orders of order=: joint decides a_i among the other tokens (by
// confidence, or at a drawn jump time), action-first at the first step.
// action-first is the default: on the sequence study's test positions it
// chooses Stockfish's move as often as one step does, more often than
// joint at the trained steps, and only with it do the imagined boards show
// the move (docs/flow.md); as a player it costs one network pass.
const (
	OrderJoint       = "joint"
	OrderActionFirst = "action-first"
)

// decodingOrder reads a sequence spec's order= (default action-first) and
// says whether it is action-first.
func decodingOrder(spec player.Spec) (bool, error) {
	switch order := spec.Get("order", OrderActionFirst); order {
	case OrderJoint:
		return false, nil
	case OrderActionFirst:
		return true, nil
	default:
		return false, player.SpecErrorf("player %s: order=%s must be %s or %s", spec.Family, order, OrderJoint, OrderActionFirst)
	}
}

// decodingSteps reads a spec's steps= (default def) within 1..MaxDecodingSteps.
func decodingSteps(spec player.Spec, def int) (int, error) {
	steps, err := spec.Int("steps", int64(def))
	if err != nil {
		return 0, err
	}
	if steps < 1 || steps > MaxDecodingSteps {
		return 0, player.SpecErrorf("player %s: steps=%d must be in 1..%d", spec.Family, steps, MaxDecodingSteps)
	}
	return int(steps), nil
}

// diffusionModel is diffusion's (and the policy's) sequence model.
type diffusionModel struct {
	*diffusion.Model
	in     []int16
	weight []float32
}

func (m *diffusionModel) transformer() diffusion.Transformer { return m.Config().Transformer() }
func (m *diffusionModel) target() string                     { return m.Config().Target }
func (m *diffusionModel) corrupt(rng *rand.Rand, seq []int16, rows [][]float32) {
	if m.in == nil {
		m.in, m.weight = make([]int16, len(seq)), make([]float32, len(seq))
	}
	m.Config().Corrupt(rng, seq, m.in, m.weight)
	m.Encode(m.in, seq, m.weight, rows)
}

func newDiffusionObjective(cfg *Config, _ ObjectiveEnv) (objective, error) {
	dc := *cfg.Model.Settings.(*diffusion.Config)
	dc.Family = cfg.Model.Family
	m, err := diffusion.NewModel(dc)
	if err != nil {
		return nil, err
	}
	return &sequenceObjective{m: &diffusionModel{Model: m}, cfg: cfg}, nil
}
