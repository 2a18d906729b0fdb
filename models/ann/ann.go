// Package ann is the thesis's fully connected evaluation network: the 64
// signed piece codes (or another encoding) through dense hidden layers to
// one output whose sigmoid is the side to move's win probability. Model
// builds the Gorgonia graph for training; Net runs exported weights in
// plain Go for play.
package ann

import (
	"fmt"

	"github.com/dchess/dchess/internal/chess/board"
	"github.com/dchess/dchess/models/dcw"
	"github.com/dchess/dchess/models/nn"
)

// Family is the name weights files and configs use for this model.
const Family = "ann"

// Config is the architecture: the config file's model section plus the
// input its data section chooses. It is stored in model.dcw.
type Config struct {
	Input nn.Input `json:"input" yaml:"-"` // set from the config's data section
	// Hidden lists the widths of the hidden layers.
	Hidden []int `json:"hidden" yaml:"hidden"`
	// Activation of the hidden layers: relu, tanh or sigmoid.
	Activation string `json:"activation" yaml:"activation"`
}

// DefaultConfig is the thesis network: 64 signed codes → 64 → 64 → 1, with
// codes scaled from [-7, 7] to [-1, 1].
func DefaultConfig() Config {
	return Config{
		Input:      nn.Input{Encoding: nn.EncodingCodes, Min: -7, Max: 7},
		Hidden:     []int{64, 64},
		Activation: nn.ActReLU,
	}
}

// Validate reports an architecture that cannot be built.
func (c Config) Validate() error {
	if err := c.Input.Validate(); err != nil {
		return fmt.Errorf("ann: %w", err)
	}
	for _, h := range c.Hidden {
		if h < 1 || h > 1<<16 {
			return fmt.Errorf("ann: hidden layer width %d must be in 1..65536", h)
		}
	}
	if err := nn.ValidActivation(c.Activation); err != nil {
		return fmt.Errorf("ann: %w", err)
	}
	return nil
}

// widths returns every layer's width from input to output.
func (c Config) widths() []int {
	w := append([]int{c.Input.Size()}, c.Hidden...)
	return append(w, 1)
}

// layerName names layer i's tensors: hidden layers dense0, dense1, ..., then out.
func (c Config) layerName(i int) string {
	if i == len(c.Hidden) {
		return "out"
	}
	return fmt.Sprintf("dense%d", i)
}

// Net is the network in plain Go. Forward reuses Net's buffers, so a Net
// is not safe for concurrent use: give each goroutine its own Clone.
type Net struct {
	cfg    Config
	layers []nn.Dense
	input  []float32
	acts   [][]float32
}

// NewNet builds a Net from a weights file of this family.
func NewNet(f *dcw.File) (*Net, error) {
	var cfg Config
	if err := f.DecodeArch(&cfg, Family); err != nil {
		return nil, err
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	n := &Net{cfg: cfg}
	widths := cfg.widths()
	for i := 0; i+1 < len(widths); i++ {
		d, err := nn.LoadDense(f, cfg.layerName(i), widths[i], widths[i+1])
		if err != nil {
			return nil, fmt.Errorf("ann: %w", err)
		}
		n.layers = append(n.layers, d)
	}
	n.allocate()
	return n, nil
}

func (n *Net) allocate() {
	n.input = make([]float32, n.cfg.Input.Size())
	n.acts = make([][]float32, len(n.layers))
	for i, l := range n.layers {
		n.acts[i] = make([]float32, l.Out)
	}
}

// Config returns the architecture the weights were trained with.
func (n *Net) Config() Config { return n.cfg }

// Clone returns a Net sharing the weights with its own buffers.
func (n *Net) Clone() *Net {
	c := &Net{cfg: n.cfg, layers: n.layers}
	c.allocate()
	return c
}

// Logit runs the network on an encoded, scaled input and returns the output
// before the sigmoid.
func (n *Net) Logit(x []float32) float32 {
	last := len(n.layers) - 1
	for i := range n.layers {
		n.layers[i].Forward(x, n.acts[i])
		if i < last {
			nn.Activate(n.cfg.Activation, n.acts[i])
		}
		x = n.acts[i]
	}
	return x[0]
}

// LogitBoard encodes b and runs the network.
func (n *Net) LogitBoard(b *board.Board) float32 {
	n.cfg.Input.Encode(b, n.input)
	return n.Logit(n.input)
}

// Evaluator scores positions with a Net (search.Evaluator); Clone one per goroutine.
type Evaluator = nn.Evaluator[*Net]

// NewEvaluator wraps a Net.
func NewEvaluator(n *Net) *Evaluator { return nn.NewEvaluator(n) }

// Load reads a .dcw file of the ann family.
func Load(path string) (*Evaluator, error) { return nn.Load(path, NewNet) }
