// Package flow is seed 000's fourth method, "Discrete Flow Matching Model
// + ASA": the transformer of models/diffusion over the same
// action-state-action sequences, trained on a factorised mixture path
// (Gat et al., "Discrete Flow Matching", NeurIPS 2024; Campbell et al.,
// ICML 2024; Shaul et al., 2024) and sampled by Euler steps of the
// continuous-time Markov chain that path defines. Each future token x^n
// is at time t in [0, 1] its target x_1^n with probability κ_t and its
// source x_0^n otherwise; the network predicts p_{1|t}(x^n | x_t). Two
// sources: every token after s_i masked (mask), or each future state a
// copy of s_i and each action masked (board). docs/flow.md gives the
// formulas and why the losses are right for both sources.
package flow

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/dchess/dchess/dataset/encode"
	"github.com/dchess/dchess/models/transformer"
	"github.com/dchess/dchess/models/transformer/sequence"
)

// Family names the flow model's weights and player.
const Family = "flow"

// Schedulers κ_t, sources x_0, objectives and samplers.
const (
	SchedulerLinear     = "linear"     // κ_t = t
	SchedulerPolynomial = "polynomial" // κ_t = t^Exponent
	// SourceMask starts every token after s_i as [MASK]; SourceBoard
	// starts each future state as a copy of s_i and each action as [MASK].
	SourceMask  = "mask"
	SourceBoard = "board"
	// ObjectiveELBO is the generalised KL of Shaul et al. (an ELBO);
	// ObjectiveCrossEntropy is -log p_{1|t}(x_1) on the tokens at their
	// source (docs/flow.md).
	ObjectiveELBO         = "elbo"
	ObjectiveCrossEntropy = "cross-entropy"
	// SamplerStochastic is the Euler sampler of the CTMC;
	// SamplerDeterministic replaces its draws by the most probable tokens
	// and its coin flips by the expected number of jumps, most confident
	// first.
	SamplerStochastic    = "stochastic"
	SamplerDeterministic = "deterministic"
)

// TimeEpsilon keeps training times in [ε, 1-ε): κ'_t/(1-κ_t) is infinite
// at t = 1 (and at t = 0 for an exponent below 1).
const TimeEpsilon = 1e-3

// Mask words, the transformer's: one past each vocabulary.
const (
	MaskState  = transformer.MaskState
	MaskAction = transformer.MaskAction
)

// Config is the architecture, the path and the loss: the config file's
// model section, stored in model.dcw.
type Config struct {
	// Family is flow (set from the config's family).
	Family string `json:"family" yaml:"-"`
	// Horizon h: the model predicts a_i, s_{i+1}, ..., s_{i+h-1}, a_{i+h-1}.
	Horizon int `json:"horizon" yaml:"horizon"`
	// Dim is the transformer's width: each token's embedding and every
	// block's output (a multiple of heads).
	Dim int `json:"dim" yaml:"dim"`
	// Heads is the number of attention heads of each block.
	Heads int `json:"heads" yaml:"heads"`
	// Layers is the number of transformer blocks.
	Layers int `json:"layers" yaml:"layers"`
	// MLP is the hidden width of each block's feed-forward layer.
	MLP int `json:"mlp" yaml:"mlp"`
	// Scheduler is κ_t: linear or polynomial (t^Exponent).
	Scheduler string  `json:"scheduler" yaml:"scheduler"`
	Exponent  float64 `json:"exponent" yaml:"exponent"`
	// Source is x_0: mask or board.
	Source string `json:"source" yaml:"source"`
	// Objective is the loss: elbo or cross-entropy.
	Objective string `json:"objective" yaml:"objective"`
	// Steps is the sampler's default number of Euler steps (a player's
	// steps= overrides it); training draws t continuously.
	Steps int `json:"steps" yaml:"steps"`
	// Target is the line learnt: pv (Stockfish's) or game (the moves played).
	Target string `json:"target" yaml:"target"`
	// LegalMask restricts a_i to the legal moves of s_i in the loss and at
	// every Euler step, as diffusion.Config.LegalMask; weights written
	// before it existed load with it off.
	LegalMask bool `json:"legal_mask" yaml:"legal_mask"`
	// ActionSquares adds to each move's embedding those of its squares and
	// promotion, as diffusion.Config.ActionSquares.
	ActionSquares bool `json:"action_squares" yaml:"action_squares"`
}

// DefaultConfig is the diffusion model's transformer (about a million
// weights, h = 4) on the mask source, κ_t = t, the ELBO, 20 Euler steps,
// PV targets and a_i over the legal moves.
func DefaultConfig() Config {
	return Config{Family: Family, Horizon: 4, Dim: 128, Heads: 4, Layers: 3, MLP: 256,
		Scheduler: SchedulerLinear, Exponent: 2, Source: SourceMask, Objective: ObjectiveELBO,
		Steps: 20, Target: sequence.TargetPV, LegalMask: true}
}

// Validate reports a configuration that cannot be built.
func (c Config) Validate() error {
	if c.Family != Family {
		return fmt.Errorf("flow: family %q is not flow", c.Family)
	}
	if err := c.Transformer().Validate(c.Family); err != nil {
		return err
	}
	switch c.Scheduler {
	case SchedulerLinear, SchedulerPolynomial:
	default:
		return fmt.Errorf("flow: scheduler %q must be linear or polynomial", c.Scheduler)
	}
	// Below 1 the jump rate at t = 0 is infinite: the first Euler step
	// would decide every token at once.
	if !(c.Exponent >= 1 && c.Exponent <= 10) {
		return fmt.Errorf("flow: exponent %v must be in [1, 10]", c.Exponent)
	}
	switch c.Source {
	case SourceMask, SourceBoard:
	default:
		return fmt.Errorf("flow: source %q must be mask or board", c.Source)
	}
	switch c.Objective {
	case ObjectiveELBO, ObjectiveCrossEntropy:
	default:
		return fmt.Errorf("flow: objective %q must be elbo or cross-entropy", c.Objective)
	}
	if c.Steps < 1 || c.Steps > 1000 {
		return fmt.Errorf("flow: steps %d must be in 1..1000", c.Steps)
	}
	switch c.Target {
	case sequence.TargetPV, sequence.TargetGame:
	default:
		return fmt.Errorf("flow: target %q must be pv or game", c.Target)
	}
	return nil
}

// Transformer is the network the config builds (the diffusion model's).
func (c Config) Transformer() transformer.Arch {
	return transformer.Arch{Horizon: c.Horizon, Dim: c.Dim, Heads: c.Heads, Layers: c.Layers, MLP: c.MLP,
		LegalMask: c.LegalMask, ActionSquares: c.ActionSquares}
}

// Resumed takes legal_mask from a run's checkpoint architecture, off when
// it has no such key, as diffusion.Config.Resumed.
func (c *Config) Resumed(arch []byte) error {
	var was Config
	if err := json.Unmarshal(arch, &was); err != nil {
		return fmt.Errorf("flow: architecture in the checkpoint: %w", err)
	}
	c.LegalMask = was.LegalMask
	return nil
}

// SeqLen is the number of tokens the transformer reads.
func (c Config) SeqLen() int { return c.Transformer().SeqLen() }

// StateSlots is the number of state tokens (the first SeqLen positions).
func (c Config) StateSlots() int { return c.Transformer().StateSlots() }

// ParamCount is the number of weights the config builds.
func (c Config) ParamCount() int { return c.Transformer().ParamCount() }

// Kappa is κ_t, the probability that a token is at its target at time t
// (κ_0 = 0, κ_1 = 1).
func (c Config) Kappa(t float64) float64 {
	t = min(max(t, 0), 1)
	if c.Scheduler == SchedulerPolynomial {
		return math.Pow(t, c.Exponent)
	}
	return t
}

// KappaDot is κ'_t.
func (c Config) KappaDot(t float64) float64 {
	if c.Scheduler == SchedulerPolynomial {
		return c.Exponent * math.Pow(t, c.Exponent-1)
	}
	return 1
}

// JumpRate is κ'_t / (1 - κ_t): the rate at which a token still at its
// source jumps to a draw from p_{1|t}, and the ELBO's weight (+Inf at t = 1).
func (c Config) JumpRate(t float64) float64 {
	k := c.Kappa(t)
	if k >= 1 {
		return math.Inf(1)
	}
	return c.KappaDot(t) / (1 - k)
}

// SampleTime draws a training time uniformly from [TimeEpsilon, 1-TimeEpsilon).
func SampleTime(rng *rand.Rand) float64 {
	return TimeEpsilon + (1-2*TimeEpsilon)*rng.Float64()
}

// SourceTokens writes x_0 for the clean sequence seq into src: s_i as it
// is, then each future state [MASK] (mask source) or a copy of s_i (board
// source), then each action [MASK].
func (c Config) SourceTokens(seq, src []int16) {
	copy(src, seq[:encode.StateLen])
	ss := c.StateSlots()
	for i := encode.StateLen; i < ss; i++ {
		src[i] = MaskState
		if c.Source == SourceBoard {
			src[i] = seq[i%encode.StateLen]
		}
	}
	for i := ss; i < c.SeqLen(); i++ {
		src[i] = MaskAction
	}
}

// Corrupt samples t (SampleTime) and the path at t (CorruptAt); it
// returns t.
func (c Config) Corrupt(rng *rand.Rand, seq, in []int16, weight, stay []float32) float64 {
	t := SampleTime(rng)
	c.CorruptAt(rng, t, seq, in, weight, stay)
	return t
}

// CorruptAt samples x_t for the clean sequence seq (x_1, encode.Sequence)
// into in: s_i as it is, and each target token (every slot after s_i the
// line reaches) its target with probability κ_t, else its source; a slot
// past the end of the line keeps its source and is not scored. It writes
// each slot's weight against its target into weight and each state slot's
// stay weight into stay (both len SeqLen), scaled by 1/N, N the number of
// target tokens. Only tokens at their source value are scored: a token
// elsewhere has jumped to its target, which p_{1|t} then gives
// probability 1 (docs/flow.md). With λ = κ'_t/(1-κ_t):
//   - cross-entropy: weight 1/N, stay 0;
//   - elbo: weight λ/N where the token differs from its target, and, for
//     a source that is not [MASK] (the board source's states), stay λ/N
//     for the term λ·(1 - p_{1|t}(x_t)); with [MASK], p(MASK) = 0 makes
//     that term the constant λ, left out.
func (c Config) CorruptAt(rng *rand.Rand, t float64, seq, in []int16, weight, stay []float32) {
	c.SourceTokens(seq, in)
	clear(weight)
	clear(stay)
	targets := 0
	for i := encode.StateLen; i < len(seq); i++ {
		if seq[i] != encode.NoToken {
			targets++
		}
	}
	kappa := c.Kappa(t)
	scale := 1 / float64(max(targets, 1))
	lambda := c.JumpRate(t)
	ss := c.StateSlots()
	for i := encode.StateLen; i < len(seq); i++ {
		if seq[i] == encode.NoToken {
			continue
		}
		source := in[i]
		if rng.Float64() < kappa {
			in[i] = seq[i]
		}
		if in[i] != source {
			continue // jumped off its source: known to be its target
		}
		if c.Objective == ObjectiveCrossEntropy {
			weight[i] = float32(scale)
			continue
		}
		if in[i] != seq[i] {
			weight[i] = float32(lambda * scale)
		}
		if i < ss && source != MaskState {
			stay[i] = float32(lambda * scale)
		}
	}
}

// needsStay says whether the loss has the stay term: the ELBO on the
// board source, the only source with a word that is not [MASK].
func (c Config) needsStay() bool {
	return c.Objective == ObjectiveELBO && c.Source == SourceBoard
}
