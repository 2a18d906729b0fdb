// Package diffusion is seed 000's third method: a bidirectional transformer
// that denoises action-state-action sequences by absorbing-state discrete
// diffusion (as DiffuSearch, "Implicit Search via Discrete Diffusion",
// ICLR 2025), and the one-step policy it is compared with, which is the
// same transformer predicting a_i from s_i alone (horizon 1, one step).
// The network is models/transformer's: model.go trains it, net.go loads
// its weights for play and decode.go plays from them.
package diffusion

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/dchess/dchess/dataset/encode"
	"github.com/dchess/dchess/models/transformer"
	"github.com/dchess/dchess/models/transformer/sequence"
)

// Family names of the two players and their weights.
const (
	Family       = "diffusion"
	PolicyFamily = "policy"
)

// Noise schedules and loss weightings.
const (
	ScheduleLinear = "linear" // α_t = 1 - t/T
	ScheduleCosine = "cosine" // α_t = cos(π/2 · t/T)
	// WeightingELBO is seed 000's λ_t = (α_{t-1} - α_t) / (1 - α_t).
	WeightingELBO = "elbo"
	// WeightingLinear and WeightingConstant are DiffuSearch's
	// alternatives: λ_t = 1 - (t-1)/T and λ_t = 1.
	WeightingLinear   = "linear"
	WeightingConstant = "constant"
	// Targets: Stockfish's principal variation (label --pv) or the moves
	// played in the game (ingest's Record.Next).
	TargetPV   = sequence.TargetPV
	TargetGame = sequence.TargetGame
)

// Config is the architecture and the diffusion process: the config file's
// model section, stored in model.dcw.
type Config struct {
	// Family is diffusion or policy (set from the config's family).
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
	// Steps is T, the number of diffusion steps (training and decoding).
	Steps int `json:"steps" yaml:"steps"`
	// Schedule is the noise schedule α_t, the share of tokens left
	// unmasked at step t: linear (1 - t/T) or cosine (cos(π/2 · t/T)).
	Schedule string `json:"schedule" yaml:"schedule"`
	// Weighting is the weight λ_t of step t's masked tokens in the loss:
	// elbo ((α_{t-1} - α_t) / (1 - α_t)), linear (1 - (t-1)/T) or
	// constant (1).
	Weighting string `json:"weighting" yaml:"weighting"`
	// Target is the line learnt: pv (Stockfish's principal variation,
	// label --pv) or game (the moves played in the game).
	Target string `json:"target" yaml:"target"`
	// LegalMask restricts a_i, the action of the given state s_i, to the
	// legal moves of s_i: training's cross-entropy of a_i and every
	// decoding step's a_i distribution are over those moves only (see
	// transformer.Arch.LegalMask). Weights written before the setting existed
	// have no legal_mask key and load with it off.
	LegalMask bool `json:"legal_mask" yaml:"legal_mask"`
	// ActionSquares adds to each move's embedding those of its squares and
	// promotion (transformer.Arch.ActionSquares); weights written before the
	// setting existed have no action_squares key and load with it off.
	ActionSquares bool `json:"action_squares" yaml:"action_squares"`
}

// DefaultConfig is about a million parameters: 3 blocks of width 128 with
// 4 heads, h = 4, T = 20, linear schedule, ELBO weighting, PV targets,
// a_i over the legal moves.
func DefaultConfig() Config {
	return Config{Family: Family, Horizon: 4, Dim: 128, Heads: 4, Layers: 3, MLP: 256, Steps: 20,
		Schedule: ScheduleLinear, Weighting: WeightingELBO, Target: TargetPV, LegalMask: true}
}

// DefaultPolicyConfig is the same transformer as DefaultConfig for one
// step of horizon 1: a_i from s_i.
func DefaultPolicyConfig() Config {
	c := DefaultConfig()
	c.Family, c.Horizon, c.Steps = PolicyFamily, 1, 1
	return c
}

// Validate reports a configuration that cannot be built.
func (c Config) Validate() error {
	if c.Family != Family && c.Family != PolicyFamily {
		return fmt.Errorf("diffusion: family %q is not diffusion or policy", c.Family)
	}
	if err := c.Transformer().Validate(c.Family); err != nil {
		return err
	}
	switch {
	case c.Steps < 1 || c.Steps > 1000:
		return fmt.Errorf("%s: steps %d must be in 1..1000", c.Family, c.Steps)
	}
	switch c.Schedule {
	case ScheduleLinear, ScheduleCosine:
	default:
		return fmt.Errorf("%s: schedule %q must be linear or cosine", c.Family, c.Schedule)
	}
	switch c.Weighting {
	case WeightingELBO, WeightingLinear, WeightingConstant:
	default:
		return fmt.Errorf("%s: weighting %q must be elbo, linear or constant", c.Family, c.Weighting)
	}
	switch c.Target {
	case TargetPV, TargetGame:
	default:
		return fmt.Errorf("%s: target %q must be pv or game", c.Family, c.Target)
	}
	if c.Family == PolicyFamily && (c.Horizon != 1 || c.Steps != 1) {
		return fmt.Errorf("policy predicts a_i from s_i alone: horizon and steps must be 1")
	}
	return nil
}

// Transformer is the network the config builds.
func (c Config) Transformer() transformer.Arch {
	return transformer.Arch{Horizon: c.Horizon, Dim: c.Dim, Heads: c.Heads, Layers: c.Layers, MLP: c.MLP, LegalMask: c.LegalMask,
		ActionSquares: c.ActionSquares}
}

// Resumed takes from arch, the architecture a run's checkpoint stores,
// what a config as run written before a setting existed leaves to today's
// default: legal_mask, absent there, was off, and a resumed run keeps
// training as it began.
func (c *Config) Resumed(arch []byte) error {
	var was Config
	if err := json.Unmarshal(arch, &was); err != nil {
		return fmt.Errorf("%s: architecture in the checkpoint: %w", c.Family, err)
	}
	c.LegalMask = was.LegalMask
	return nil
}

// SeqLen is the number of tokens the transformer reads.
func (c Config) SeqLen() int { return c.Transformer().SeqLen() }

// StateSlots is the number of state tokens (the first SeqLen positions).
func (c Config) StateSlots() int { return c.Transformer().StateSlots() }

// Alpha is α_t, the probability that a token is still unmasked at step t
// (α_0 = 1, α_T = 0).
func (c Config) Alpha(t int) float64 {
	if t <= 0 {
		return 1
	}
	if t >= c.Steps {
		return 0
	}
	x := float64(t) / float64(c.Steps)
	if c.Schedule == ScheduleCosine {
		return math.Cos(math.Pi / 2 * x)
	}
	return 1 - x
}

// Lambda is the weight of step t's masked tokens in the loss.
func (c Config) Lambda(t int) float64 {
	switch c.Weighting {
	case WeightingLinear:
		return 1 - float64(t-1)/float64(c.Steps)
	case WeightingConstant:
		return 1
	}
	return (c.Alpha(t-1) - c.Alpha(t)) / (1 - c.Alpha(t))
}

// Input words for a masked slot: the one past each vocabulary.
const (
	MaskState  = transformer.MaskState
	MaskAction = transformer.MaskAction
)

// Corrupt is the forward process for one sequence: it draws t uniformly
// from 1..T and masks each target token (every slot after s_i that the
// line reaches) independently with probability 1 - α_t. It writes the
// model's input tokens into in and each slot's loss weight into weight:
// T·λ_t / N for a masked target, 0 otherwise, where N is the number of
// target tokens. Averaged over t this is seed 000's loss
// Σ_t λ_t Σ_n 1[x_t,n masked] (-log f(x_t)[x_0,n]) divided by N, the
// bound per token. It returns t.
func (c Config) Corrupt(rng *rand.Rand, seq, in []int16, weight []float32) int {
	t := 1 + rng.IntN(c.Steps)
	c.CorruptAt(rng, t, seq, in, weight)
	return t
}

// CorruptAt is Corrupt at a given step t.
func (c Config) CorruptAt(rng *rand.Rand, t int, seq, in []int16, weight []float32) {
	stateSlots := c.StateSlots()
	copy(in, seq[:encode.StateLen]) // s_i is never masked
	targets := 0
	for i := encode.StateLen; i < len(seq); i++ {
		if seq[i] != encode.NoToken {
			targets++
		}
	}
	keep := c.Alpha(t)
	w := float32(float64(c.Steps) * c.Lambda(t) / float64(max(targets, 1)))
	for i := range weight {
		weight[i] = 0
	}
	for i := encode.StateLen; i < len(seq); i++ {
		mask := int16(MaskState)
		if i >= stateSlots {
			mask = MaskAction
		}
		if seq[i] == encode.NoToken {
			in[i] = mask // past the end of the line: not a target
			continue
		}
		if rng.Float64() < keep {
			in[i] = seq[i]
			continue
		}
		in[i] = mask
		weight[i] = w
	}
}

// ParamCount is the number of weights the config builds.
func (c Config) ParamCount() int { return c.Transformer().ParamCount() }
