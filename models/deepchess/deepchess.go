// Package deepchess is DeepChess (David, Netanyahu and Wolf, 2016): Pos2Vec,
// a deep autoencoder over the 773-bit position encoding trained layer by
// layer, and the siamese comparator, two Pos2Vec towers with shared weights
// joined by a small network whose two softmax outputs say which of two
// positions is better for White.
//
// Two model families live here: "autoencoder" (Pos2Vec alone, the
// starting point of the comparator) and "siamese" (the comparator that
// plays). Autoencoder and Siamese build the Gorgonia graphs the training
// loop in package pipeline runs; Comparator runs exported siamese weights
// in plain Go for search, caching each position's projection by key so
// that a comparison runs only the head.
package deepchess

import (
	"fmt"

	"github.com/dchess/dchess/dataset/encode"
	"github.com/dchess/dchess/models/dcw"
	"github.com/dchess/dchess/models/nn"
)

// Families as stored in model.dcw and named by --model.
const (
	AutoencoderFamily = "autoencoder"
	SiameseFamily     = "siamese"
)

// InputSize is the width of every tower's input: DeepChess's 773 bits.
const InputSize = encode.BitsSize

// AutoencoderConfig is Pos2Vec's architecture (the config's model section).
type AutoencoderConfig struct {
	// Layers are the encoder widths after the 773 input bits, trained one
	// at a time: layer k learns to reconstruct layer k-1's output.
	Layers []int `json:"layers" yaml:"layers"`
	// Activation of every encoder layer: relu, tanh or sigmoid.
	Activation string `json:"activation" yaml:"activation"`
}

// DefaultAutoencoderConfig is the paper's Pos2Vec: 773-600-400-200-100, ReLU.
func DefaultAutoencoderConfig() AutoencoderConfig {
	return AutoencoderConfig{Layers: []int{600, 400, 200, 100}, Activation: nn.ActReLU}
}

// Validate reports an architecture that cannot be built.
func (c AutoencoderConfig) Validate() error {
	if len(c.Layers) == 0 {
		return fmt.Errorf("autoencoder: layers must list at least one width")
	}
	if err := checkWidths("autoencoder: layer", c.Layers); err != nil {
		return err
	}
	if err := nn.ValidActivation(c.Activation); err != nil {
		return fmt.Errorf("autoencoder: %w", err)
	}
	return nil
}

// widths is every encoder width from the input on.
func (c AutoencoderConfig) widths() []int { return append([]int{InputSize}, c.Layers...) }

// SiameseConfig is the comparator's architecture (the config's model section).
type SiameseConfig struct {
	// Tower is the Pos2Vec encoder both positions pass through. Configs
	// leave it out: it is the architecture of the autoencoder the towers
	// start from, and the run's config.yaml records it.
	Tower []int `json:"tower" yaml:"tower,omitempty"`
	// Head lists the widths of the layers after the two towers (the paper's
	// 400 200 100); a final layer of 2 softmax outputs follows.
	Head []int `json:"head" yaml:"head"`
	// Activation of the towers (it must be the autoencoder's) and the head.
	Activation string `json:"activation" yaml:"activation"`
	// Init is the autoencoder run folder (or its model.dcw) whose encoder
	// the towers start from; "" means the newest autoencoder run. It is
	// only read when a run starts.
	Init string `json:"init,omitempty" yaml:"init"`
}

// DefaultSiameseConfig is the paper's comparator head: 400-200-100-2, ReLU.
func DefaultSiameseConfig() SiameseConfig {
	return SiameseConfig{Head: []int{400, 200, 100}, Activation: nn.ActReLU}
}

// Validate reports an architecture that cannot be built. An empty tower
// passes: a config straight from a file gets it from the autoencoder.
func (c SiameseConfig) Validate() error {
	if len(c.Head) == 0 {
		return fmt.Errorf("siamese: head must list at least one width")
	}
	if err := checkWidths("siamese: tower layer", c.Tower); err != nil {
		return err
	}
	if err := checkWidths("siamese: head layer", c.Head); err != nil {
		return err
	}
	if err := nn.ValidActivation(c.Activation); err != nil {
		return fmt.Errorf("siamese: %w", err)
	}
	return nil
}

// validateBuilt is Validate for an architecture about to be built, which
// must know its tower.
func (c SiameseConfig) validateBuilt() error {
	if len(c.Tower) == 0 {
		return fmt.Errorf("siamese: the tower is not set (it comes from the autoencoder run the towers start from)")
	}
	return c.Validate()
}

func (c SiameseConfig) towerWidths() []int { return append([]int{InputSize}, c.Tower...) }

// Embedding is the width of one tower's output.
func (c SiameseConfig) Embedding() int { return c.Tower[len(c.Tower)-1] }

func checkWidths(what string, widths []int) error {
	for _, w := range widths {
		if w < 1 || w > 1<<16 {
			return fmt.Errorf("%s width %d must be in 1..65536", what, w)
		}
	}
	return nil
}

// Tensor names. The encoder's are the same in both families, so the
// siamese towers start from the autoencoder's weights by name.
func encName(k int) string  { return fmt.Sprintf("enc%d", k) }
func decName(k int) string  { return fmt.Sprintf("dec%d", k) }
func headName(j int) string { return fmt.Sprintf("head%d", j) }

// Names of the head's first layer: the paper concatenates the two
// embeddings before it; the same layer is written as two weight matrices,
// one per tower, so a position's share of it can be computed once and
// cached (see Comparator).
const (
	joinA   = "join.wa"
	joinB   = "join.wb"
	joinBia = "join.b"
	outName = "out"
)

// ReadAutoencoder reads exported Pos2Vec weights and their architecture.
func ReadAutoencoder(path string) (*dcw.File, AutoencoderConfig, error) {
	var cfg AutoencoderConfig
	f, err := dcw.Read(path)
	if err != nil {
		return nil, cfg, err
	}
	if err := f.DecodeArch(&cfg, AutoencoderFamily); err != nil {
		return nil, cfg, fmt.Errorf("%s: %w", path, err)
	}
	if err := cfg.Validate(); err != nil {
		return nil, cfg, fmt.Errorf("%s: %w", path, err)
	}
	widths := cfg.widths()
	for k := 0; k+1 < len(widths); k++ {
		if _, err := nn.LoadDense(f, encName(k), widths[k], widths[k+1]); err != nil {
			return nil, cfg, fmt.Errorf("%s: %w", path, err)
		}
	}
	return f, cfg, nil
}
