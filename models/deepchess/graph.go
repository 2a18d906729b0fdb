package deepchess

import (
	"encoding/json"
	"fmt"
	"slices"

	G "gorgonia.org/gorgonia"

	"github.com/dchess/dchess/models/dcw"
	"github.com/dchess/dchess/models/nn"
)

// Autoencoder is Pos2Vec's training side: every encoder layer has a
// decoder, and stage k trains layer k's encoder and decoder to reconstruct
// the output of the (fixed) layers below it.
type Autoencoder struct{ cfg AutoencoderConfig }

// NewAutoencoder checks cfg and returns the trainable model.
func NewAutoencoder(cfg AutoencoderConfig) (*Autoencoder, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Autoencoder{cfg: cfg}, nil
}

// Family names the model family.
func (m *Autoencoder) Family() string { return AutoencoderFamily }

// Arch returns the architecture as stored in model.dcw.
func (m *Autoencoder) Arch() ([]byte, error) { return json.Marshal(m.cfg) }

// Stages is the number of layers, each trained in turn.
func (m *Autoencoder) Stages() int { return len(m.cfg.Layers) }

// InitParams draws fresh weights from seed: encoders He-uniform for ReLU
// (Glorot otherwise), decoders Glorot-uniform, zero biases.
func (m *Autoencoder) InitParams(seed int64) []dcw.Tensor {
	rng := nn.NewRand(seed)
	widths := m.cfg.widths()
	var params []dcw.Tensor
	for k := 0; k+1 < len(widths); k++ {
		in, out := widths[k], widths[k+1]
		params = append(params,
			nn.Uniform(rng, encName(k)+".w", nn.InitLimit(m.cfg.Activation, in, out), in, out),
			nn.Zeros(encName(k)+".b", out),
			nn.Uniform(rng, decName(k)+".w", nn.GlorotLimit(out, in), out, in),
			nn.Zeros(decName(k)+".b", in))
	}
	return params
}

// BuildStage adds stage's autoencoder on x (batch × 773 bits) to g: the
// layers below the stage run with their weights fixed, layer stage encodes
// and its decoder reconstructs. It returns the reconstruction, its target
// (the layer's input) and the learnables, encoder then decoder, as
// .w, .b pairs. The first layer's decoder ends in a sigmoid (its target is
// bits); deeper decoders are linear.
func (m *Autoencoder) BuildStage(g *G.ExprGraph, x *G.Node, params []dcw.Tensor, stage int) (recon, target *G.Node, learnables []*G.Node, err error) {
	if stage < 0 || stage >= m.Stages() {
		return nil, nil, nil, fmt.Errorf("autoencoder: no layer %d", stage)
	}
	widths := m.cfg.widths()
	h := x
	for k := 0; k < stage; k++ {
		if h, _, err = denseLayer(g, h, params, encName(k), widths[k], widths[k+1], m.cfg.Activation); err != nil {
			return nil, nil, nil, err
		}
	}
	target = h
	code, enc, err := denseLayer(g, h, params, encName(stage), widths[stage], widths[stage+1], m.cfg.Activation)
	if err != nil {
		return nil, nil, nil, err
	}
	outAct := ""
	if stage == 0 {
		outAct = nn.ActSigmoid
	}
	recon, dec, err := denseLayer(g, code, params, decName(stage), widths[stage+1], widths[stage], outAct)
	if err != nil {
		return nil, nil, nil, err
	}
	return recon, target, append(enc, dec...), nil
}

// denseLayer adds act(h·w + b) with the tensors name.w and name.b of
// params, returning the output and the two weight nodes; act "" is linear.
func denseLayer(g *G.ExprGraph, h *G.Node, params []dcw.Tensor, name string, in, out int, act string) (*G.Node, []*G.Node, error) {
	w, b, err := weightNodes(g, params, name, in, out)
	if err != nil {
		return nil, nil, err
	}
	y, err := activeDense(h, w, b, act)
	if err != nil {
		return nil, nil, fmt.Errorf("layer %s: %w", name, err)
	}
	return y, []*G.Node{w, b}, nil
}

// Siamese is the comparator's training side: two towers sharing one set of
// encoder weights, then the head, ending in two logits (a better, b better).
type Siamese struct{ cfg SiameseConfig }

// NewSiamese checks cfg and returns the trainable model.
func NewSiamese(cfg SiameseConfig) (*Siamese, error) {
	if err := cfg.validateBuilt(); err != nil {
		return nil, err
	}
	return &Siamese{cfg: cfg}, nil
}

// Family names the model family.
func (m *Siamese) Family() string { return SiameseFamily }

// Arch returns the architecture as stored in model.dcw.
func (m *Siamese) Arch() ([]byte, error) { return json.Marshal(m.cfg) }

// headWidths is the head's widths from the join layer's output to the 2 logits.
func (m *Siamese) headWidths() []int { return append(slices.Clone(m.cfg.Head), 2) }

// InitParams draws every weight from seed, the towers included (training
// starts from InitFrom instead; this is for tests and benchmarks).
func (m *Siamese) InitParams(seed int64) []dcw.Tensor {
	rng := nn.NewRand(seed)
	var params []dcw.Tensor
	widths := m.cfg.towerWidths()
	for k := 0; k+1 < len(widths); k++ {
		in, out := widths[k], widths[k+1]
		params = append(params,
			nn.Uniform(rng, encName(k)+".w", nn.InitLimit(m.cfg.Activation, in, out), in, out),
			nn.Zeros(encName(k)+".b", out))
	}
	return append(params, m.headParams(seed)...)
}

// headParams draws the head's weights from a generator of its own, so the
// head starts the same whether or not the towers were drawn too.
func (m *Siamese) headParams(seed int64) []dcw.Tensor {
	rng := nn.NewRand(seed ^ 0x5a5a5a5a)
	e, h := m.cfg.Embedding(), m.headWidths()
	limit := nn.InitLimit(m.cfg.Activation, 2*e, h[0])
	params := []dcw.Tensor{
		nn.Uniform(rng, joinA, limit, e, h[0]),
		nn.Uniform(rng, joinB, limit, e, h[0]),
		nn.Zeros(joinBia, h[0]),
	}
	for j := 1; j < len(h); j++ {
		name := headName(j)
		if j == len(h)-1 {
			name = outName
		}
		limit := nn.GlorotLimit(h[j-1], h[j])
		if j < len(h)-1 {
			limit = nn.InitLimit(m.cfg.Activation, h[j-1], h[j])
		}
		params = append(params, nn.Uniform(rng, name+".w", limit, h[j-1], h[j]), nn.Zeros(name+".b", h[j]))
	}
	return params
}

// InitFrom returns the starting weights of a run: the towers copied from
// an autoencoder's encoder (which must have the config's tower and
// activation) and a head drawn from seed.
func (m *Siamese) InitFrom(ae *dcw.File, aeCfg AutoencoderConfig, seed int64) ([]dcw.Tensor, error) {
	if !slices.Equal(aeCfg.Layers, m.cfg.Tower) {
		return nil, fmt.Errorf("siamese: the autoencoder's layers %v are not the tower %v", aeCfg.Layers, m.cfg.Tower)
	}
	if aeCfg.Activation != m.cfg.Activation {
		return nil, fmt.Errorf("siamese: the autoencoder uses %s, the config %s: set model.activation to %s", aeCfg.Activation, m.cfg.Activation, aeCfg.Activation)
	}
	var params []dcw.Tensor
	widths := m.cfg.towerWidths()
	for k := 0; k+1 < len(widths); k++ {
		d, err := nn.LoadDense(ae, encName(k), widths[k], widths[k+1])
		if err != nil {
			return nil, fmt.Errorf("siamese: starting weights: %w", err)
		}
		params = append(params,
			dcw.Tensor{Name: encName(k) + ".w", Shape: []int{d.In, d.Out}, Data: slices.Clone(d.W)},
			dcw.Tensor{Name: encName(k) + ".b", Shape: []int{d.Out}, Data: slices.Clone(d.B)})
	}
	return append(params, m.headParams(seed)...), nil
}

// Build adds the comparator on xa and xb (batch × 773 bits each) to g and
// returns the logits (batch × 2: a better for White, b better) and the
// learnables in the order of InitParams. Both towers use the same weight
// nodes, so their gradients add up as in a siamese network.
func (m *Siamese) Build(g *G.ExprGraph, xa, xb *G.Node, params []dcw.Tensor) (*G.Node, []*G.Node, error) {
	var learnables []*G.Node
	widths := m.cfg.towerWidths()
	ea, eb := xa, xb
	for k := 0; k+1 < len(widths); k++ {
		w, b, err := weightNodes(g, params, encName(k), widths[k], widths[k+1])
		if err != nil {
			return nil, nil, err
		}
		learnables = append(learnables, w, b)
		if ea, err = activeDense(ea, w, b, m.cfg.Activation); err != nil {
			return nil, nil, err
		}
		if eb, err = activeDense(eb, w, b, m.cfg.Activation); err != nil {
			return nil, nil, err
		}
	}
	e, h := m.cfg.Embedding(), m.headWidths()
	wa, err := paramNode(g, params, joinA, e, h[0])
	if err != nil {
		return nil, nil, err
	}
	wb, err := paramNode(g, params, joinB, e, h[0])
	if err != nil {
		return nil, nil, err
	}
	bias, err := paramNode(g, params, joinBia, 1, h[0])
	if err != nil {
		return nil, nil, err
	}
	learnables = append(learnables, wa, wb, bias)
	// [ea eb]·[wa; wb] = ea·wa + eb·wb: the paper's concatenation.
	pa, err := G.Mul(ea, wa)
	if err != nil {
		return nil, nil, err
	}
	pb, err := G.Mul(eb, wb)
	if err != nil {
		return nil, nil, err
	}
	joined, err := G.Add(pa, pb)
	if err != nil {
		return nil, nil, err
	}
	if joined, err = G.BroadcastAdd(joined, bias, nil, []byte{0}); err != nil {
		return nil, nil, err
	}
	out := joined
	if out, err = nn.ActivateGraph(m.cfg.Activation, out); err != nil {
		return nil, nil, err
	}
	for j := 1; j < len(h); j++ {
		name, act := headName(j), m.cfg.Activation
		if j == len(h)-1 {
			name, act = outName, ""
		}
		w, b, err := weightNodes(g, params, name, h[j-1], h[j])
		if err != nil {
			return nil, nil, err
		}
		learnables = append(learnables, w, b)
		if out, err = activeDense(out, w, b, act); err != nil {
			return nil, nil, err
		}
	}
	return out, learnables, nil
}

func paramNode(g *G.ExprGraph, params []dcw.Tensor, name string, shape ...int) (*G.Node, error) {
	t, err := nn.Find(params, name)
	if err != nil {
		return nil, err
	}
	return nn.Param(g, t, shape...)
}

func weightNodes(g *G.ExprGraph, params []dcw.Tensor, name string, in, out int) (w, b *G.Node, err error) {
	if w, err = paramNode(g, params, name+".w", in, out); err != nil {
		return nil, nil, err
	}
	if b, err = paramNode(g, params, name+".b", 1, out); err != nil {
		return nil, nil, err
	}
	return w, b, nil
}

func activeDense(h, w, b *G.Node, act string) (*G.Node, error) {
	y, err := nn.DenseGraph(h, w, b)
	if err != nil || act == "" {
		return y, err
	}
	return nn.ActivateGraph(act, y)
}
