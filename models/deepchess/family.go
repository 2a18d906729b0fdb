package deepchess

import (
	"fmt"
	"slices"

	"github.com/dchess/dchess/models/family"
	"github.com/dchess/dchess/models/nn"
)

// Register adds DeepChess's two families, Pos2Vec and the siamese
// comparator that starts from it, to the family registry, and the
// comparator's player to the player registry; cmd/dchess calls it through
// families.RegisterAll.
func Register() {
	registerAutoencoder()
	registerSiamese()
}

// DeepChess's Pos2Vec (seed 000): a deep belief network trained layer by
// layer on positions of decisive games; the siamese comparator starts from
// it. It does not play.
func registerAutoencoder() {
	family.MustRegister(family.Family{
		Name:        AutoencoderFamily,
		Description: "DeepChess's Pos2Vec: 773 bits -> stacked autoencoder, trained layer by layer (seed 000)",
		Data:        "positions of decisive games (dchess ingest); no labels needed",
		// Each layer trains on its own; a few epochs make a usable start.
		FirstRun:    "dchess train --model autoencoder --data DATASET --config configs/autoencoder-small.yaml --epochs 3",
		NewSettings: func() any { c := DefaultAutoencoderConfig(); return &c },
		Defaults: func(c *family.Config) {
			deepChessDefaults(c)
			c.Optimizer.LR, c.Optimizer.LRDecay, c.Epochs = 0.005, 0.98, 200
		},
		Validate: func(c *family.Config) error {
			if err := checkDeepChessInput(c); err != nil {
				return err
			}
			if c.Loss != family.LossMSE {
				return fmt.Errorf("autoencoder is trained on its reconstruction error: loss must be mse, not %q", c.Loss)
			}
			return c.Model.Settings.(*AutoencoderConfig).Validate()
		},
		Bounds: family.LayerBounds("layers", family.MaxWidth),
		// Every encoder and its decoder, the encoders' outputs.
		Size: func(c *family.Config) family.ModelSize {
			widths := append([]int{InputSize}, c.Model.Settings.(*AutoencoderConfig).Layers...)
			decoders := slices.Clone(widths)
			slices.Reverse(decoders)
			s := family.DenseSize(widths)
			s.Params += family.DenseSize(decoders).Params
			return s
		},
		Objective: func(c *family.Config, _ family.ObjectiveEnv) (family.Objective, error) {
			m, err := NewAutoencoder(*c.Model.Settings.(*AutoencoderConfig))
			if err != nil {
				return nil, err
			}
			return &autoencoderObjective{m: m, cfg: c, filter: newPositionFilter(c.Data)}, nil
		},
		Examples: func(c *family.Config) (string, bool) { return decisivePositions(c, "decisive games"), false },
		Accuracy: family.AccuracyNone,
		Metrics: []family.MetricInfo{
			{Name: "train_loss, val_loss", Meaning: "the layer's reconstruction error: mean squared error per value of its input"},
			{Name: "stage", Meaning: "the Pos2Vec layer (1-based) the epoch trained"},
		},
	})
}

// deepChessDefaults is the paper's setup on the 773 bits, from positions
// of decisive games after the first five moves whose played move is not a
// capture, at batch 256 with patience 10.
func deepChessDefaults(c *family.Config) {
	c.Data = family.DataConfig{Encoding: nn.EncodingBits, InputMin: -1, InputMax: 1, ValSplit: "val",
		ShuffleBuffer: 10000, ValMax: 20000, MinPly: 10, SkipCaptures: true}
	c.BatchSize, c.Patience = 256, 10
}

// decisivePositions says which positions the DeepChess families take
// from games, by the config's data filters.
func decisivePositions(c *family.Config, games string) string {
	what := fmt.Sprintf("positions of %s (`dchess ingest` of games with their results makes them) from ply %d on (data.min_ply)", games, c.Data.MinPly)
	if c.Data.SkipCaptures {
		what += " whose played move is known and not a capture (data.skip_captures)"
	}
	return what
}

// checkDeepChessInput: both DeepChess families read the 773 bits as they are.
func checkDeepChessInput(c *family.Config) error {
	if c.Data.Encoding != nn.EncodingBits || c.Data.InputMin != -1 || c.Data.InputMax != 1 {
		return fmt.Errorf("%s reads DeepChess's 773 bits unscaled: data.encoding must be bits, input_min -1 and input_max 1", c.Model.Family)
	}
	return nil
}
