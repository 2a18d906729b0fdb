package diffusion

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/dchess/dchess/dataset/encode"
	"github.com/dchess/dchess/models/family"
	"github.com/dchess/dchess/models/nn"
	"github.com/dchess/dchess/models/transformer"
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

// SequenceData is what the sequence families (diffusion, policy, flow)
// train on: a line of moves after each position.
const SequenceData = "positions labelled with principal variations (dchess label --pv 4) or games' next moves (dchess ingest --horizon 4)"

// TransformerBounds are the sequence families' bounds: their transformer's
// sizes (which transformer.Arch.Validate also keeps) and the decoding steps.
var TransformerBounds = family.Bounds{
	"horizon": {Min: 1, Max: 16},
	"dim":     {Min: 1, Max: 4096},
	"heads":   {Min: 1, Max: 4096},
	"layers":  {Min: 1, Max: family.MaxLayers},
	"mlp":     {Min: 1, Max: 1 << 14},
	"steps":   {Min: 1, Max: family.MaxDecodingSteps},
}

// SequenceExamples says what a sequence family trains on for its target.
func SequenceExamples(target string) (string, bool) {
	if target == TargetGame {
		return "positions with the moves played from them (`dchess ingest --horizon 4` makes them; model.target game)", false
	}
	return "positions labelled with Stockfish's principal variation (`dchess label --pv 4` makes them; model.target pv)", true
}

// SequenceFirstRun is a sequence family's first short run: the default
// size trains at a few sequences a second (docs/results/2026-11-21-diffusion-speed.md), so the
// small config, stopped after a few hundred steps.
func SequenceFirstRun(family string) string {
	return "dchess train --model " + family + " --data DATASET --config configs/" + family + "-small.yaml --max-steps 500"
}

func sequenceFamily(name, description string, defaults func() Config, evals family.Evaluations) family.Family {
	return family.Family{
		Name:        name,
		Description: description,
		Data:        SequenceData,
		FirstRun:    SequenceFirstRun(name),
		NewSettings: func() any { c := defaults(); return &c },
		Defaults:    SequenceDefaults,
		Validate: func(c *family.Config) error {
			if c.Loss != family.LossCrossEntropy {
				return fmt.Errorf("%s is trained on the cross-entropy of its tokens: loss must be cross_entropy, not %q", c.Model.Family, c.Loss)
			}
			dc := c.Model.Settings.(*Config)
			dc.Family = c.Model.Family
			return dc.Validate()
		},
		Bounds: TransformerBounds,
		Size: func(c *family.Config) family.ModelSize {
			return TransformerSize(c.Model.Settings.(*Config).Transformer())
		},
		Objective: newDiffusionObjective,
		Examples: func(c *family.Config) (string, bool) {
			return SequenceExamples(c.Model.Settings.(*Config).Target)
		},
		Accuracy:  family.AccuracyAction,
		Reference: "at 20,000 steps on 331,763 positions with 4-move lines, diffusion-small chose Stockfish's move in 11.8 % of 500 test positions with a_i first, the player's default (8.2 % decoded jointly at its trained 20 steps, 13.4 % at 2), and policy-small in 15.0 % (docs/results/2026-11-26-sequence-families-20000-steps.md); DiffuSearch trained on about 50 times as many sequences",
		Metrics: []family.MetricInfo{
			{Name: "train_loss, val_loss", Meaning: "the weighted cross-entropy of the masked tokens (ELBO weighting lambda_t by default; a_i's over its legal moves with legal_mask)"},
			{Name: "train_action_accuracy, val_action_accuracy", Meaning: "share of rows with a_i masked whose argmax over all moves (the legal ones with legal_mask) is the target move"},
		},
		Player:      SequencePlayer(diffusionDecoder),
		Decoder:     diffusionDecoder,
		Evaluations: evals,
	}
}

// SequenceDefaults: the recipe docs/results/2026-11-25-policy-loss-and-recipe.md's comparison chose for
// the three sequence families (#20): AdamW at 3e-4 with weight decay 0.01,
// clipping at 1, 250 warm-up steps and a cosine to 0 over 20,000 steps in
// all, batches of 128 sequences; validation capped so an epoch's check
// stays short.
func SequenceDefaults(c *family.Config) {
	c.Data = family.DataConfig{Encoding: nn.EncodingCodes, InputMin: -7, InputMax: 7, ValSplit: "val",
		ShuffleBuffer: 10000, ValMax: 2000}
	o := &c.Optimizer
	o.Name, o.LR, o.WeightDecay, o.ClipNorm = family.OptimizerAdamW, 3e-4, 0.01, 1
	o.Schedule, o.WarmupSteps, o.DecaySteps = family.ScheduleCosine, 250, 19750
	c.Loss, c.BatchSize, c.MaxSteps, c.Patience = family.LossCrossEntropy, 128, 20000, 3
}

// diffusionDecoder loads the decoder a diffusion or policy spec names (its
// path already resolved). steps= sets the diffusion model's decoding steps
// T (default: as trained), order= its decoding order (DecodingOrder).
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
	actionFirst, err := DecodingOrder(spec)
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
	if dec.Steps, err = DecodingSteps(spec, dec.Steps); err != nil {
		return nil, err
	}
	dec.ActionFirst = actionFirst
	return &family.Decoding{Decoder: dec, Steps: dec.Steps}, nil
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

// DecodingOrder reads a sequence spec's order= (default action-first) and
// says whether it is action-first.
func DecodingOrder(spec player.Spec) (bool, error) {
	switch order := spec.Get("order", OrderActionFirst); order {
	case OrderJoint:
		return false, nil
	case OrderActionFirst:
		return true, nil
	default:
		return false, player.SpecErrorf("player %s: order=%s must be %s or %s", spec.Family, order, OrderJoint, OrderActionFirst)
	}
}

// DecodingSteps reads a spec's steps= (default def) within 1..MaxDecodingSteps.
func DecodingSteps(spec player.Spec, def int) (int, error) {
	steps, err := spec.Int("steps", int64(def))
	if err != nil {
		return 0, err
	}
	if steps < 1 || steps > family.MaxDecodingSteps {
		return 0, player.SpecErrorf("player %s: steps=%d must be in 1..%d", spec.Family, steps, family.MaxDecodingSteps)
	}
	return int(steps), nil
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
	return &sequenceObjective{m: &diffusionModel{Model: m}, cfg: cfg}, nil
}

// TransformerSize is the size of a sequence family's transformer: at the
// least, each block holds per token its attention's output and its MLP's
// hidden and output values, and per head the token's attention weights.
func TransformerSize(tr transformer.Arch) family.ModelSize {
	tokens := int64(encode.SequenceLen(tr.Horizon))
	perToken := int64(2*tr.Dim+tr.MLP) + int64(tr.Heads)*tokens
	return family.ModelSize{Params: int64(tr.ParamCount()), Values: int64(tr.Layers) * tokens * perToken}
}
