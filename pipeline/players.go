package pipeline

import (
	"context"
	"fmt"
	"slices"

	"github.com/dchess/dchess/models/ann"
	"github.com/dchess/dchess/models/cnn"
	"github.com/dchess/dchess/models/deepchess"
	"github.com/dchess/dchess/models/diffusion"
	"github.com/dchess/dchess/search"
	"github.com/dchess/dchess/search/player"
)

// The neural families play through the same alpha-beta as the heuristic,
// evaluating leaves with the exported weights in pure Go. Registering them
// here keeps search free of any model import: it sees only search.Evaluator.
func init() {
	player.RegisterModel("ann", evaluatorFamily(func(path string) (search.Evaluator, error) { return ann.Load(path) }))
	player.RegisterModel("cnn", evaluatorFamily(func(path string) (search.Evaluator, error) { return cnn.Load(path) }))
	player.RegisterModel(deepchess.SiameseFamily, newSiamesePlayer)
	player.RegisterModel(diffusion.Family, newSequencePlayer)
	player.RegisterModel(diffusion.PolicyFamily, newSequencePlayer)
}

// newSequencePlayer makes the diffusion or policy player: it plays the
// first action of the sequence it decodes, without search.
func newSequencePlayer(_ context.Context, spec player.Spec) (player.Player, error) {
	dec, err := SequenceDecoder(spec)
	if err != nil {
		return nil, err
	}
	return player.ProposerPlayer(spec.DisplayName(), dec), nil
}

// MaxDecodingSteps bounds the diffusion decoder's T.
const MaxDecodingSteps = 1000

// SequenceDecoder loads the decoder a diffusion or policy spec names (its
// path already resolved). steps= sets the diffusion model's decoding steps
// T (default: as trained).
func SequenceDecoder(spec player.Spec) (*diffusion.Decoder, error) {
	settings := []string{}
	if spec.Family == diffusion.Family {
		settings = append(settings, "steps")
	}
	if err := spec.CheckSettings(settings...); err != nil {
		return nil, err
	}
	net, err := diffusion.Load(spec.Path)
	if err != nil {
		return nil, fmt.Errorf("player %s: %w", spec.Family, err)
	}
	if net.Config().Family != spec.Family {
		return nil, fmt.Errorf("player %s: %s holds %s weights", spec.Family, spec.Path, net.Config().Family)
	}
	dec := diffusion.NewDecoder(net)
	steps, err := spec.Int("steps", int64(dec.Steps))
	if err != nil {
		return nil, err
	}
	if steps < 1 || steps > MaxDecodingSteps {
		return nil, fmt.Errorf("player %s: steps=%d must be in 1..%d", spec.Family, steps, MaxDecodingSteps)
	}
	dec.Steps = int(steps)
	return dec, nil
}

// evaluatorFamily makes a player factory for a family whose weights load
// into a search.Evaluator. Each player loads its own copy, so concurrent
// games never share an evaluator's scratch buffers.
func evaluatorFamily(load func(path string) (search.Evaluator, error)) player.Factory {
	return func(_ context.Context, spec player.Spec) (player.Player, error) {
		if err := spec.CheckSettings(player.SearchSettings...); err != nil {
			return nil, err
		}
		opts, err := player.SearchOptionsFromSpec(spec)
		if err != nil {
			return nil, err
		}
		eval, err := load(spec.Path)
		if err != nil {
			return nil, fmt.Errorf("player %s: %w", spec.Family, err)
		}
		return player.SearchPlayer(spec.DisplayName(), eval, opts), nil
	}
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
		return nil, fmt.Errorf("player siamese: search=minimax is not available (it compares positions by alpha-beta)")
	}
	qdepth, err := spec.Int("qdepth", search.DefaultQuiesceDepth)
	if err != nil {
		return nil, err
	}
	cacheMB, err := spec.Int("cache", deepchess.DefaultCacheMB)
	if err != nil {
		return nil, err
	}
	if qdepth >= search.MaxPly || cacheMB > 1<<16 {
		return nil, fmt.Errorf("player siamese: qdepth=%d or cache=%d MB is too large", qdepth, cacheMB)
	}
	cmp, err := deepchess.Load(spec.Path)
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
	cmp *deepchess.Comparator
}

// Comparator returns the network the player compares positions with.
func (p *comparePlayer) Comparator() *deepchess.Comparator { return p.cmp }
