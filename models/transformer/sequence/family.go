package sequence

import (
	"context"

	"github.com/dchess/dchess/dataset/encode"
	"github.com/dchess/dchess/models/family"
	"github.com/dchess/dchess/models/nn"
	"github.com/dchess/dchess/models/transformer"
	"github.com/dchess/dchess/search/player"
)

// Data is what the sequence families (diffusion, policy, flow) train on:
// a line of moves after each position.
const Data = "positions labelled with principal variations (dchess label --pv 4) or games' next moves (dchess ingest --horizon 4)"

// Bounds are the sequence families' bounds: their transformer's sizes
// (which transformer.Arch.Validate also keeps) and the decoding steps.
var Bounds = family.Bounds{
	"horizon": {Min: 1, Max: 16},
	"dim":     {Min: 1, Max: 4096},
	"heads":   {Min: 1, Max: 4096},
	"layers":  {Min: 1, Max: family.MaxLayers},
	"mlp":     {Min: 1, Max: 1 << 14},
	"steps":   {Min: 1, Max: family.MaxDecodingSteps},
}

// Size is the size of a sequence family's transformer: at the least, each
// block holds per token its attention's output and its MLP's hidden and
// output values, and per head the token's attention weights.
func Size(arch transformer.Arch) family.ModelSize {
	tokens := int64(encode.SequenceLen(arch.Horizon))
	perToken := int64(2*arch.Dim+arch.MLP) + int64(arch.Heads)*tokens
	return family.ModelSize{Params: int64(arch.ParamCount()), Values: int64(arch.Layers) * tokens * perToken}
}

// Examples says what a sequence family trains on for its target.
func Examples(target string) (string, bool) {
	if target == TargetGame {
		return "positions with the moves played from them (`dchess ingest --horizon 4` makes them; model.target game)", false
	}
	return "positions labelled with Stockfish's principal variation (`dchess label --pv 4` makes them; model.target pv)", true
}

// FirstRun is a sequence family's first short run: the default
// size trains at a few sequences a second (docs/results/2026-11-21-diffusion-speed.md), so the
// small config, stopped after a few hundred steps.
func FirstRun(family string) string {
	return "dchess train --model " + family + " --data DATASET --config configs/" + family + "-small.yaml --max-steps 500"
}

// Defaults: the recipe docs/results/2026-11-25-policy-loss-and-recipe.md's comparison chose for
// the three sequence families (#20): AdamW at 3e-4 with weight decay 0.01,
// clipping at 1, 250 warm-up steps and a cosine to 0 over 20,000 steps in
// all, batches of 128 sequences; validation capped so an epoch's check
// stays short.
func Defaults(c *family.Config) {
	c.Data = family.DataConfig{Encoding: nn.EncodingCodes, InputMin: -7, InputMax: 7, ValSplit: "val",
		ShuffleBuffer: 10000, ValMax: 2000}
	o := &c.Optimizer
	o.Name, o.LR, o.WeightDecay, o.ClipNorm = family.OptimizerAdamW, 3e-4, 0.01, 1
	o.Schedule, o.WarmupSteps, o.DecaySteps = family.ScheduleCosine, 250, 19750
	c.Loss, c.BatchSize, c.MaxSteps, c.Patience = family.LossCrossEntropy, 128, 20000, 3
}

// Player makes a sequence family's player: it plays the first
// action of the sequence its decoder decodes, without search.
func Player(open func(player.Spec) (*family.Decoding, error)) player.Factory {
	return func(_ context.Context, spec player.Spec) (player.Player, error) {
		d, err := open(spec)
		if err != nil {
			return nil, err
		}
		return player.ProposerPlayer(spec, d.Decoder)
	}
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
