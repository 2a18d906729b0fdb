package diffusion

import (
	"fmt"

	"github.com/dchess/dchess/models/dcw"
	"github.com/dchess/dchess/models/transformer"
)

// Net is the transformer in plain Go with its diffusion or policy config.
// Like transformer.Net it reuses buffers: Clone one per goroutine.
type Net struct {
	cfg Config
	net *transformer.Net
}

// NewNet builds a Net from a weights file of the diffusion or policy family.
func NewNet(f *dcw.File) (*Net, error) {
	var cfg Config
	if err := f.DecodeArch(&cfg, Family, PolicyFamily); err != nil {
		return nil, err
	}
	if cfg.Family != f.Family {
		return nil, fmt.Errorf("weights of family %q hold a %q architecture", f.Family, cfg.Family)
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	net, err := transformer.NewNet(cfg.Transformer(), f)
	if err != nil {
		return nil, err
	}
	return &Net{cfg: cfg, net: net}, nil
}

// Load reads a .dcw file of the diffusion or policy family.
func Load(path string) (*Net, error) {
	return dcw.ReadAs(path, NewNet)
}

// Config returns the architecture the weights were trained with.
func (n *Net) Config() Config { return n.cfg }

// Clone returns a Net sharing the weights with its own buffers.
func (n *Net) Clone() *Net { return &Net{cfg: n.cfg, net: n.net.Clone()} }

// Forward runs the network on the input tokens and writes the
// log-probabilities of each slot listed in slots into out[i] (StateVocab
// values for a state slot, ActionVocab for an action slot).
func (n *Net) Forward(in []int16, slots []int, out [][]float32) { n.net.Forward(in, slots, out) }

// BiasOnlyWeights returns weights whose predictions are the output biases
// alone (transformer.Arch.BiasOnlyTensors): every action slot predicts by
// actionBias (UCI move → logit, 0 for the rest) and every state slot
// predicts stateWord. Tests of decoding and evaluation use it to know
// every prediction in advance.
func BiasOnlyWeights(c Config, actionBias map[string]float32, stateWord int) (*dcw.File, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return c.Transformer().BiasOnlyFile(c.Family, c, actionBias, stateWord)
}
