package pipeline

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/dchess/dchess/models/ann"
	"github.com/dchess/dchess/models/cnn"
	"github.com/dchess/dchess/models/deepchess"
	"github.com/dchess/dchess/models/diffusion"
	"github.com/dchess/dchess/models/nn"
)

// Families lists the evaluation families: trained on Stockfish's win
// probabilities, they play through alpha-beta as evaluators.
var Families = []string{ann.Family, cnn.Family}

// DeepChessFamilies are trained on game results alone: the Pos2Vec
// autoencoder, then the siamese comparator that starts from it.
var DeepChessFamilies = []string{deepchess.AutoencoderFamily, deepchess.SiameseFamily}

// SequenceFamilies read token sequences and play without search: the
// discrete diffusion model over action-state-action sequences and the
// one-step policy it is compared with.
var SequenceFamilies = []string{diffusion.PolicyFamily, diffusion.Family}

// plannedFamilies are part of the command contract but built later.
var plannedFamilies []string

// TrainableFamilies lists every family the training loop can build.
func TrainableFamilies() []string {
	return append(append(slices.Clone(Families), DeepChessFamilies...), SequenceFamilies...)
}

// CheckFamily says whether family can be trained, with a clear message for
// the planned families that are not built yet.
func CheckFamily(family string) error {
	available := TrainableFamilies()
	if slices.Contains(available, family) {
		return nil
	}
	if slices.Contains(plannedFamilies, family) {
		return fmt.Errorf("model family %q is not built yet (available: %s)", family, strings.Join(available, ", "))
	}
	return fmt.Errorf("unknown model family %q (available: %s)", family, strings.Join(available, ", "))
}

func isDeepChess(family string) bool { return slices.Contains(DeepChessFamilies, family) }

func isSequence(family string) bool { return slices.Contains(SequenceFamilies, family) }

// Config is a training run's configuration, as in configs/<model>.yaml.
// Every field has a default; unknown keys are errors.
type Config struct {
	Model     ModelSection    `yaml:"model"`
	Data      DataConfig      `yaml:"data"`
	Optimizer OptimizerConfig `yaml:"optimizer"`
	// Loss is mse or cross_entropy, against Stockfish's win probability.
	Loss      string `yaml:"loss"`
	BatchSize int    `yaml:"batch_size"`
	Epochs    int    `yaml:"epochs"`
	// MaxSteps stops training after this many optimizer steps (0: no limit).
	MaxSteps int64 `yaml:"max_steps"`
	// Patience stops training after this many epochs without a lower
	// validation loss (0: never stop early).
	Patience int `yaml:"patience"`
	// MinDelta is how much lower a validation loss must be to count as better.
	MinDelta float64 `yaml:"min_delta"`
	Seed     int64   `yaml:"seed"`
	// LogEvery writes a step line to metrics.jsonl every this many steps.
	LogEvery int `yaml:"log_every"`
}

// DataConfig says what the model reads from the dataset.
type DataConfig struct {
	// Encoding is codes, planes or bits (see models/nn).
	Encoding string `yaml:"encoding"`
	// InputMin and InputMax are mapped to -1 and 1: the inputs are scaled
	// linearly (min -1, max 1 leaves them unchanged).
	InputMin float32 `yaml:"input_min"`
	InputMax float32 `yaml:"input_max"`
	// ValSplit is the split validated on every epoch: val, test or none.
	ValSplit string `yaml:"val_split"`
	// ShuffleBuffer is the number of records the shuffle mixes at once.
	ShuffleBuffer int `yaml:"shuffle_buffer"`
	// ValMax caps the examples validated each epoch (0: the whole split).
	ValMax int `yaml:"val_max"`
	// MinPly and SkipCaptures choose the positions the DeepChess families
	// train on, all from decisive games: none before ply MinPly (10: not
	// the first five moves), and with SkipCaptures none whose played move
	// is a capture. The evaluation families ignore them.
	MinPly       int  `yaml:"min_ply"`
	SkipCaptures bool `yaml:"skip_captures"`
	// MirrorPairs replaces each position of a training pair, with
	// probability 1/2, by its colour-swapped mirror, which belongs to a game
	// of the opposite result (siamese only; the paper does not do this).
	MirrorPairs bool `yaml:"mirror_pairs"`
}

// OptimizerConfig configures Adam.
type OptimizerConfig struct {
	Name  string  `yaml:"name"`
	LR    float64 `yaml:"lr"`
	Beta1 float64 `yaml:"beta1"`
	Beta2 float64 `yaml:"beta2"`
	Eps   float64 `yaml:"eps"`
	// LRDecay multiplies the learning rate after every epoch (1: constant).
	LRDecay float64 `yaml:"lr_decay"`
	// ClipNorm rescales the gradients when their global L2 norm exceeds it (0: off).
	ClipNorm float64 `yaml:"clip_norm"`
}

// ModelSection is the config's model section: the family and its
// architecture fields.
type ModelSection struct {
	Family      string
	ANN         ann.Config
	CNN         cnn.Config
	Autoencoder deepchess.AutoencoderConfig
	Siamese     deepchess.SiameseConfig
	// Diffusion holds the diffusion and the policy family's settings.
	Diffusion diffusion.Config
}

type annSection struct {
	Family     string `yaml:"family"`
	ann.Config `yaml:",inline"`
}

type cnnSection struct {
	Family     string `yaml:"family"`
	cnn.Config `yaml:",inline"`
}

type autoencoderSection struct {
	Family                      string `yaml:"family"`
	deepchess.AutoencoderConfig `yaml:",inline"`
}

type siameseSection struct {
	Family                  string `yaml:"family"`
	deepchess.SiameseConfig `yaml:",inline"`
}

type diffusionSection struct {
	Family           string `yaml:"family"`
	diffusion.Config `yaml:",inline"`
}

// UnmarshalYAML decodes the section over the family's defaults, rejecting
// unknown keys and a family other than the one already chosen.
func (m *ModelSection) UnmarshalYAML(node *yaml.Node) error {
	var head struct {
		Family string `yaml:"family"`
	}
	if err := node.Decode(&head); err != nil {
		return err
	}
	if head.Family != "" && m.Family != "" && head.Family != m.Family {
		return fmt.Errorf("the config's model section is for %q, not %q", head.Family, m.Family)
	}
	if m.Family == "" {
		m.Family = head.Family
	}
	if err := CheckFamily(m.Family); err != nil {
		return err
	}
	// node.Decode does not reject unknown keys; a strict decoder does.
	raw, err := yaml.Marshal(node)
	if err != nil {
		return err
	}
	switch m.Family {
	case ann.Family:
		s := annSection{Config: m.ANN}
		if err := strictYAML(raw, &s); err != nil {
			return fmt.Errorf("model section: %w", err)
		}
		m.ANN = s.Config
	case cnn.Family:
		s := cnnSection{Config: m.CNN}
		if err := strictYAML(raw, &s); err != nil {
			return fmt.Errorf("model section: %w", err)
		}
		m.CNN = s.Config
	case deepchess.AutoencoderFamily:
		s := autoencoderSection{AutoencoderConfig: m.Autoencoder}
		if err := strictYAML(raw, &s); err != nil {
			return fmt.Errorf("model section: %w", err)
		}
		m.Autoencoder = s.AutoencoderConfig
	case deepchess.SiameseFamily:
		s := siameseSection{SiameseConfig: m.Siamese}
		if err := strictYAML(raw, &s); err != nil {
			return fmt.Errorf("model section: %w", err)
		}
		m.Siamese = s.SiameseConfig
	case diffusion.Family, diffusion.PolicyFamily:
		s := diffusionSection{Config: m.Diffusion}
		if err := strictYAML(raw, &s); err != nil {
			return fmt.Errorf("model section: %w", err)
		}
		m.Diffusion = s.Config
		m.Diffusion.Family = m.Family
	}
	return nil
}

// MarshalYAML writes the family and its fields.
func (m ModelSection) MarshalYAML() (any, error) {
	switch m.Family {
	case ann.Family:
		return annSection{Family: m.Family, Config: m.ANN}, nil
	case cnn.Family:
		return cnnSection{Family: m.Family, Config: m.CNN}, nil
	case deepchess.AutoencoderFamily:
		return autoencoderSection{Family: m.Family, AutoencoderConfig: m.Autoencoder}, nil
	case deepchess.SiameseFamily:
		return siameseSection{Family: m.Family, SiameseConfig: m.Siamese}, nil
	case diffusion.Family, diffusion.PolicyFamily:
		return diffusionSection{Family: m.Family, Config: m.Diffusion}, nil
	}
	return nil, CheckFamily(m.Family)
}

func strictYAML(data []byte, into any) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(into); err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	return nil
}

// DefaultConfig is the published setup of a family. The evaluation
// families take the thesis's: its architecture, Adam at 0.001, batch 256,
// MSE on the win probability. The DeepChess families take the paper's
// sizes and schedules on the 773 bits, from positions of decisive games
// after the first five moves whose played move is not a capture: Pos2Vec
// 773-600-400-200-100 trained 200 epochs per layer at 0.005 × 0.98 per
// epoch on its reconstruction error, and the comparator's 400-200-100-2
// head trained 1000 epochs at 0.01 × 0.99 per epoch on softmax
// cross-entropy.
func DefaultConfig(family string) (*Config, error) {
	if err := CheckFamily(family); err != nil {
		return nil, err
	}
	c := &Config{
		Model: ModelSection{Family: family, ANN: ann.DefaultConfig(), CNN: cnn.DefaultConfig(),
			Autoencoder: deepchess.DefaultAutoencoderConfig(), Siamese: deepchess.DefaultSiameseConfig(),
			Diffusion: diffusion.DefaultConfig()},
		Data: DataConfig{Encoding: nn.EncodingCodes, InputMin: -7, InputMax: 7,
			ValSplit: "val", ShuffleBuffer: 10000},
		Optimizer: OptimizerConfig{Name: "adam", LR: 0.001, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8, LRDecay: 1},
		Loss:      LossMSE,
		BatchSize: 256,
		Epochs:    10,
		Patience:  3,
		Seed:      1,
		LogEvery:  10,
	}
	if isSequence(family) {
		// A small transformer: Adam at 3e-4 with clipping, batches of 32
		// sequences, validation capped so an epoch's check stays short.
		if family == diffusion.PolicyFamily {
			c.Model.Diffusion = diffusion.DefaultPolicyConfig()
		}
		c.Data = DataConfig{Encoding: nn.EncodingCodes, InputMin: -7, InputMax: 7, ValSplit: "val",
			ShuffleBuffer: 10000, ValMax: 2000}
		c.Optimizer.LR, c.Optimizer.ClipNorm = 3e-4, 1
		c.Loss, c.BatchSize, c.Patience = LossCrossEntropy, 32, 3
	}
	if isDeepChess(family) {
		c.Data = DataConfig{Encoding: nn.EncodingBits, InputMin: -1, InputMax: 1, ValSplit: "val",
			ShuffleBuffer: 10000, ValMax: 20000, MinPly: 10, SkipCaptures: true}
		c.BatchSize, c.Patience = 256, 10
		if family == deepchess.AutoencoderFamily {
			c.Optimizer.LR, c.Optimizer.LRDecay, c.Epochs = 0.005, 0.98, 200
		} else {
			c.Optimizer.LR, c.Optimizer.LRDecay, c.Epochs, c.Loss, c.Patience = 0.01, 0.99, 1000, LossCrossEntropy, 20
		}
	}
	return c, nil
}

// Losses the training loop knows.
const (
	LossMSE          = "mse"
	LossCrossEntropy = "cross_entropy"
)

// ParseConfig reads a YAML config for family over its defaults. family may
// be "" when the config's model section names it.
func ParseConfig(data []byte, family string) (*Config, error) {
	var head struct {
		Model struct {
			Family string `yaml:"family"`
		} `yaml:"model"`
	}
	if err := yaml.Unmarshal(data, &head); err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	if family == "" {
		family = head.Model.Family
	}
	if family == "" {
		return nil, errors.New("config: no model family given (set model.family or --model)")
	}
	if head.Model.Family != "" && head.Model.Family != family {
		return nil, fmt.Errorf("config: the config is for model %q, not %q", head.Model.Family, family)
	}
	c, err := DefaultConfig(family)
	if err != nil {
		return nil, err
	}
	if err := strictYAML(data, c); err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return c, nil
}

// LoadConfig reads a config file; see ParseConfig.
func LoadConfig(path, family string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	c, err := ParseConfig(data, family)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// Marshal writes the config as YAML, every field included.
func (c *Config) Marshal() ([]byte, error) { return yaml.Marshal(c) }

// input is the model input the data section describes.
func (c *Config) input() nn.Input {
	return nn.Input{Encoding: c.Data.Encoding, Min: c.Data.InputMin, Max: c.Data.InputMax}
}

// Validate reports settings the loop cannot run with.
func (c *Config) Validate() error {
	if err := c.validateModel(); err != nil {
		return fmt.Errorf("config: %w", err)
	}
	o := c.Optimizer
	switch {
	case o.Name != "adam":
		return fmt.Errorf("config: optimizer %q is not supported (want adam)", o.Name)
	case !(o.LR > 0) || math.IsInf(o.LR, 0):
		return fmt.Errorf("config: optimizer.lr %g must be positive", o.LR)
	case o.Beta1 < 0 || o.Beta1 >= 1 || o.Beta2 < 0 || o.Beta2 >= 1:
		return fmt.Errorf("config: optimizer betas must be in [0, 1)")
	case !(o.Eps > 0):
		return fmt.Errorf("config: optimizer.eps must be positive")
	case !(o.LRDecay > 0) || o.LRDecay > 1:
		return fmt.Errorf("config: optimizer.lr_decay %g must be in (0, 1]", o.LRDecay)
	case o.ClipNorm < 0:
		return fmt.Errorf("config: optimizer.clip_norm must not be negative")
	}
	switch c.Loss {
	case LossMSE, LossCrossEntropy:
	default:
		return fmt.Errorf("config: loss %q is not supported (want mse or cross_entropy)", c.Loss)
	}
	switch c.Data.ValSplit {
	case "val", "test", "none":
	default:
		return fmt.Errorf("config: data.val_split %q must be val, test or none", c.Data.ValSplit)
	}
	switch {
	case c.BatchSize < 1 || c.BatchSize > 1<<16:
		return fmt.Errorf("config: batch_size %d must be in 1..65536", c.BatchSize)
	case c.Epochs < 1:
		return fmt.Errorf("config: epochs %d must be at least 1", c.Epochs)
	case c.MaxSteps < 0 || c.Patience < 0 || c.MinDelta < 0:
		return fmt.Errorf("config: max_steps, patience and min_delta must not be negative")
	case c.Data.ShuffleBuffer < 1:
		return fmt.Errorf("config: data.shuffle_buffer must be at least 1")
	case c.LogEvery < 1:
		return fmt.Errorf("config: log_every must be at least 1")
	case c.Data.ValMax < 0 || c.Data.MinPly < 0:
		return fmt.Errorf("config: data.val_max and data.min_ply must not be negative")
	}
	return nil
}

// validateModel checks the model section and what its family requires of
// the rest. A siamese config may leave the tower out: the run takes it from
// the autoencoder it starts from.
func (c *Config) validateModel() error {
	family := c.Model.Family
	if isSequence(family) {
		if c.Loss != LossCrossEntropy {
			return fmt.Errorf("%s is trained on the cross-entropy of its tokens: loss must be cross_entropy, not %q", family, c.Loss)
		}
		c.Model.Diffusion.Family = family
		return c.Model.Diffusion.Validate()
	}
	if !isDeepChess(family) {
		_, err := c.NewModel()
		return err
	}
	if c.Data.Encoding != nn.EncodingBits || c.Data.InputMin != -1 || c.Data.InputMax != 1 {
		return fmt.Errorf("%s reads DeepChess's 773 bits unscaled: data.encoding must be bits, input_min -1 and input_max 1", family)
	}
	if family == deepchess.AutoencoderFamily {
		if c.Loss != LossMSE {
			return fmt.Errorf("autoencoder is trained on its reconstruction error: loss must be mse, not %q", c.Loss)
		}
		return c.Model.Autoencoder.Validate()
	}
	if c.Loss != LossCrossEntropy {
		return fmt.Errorf("siamese is trained with softmax cross-entropy: loss must be cross_entropy, not %q", c.Loss)
	}
	return c.Model.Siamese.Validate()
}

// NewModel builds the trainable evaluation model the config describes
// (ann or cnn; the DeepChess families are not evaluation models).
func (c *Config) NewModel() (Model, error) {
	switch c.Model.Family {
	case ann.Family:
		cfg := c.Model.ANN
		cfg.Input = c.input()
		return ann.NewModel(cfg)
	case cnn.Family:
		cfg := c.Model.CNN
		cfg.Input = c.input()
		return cnn.NewModel(cfg)
	}
	if err := CheckFamily(c.Model.Family); err != nil {
		return nil, err
	}
	return nil, fmt.Errorf("%s is not an evaluation model", c.Model.Family)
}
