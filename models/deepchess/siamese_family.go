package deepchess

import (
	"context"
	"fmt"
	"slices"

	"github.com/dchess/dchess/models/dcw"
	"github.com/dchess/dchess/models/family"
	"github.com/dchess/dchess/search"
	"github.com/dchess/dchess/search/player"
)

// DeepChess's comparator (seed 000): two Pos2Vec towers and a head that
// says which of two positions is better for White, trained on pairs from
// games White won and Black won, played by a comparison alpha-beta.
func registerSiamese() {
	family.MustRegister(family.Family{
		Name:        SiameseFamily,
		Description: "DeepChess's comparator: two Pos2Vec towers + head, which of two positions is better (seed 000)",
		Data:        "positions of decisive games (dchess ingest), and an autoencoder run to start from",
		FirstRun:    "dchess train --model siamese --data DATASET --config configs/siamese-small.yaml --max-steps 2000",
		NewSettings: func() any { c := DefaultSiameseConfig(); return &c },
		Defaults: func(c *family.Config) {
			deepChessDefaults(c)
			c.Optimizer.LR, c.Optimizer.LRDecay, c.Epochs, c.Loss, c.Patience = 0.01, 0.99, 1000, family.LossCrossEntropy, 20
		},
		Validate: func(c *family.Config) error {
			if err := checkDeepChessInput(c); err != nil {
				return err
			}
			if c.Loss != family.LossCrossEntropy {
				return fmt.Errorf("siamese is trained with softmax cross-entropy: loss must be cross_entropy, not %q", c.Loss)
			}
			// A config may leave the tower out: the run takes it from the
			// autoencoder it starts from.
			return c.Model.Settings.(*SiameseConfig).Validate()
		},
		Bounds: family.MergeBounds(family.LayerBounds("tower", family.MaxWidth), family.LayerBounds("head", family.MaxWidth)),
		// Both towers' values, one tower's weights, and the head on the two
		// embeddings; before a run takes its tower from the autoencoder,
		// the head alone.
		Size: func(c *family.Config) family.ModelSize {
			sc := c.Model.Settings.(*SiameseConfig)
			var tower family.ModelSize
			embedding := 0
			if len(sc.Tower) > 0 {
				tower = family.DenseSize(append([]int{InputSize}, sc.Tower...))
				embedding = sc.Tower[len(sc.Tower)-1]
			}
			head := family.DenseSize(append(append([]int{2 * embedding}, sc.Head...), 2))
			return family.ModelSize{Params: tower.Params + head.Params, Values: 2*tower.Values + head.Values}
		},
		Objective: newSiameseObjective,
		// A pair needs a position from each side's wins.
		Examples: func(c *family.Config) (string, bool) {
			return decisivePositions(c, "games White won and of games Black won"), false
		},
		Accuracy: family.AccuracyPair,
		Metrics: []family.MetricInfo{
			{Name: "train_loss, val_loss", Meaning: "softmax cross-entropy of the pair's order"},
			{Name: "train_pair_accuracy, val_pair_accuracy", Meaning: "share of pairs whose position from the game White won the comparator ranks better for White"},
		},
		Player:      newSiamesePlayer,
		Evaluations: family.EvalPairs,
		SetInit:     func(c *family.Config, path string) { c.Model.Settings.(*SiameseConfig).Init = path },
	})
}

// newSiameseObjective builds the comparator's objective. A new run loads
// the autoencoder its towers start from, looking for the newest under
// env.RunsDir when the config names none, and records it and the tower it
// gives in the config.
func newSiameseObjective(c *family.Config, env family.ObjectiveEnv) (family.Objective, error) {
	sc := c.Model.Settings.(*SiameseConfig)
	o := &siameseObjective{cfg: c, filter: newPositionFilter(c.Data)}
	if env.Fresh {
		path, err := autoencoderWeights(sc.Init, env.RunsDir)
		if err != nil {
			return nil, err
		}
		var init *dcw.File
		if init, o.initCfg, err = ReadAutoencoder(path); err != nil {
			return nil, fmt.Errorf("siamese: starting weights: %w", err)
		}
		o.init = init
		if len(sc.Tower) == 0 {
			sc.Tower = o.initCfg.Layers
		}
		sc.Init = path
	}
	m, err := NewSiamese(*sc)
	if err != nil {
		return nil, err
	}
	o.m = m
	return o, nil
}

// SiameseDefaultDepth is how deep the siamese player looks when nothing
// else bounds its search: every new leaf costs a pass through Pos2Vec.
const SiameseDefaultDepth = 3

// SiameseSettings are the siamese player's spec settings: the search
// settings, qdepth= (plies of captures past the depth, 0 for none) and
// cache= (MB of cached position projections).
var SiameseSettings = append(slices.Clone(player.SearchSettings), "qdepth", "cache")

// newSiamesePlayer makes DeepChess's player: the comparison alpha-beta of
// package search over the exported comparator.
func newSiamesePlayer(_ context.Context, spec player.Spec) (player.Player, error) {
	if err := spec.CheckSettings(SiameseSettings...); err != nil {
		return nil, err
	}
	opts, err := player.SearchOptionsFromSpec(spec)
	if err != nil {
		return nil, err
	}
	if opts.Algorithm != search.AlphaBeta {
		return nil, player.SpecErrorf("player siamese: search=minimax is not available (it compares positions by alpha-beta)")
	}
	qdepth, err := spec.Int("qdepth", search.DefaultQuiesceDepth)
	if err != nil {
		return nil, err
	}
	cacheMB, err := spec.Int("cache", DefaultCacheMB)
	if err != nil {
		return nil, err
	}
	if qdepth >= search.MaxPly || cacheMB > 1<<16 {
		return nil, player.SpecErrorf("player siamese: qdepth=%d or cache=%d MB is too large", qdepth, cacheMB)
	}
	cmp, err := Load(spec.Path)
	if err != nil {
		return nil, fmt.Errorf("player siamese: %w", err)
	}
	cmp.SetCacheMB(int(cacheMB))
	q := int(qdepth)
	if q == 0 {
		q = -1 // CompareOptions reads 0 as the default
	}
	engine := search.NewCompare(cmp, search.CompareOptions{HashMB: opts.HashMB, QuiesceDepth: q})
	return &comparePlayer{Searcher: player.ComparePlayer(spec.DisplayName(), engine, opts, SiameseDefaultDepth),
		cmp: cmp}, nil
}

// comparePlayer is the siamese player: a player.Searcher over the
// comparison search, which also shows its network.
type comparePlayer struct {
	*player.Searcher
	cmp *Comparator
}

// Comparator returns the network the player compares positions with.
func (p *comparePlayer) Comparator() *Comparator { return p.cmp }
