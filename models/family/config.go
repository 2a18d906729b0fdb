package family

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"

	"gopkg.in/yaml.v3"

	"github.com/dchess/dchess/models/nn"
)

// Config is a training run's configuration, as in configs/<model>.yaml.
// Every field has a default; unknown keys are errors.
type Config struct {
	// Model is the network: its family (the --model of dchess train) and
	// the family's own settings, its architecture.
	Model ModelSection `yaml:"model"`
	// Data says what the model reads from the dataset and how the
	// examples are shuffled and validated.
	Data DataConfig `yaml:"data"`
	// Optimizer is the optimizer and its learning rate's schedule.
	Optimizer OptimizerConfig `yaml:"optimizer"`
	// Loss is mse or cross_entropy: an evaluator's against Stockfish's
	// win probability; a family that needs one of them refuses the other.
	Loss string `yaml:"loss"`
	// BatchSize is the number of examples of each optimizer step.
	BatchSize int `yaml:"batch_size"`
	// Epochs is the number of passes over the train split (--epochs
	// overrides it).
	Epochs int `yaml:"epochs"`
	// MaxSteps stops training after this many optimizer steps (0: no limit).
	MaxSteps int64 `yaml:"max_steps"`
	// Patience stops training after this many epochs without a lower
	// validation loss (0: never stop early).
	Patience int `yaml:"patience"`
	// MinDelta is how much lower a validation loss must be to count as better.
	MinDelta float64 `yaml:"min_delta"`
	// Seed seeds the weights' initialisation and the data's order
	// (--seed overrides it).
	Seed int64 `yaml:"seed"`
	// LogEvery writes a step line to metrics.jsonl every this many steps.
	LogEvery int `yaml:"log_every"`
	// Workers splits each batch across this many graphs run side by side,
	// their gradients summed in a fixed order (0: the cores the process
	// may use; the run's config.yaml records the count it ran with). One
	// worker is the loop as it always ran; more give the same loss curve
	// within float rounding, reproducibly for a given count.
	Workers int `yaml:"workers"`
}

// DataConfig says what the model reads from the dataset.
type DataConfig struct {
	// Encoding is codes (the 64 signed piece codes), planes (18 of 8×8),
	// bits (DeepChess's 773) or material (5 piece-count differences); see
	// models/nn.
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

// OptimizerConfig configures Adam or AdamW and the learning rate's schedule.
type OptimizerConfig struct {
	// Name is adam, or adamw for decoupled weight decay (Loshchilov and
	// Hutter), as PyTorch's AdamW applies it.
	Name string `yaml:"name"`
	// LR is the learning rate (the peak of the cosine schedule).
	LR float64 `yaml:"lr"`
	// Beta1 and Beta2 are Adam's decay rates of the gradient's running
	// mean and of its square's, each in [0, 1).
	Beta1 float64 `yaml:"beta1"`
	Beta2 float64 `yaml:"beta2"`
	// Eps is added to the root of Adam's second moment before dividing by
	// it, so a step stays finite.
	Eps float64 `yaml:"eps"`
	// LRDecay multiplies the learning rate after every epoch (1: constant).
	LRDecay float64 `yaml:"lr_decay"`
	// ClipNorm rescales the gradients when their global L2 norm exceeds it (0: off).
	ClipNorm float64 `yaml:"clip_norm"`
	// WeightDecay is AdamW's decoupled decay: each step multiplies every
	// weight by 1 - lr·weight_decay before the Adam update (adamw only).
	WeightDecay float64 `yaml:"weight_decay"`
	// Schedule is constant (lr, times lr_decay per epoch) or cosine: after
	// WarmupSteps of linear warm-up from 0, the rate falls from lr to
	// lr·min_lr_ratio along half a cosine over DecaySteps steps, then stays.
	Schedule    string  `yaml:"schedule"`
	WarmupSteps int64   `yaml:"warmup_steps"`
	DecaySteps  int64   `yaml:"decay_steps"`
	MinLRRatio  float64 `yaml:"min_lr_ratio"`
}

// Optimizers and learning-rate schedules the loop knows.
const (
	OptimizerAdam    = "adam"
	OptimizerAdamW   = "adamw"
	ScheduleConstant = "constant"
	ScheduleCosine   = "cosine"
)

// rate is the learning rate of the step after step steps of a stage,
// epochs epochs into it.
func (o OptimizerConfig) Rate(step int64, epochs int) float64 {
	if o.Schedule != ScheduleCosine {
		return o.LR * math.Pow(o.LRDecay, float64(epochs))
	}
	if step < o.WarmupSteps {
		return o.LR * float64(step+1) / float64(o.WarmupSteps)
	}
	progress := min(float64(step-o.WarmupSteps)/float64(o.DecaySteps), 1)
	return o.LR * (o.MinLRRatio + (1-o.MinLRRatio)*0.5*(1+math.Cos(math.Pi*progress)))
}

// ModelSection is the config's model section: the family and its own
// fields, held in the struct its registration's NewSettings gives.
type ModelSection struct {
	// Family is the model family the section configures, as --model
	// names it; a config may leave it out, and one that names another
	// family than --model is refused.
	Family   string
	Settings any
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
	f, err := Lookup(m.Family)
	if err != nil {
		return err
	}
	if m.Settings == nil {
		m.Settings = f.NewSettings()
	}
	// The family's own fields, without the family key, decoded strictly
	// (node.Decode does not reject unknown keys).
	fields := *node
	fields.Content = nil
	for i := 0; i+1 < len(node.Content); i += 2 {
		if node.Content[i].Value != "family" {
			fields.Content = append(fields.Content, node.Content[i], node.Content[i+1])
		}
	}
	raw, err := yaml.Marshal(&fields)
	if err != nil {
		return err
	}
	if err := strictYAML(raw, m.Settings); err != nil {
		return fmt.Errorf("model section: %w", err)
	}
	return nil
}

// MarshalYAML writes the family first, then its fields.
func (m ModelSection) MarshalYAML() (any, error) {
	if _, err := Lookup(m.Family); err != nil {
		return nil, err
	}
	var fields yaml.Node
	if err := fields.Encode(m.Settings); err != nil {
		return nil, err
	}
	if fields.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("model family %s: its settings are not a mapping", m.Family)
	}
	out := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	out.Content = append(out.Content,
		&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: "family"},
		&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: m.Family})
	out.Content = append(out.Content, fields.Content...)
	return out, nil
}

func strictYAML(data []byte, into any) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(into); err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	return nil
}

// DefaultConfig is the published setup of a family: the thesis's
// evaluator setup (Adam at 0.001, batch 256, MSE on the win probability,
// the 64 signed piece codes) as the base, which the family's Defaults
// adapts, and the family's own model settings.
func DefaultConfig(family string) (*Config, error) {
	f, err := Lookup(family)
	if err != nil {
		return nil, err
	}
	c := &Config{
		Model: ModelSection{Family: family, Settings: f.NewSettings()},
		Data: DataConfig{Encoding: nn.EncodingCodes, InputMin: -7, InputMax: 7,
			ValSplit: "val", ShuffleBuffer: 10000},
		Optimizer: OptimizerConfig{Name: OptimizerAdam, LR: 0.001, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8, LRDecay: 1,
			Schedule: ScheduleConstant},
		Loss:      LossMSE,
		BatchSize: 256,
		Epochs:    10,
		Patience:  3,
		Seed:      1,
		LogEvery:  10,
	}
	if f.Defaults != nil {
		f.Defaults(c)
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

// Clone returns a deep copy: the model settings are the family's own
// struct behind a pointer, which a plain copy would share.
func (c *Config) Clone() *Config {
	data, err := c.Marshal()
	if err != nil {
		panic(fmt.Sprintf("config: %v", err))
	}
	out, err := DefaultConfig(c.Model.Family)
	if err != nil {
		panic(err)
	}
	if err := strictYAML(data, out); err != nil {
		panic(fmt.Sprintf("config: %v", err))
	}
	return out
}

// Marshal writes the config as YAML, every field included.
func (c *Config) Marshal() ([]byte, error) { return yaml.Marshal(c) }

// input is the model input the data section describes.
func (c *Config) Input() nn.Input {
	return nn.Input{Encoding: c.Data.Encoding, Min: c.Data.InputMin, Max: c.Data.InputMax}
}

// Validate reports settings the loop cannot run with, and sizes beyond
// their bounds (see Bound) or beyond any machine's memory, before any of
// them is used.
func (c *Config) Validate() error {
	if err := c.checkBounds(); err != nil {
		return err
	}
	if err := c.validateModel(); err != nil {
		return fmt.Errorf("config: %w", err)
	}
	o := c.Optimizer
	switch {
	case o.Name != OptimizerAdam && o.Name != OptimizerAdamW:
		return fmt.Errorf("config: optimizer %q is not supported (want adam or adamw)", o.Name)
	case o.WeightDecay < 0 || o.WeightDecay >= 1 || (o.WeightDecay > 0 && o.Name != OptimizerAdamW):
		return fmt.Errorf("config: optimizer.weight_decay %g must be in [0, 1) and needs name: adamw", o.WeightDecay)
	case o.Schedule != ScheduleConstant && o.Schedule != ScheduleCosine:
		return fmt.Errorf("config: optimizer.schedule %q must be constant or cosine", o.Schedule)
	case o.Schedule == ScheduleCosine && (o.DecaySteps < 1 || o.LRDecay != 1):
		return fmt.Errorf("config: optimizer.schedule cosine needs decay_steps of at least 1 and lr_decay 1")
	case o.WarmupSteps < 0 || o.MinLRRatio < 0 || o.MinLRRatio > 1:
		return fmt.Errorf("config: optimizer.warmup_steps must not be negative and min_lr_ratio must be in [0, 1]")
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
	case c.Workers < 0:
		return fmt.Errorf("config: workers must not be negative (0: one per core)")
	case c.Data.ValMax < 0 || c.Data.MinPly < 0:
		return fmt.Errorf("config: data.val_max and data.min_ply must not be negative")
	}
	return c.checkMemory()
}

// validateModel checks the model section and what its family requires of
// the rest of the config.
func (c *Config) validateModel() error {
	f, err := Lookup(c.Model.Family)
	if err != nil {
		return err
	}
	return f.Validate(c)
}

// family is the config's registered family (Validate has checked it).
func (c *Config) Family() *Family {
	f, err := Lookup(c.Model.Family)
	if err != nil {
		panic(err)
	}
	return f
}
