package player

import (
	"context"
	"errors"
	"math/rand/v2"
)

// Random plays a uniformly random legal move. Its choices come from a
// seeded generator, so a game replays exactly.
type Random struct {
	name string
	seed uint64
	rng  *rand.Rand
}

// NewRandom returns a random mover seeded with seed.
func NewRandom(name string, seed uint64) *Random {
	return &Random{name: name, seed: seed, rng: rand.New(rand.NewPCG(seed, 0))}
}

func newRandomFromSpec(_ context.Context, spec Spec) (Player, error) {
	if err := spec.CheckSettings("seed"); err != nil {
		return nil, err
	}
	if spec.Path != "" {
		return nil, SpecErrorf("player random takes no path (random or random:seed=N)")
	}
	seed, err := spec.Int("seed", 0)
	if err != nil {
		return nil, err
	}
	return NewRandom(spec.DisplayName(), uint64(seed)), nil
}

func (r *Random) Name() string { return r.name }

// SeedGame restarts the generator from the player's seed and the game's.
func (r *Random) SeedGame(seed uint64) { r.rng = rand.New(rand.NewPCG(r.seed, seed)) }

func (r *Random) NewGame(context.Context) error { return nil }

func (r *Random) Move(_ context.Context, pos Position, lim Limits) (MoveInfo, error) {
	return randomMove(pos, lim.SearchMoves, r.rng)
}

// randomMove draws one of pos's legal moves (those among searchMoves, when
// it names any) with rng. Sorting them by UCI
// text would cost time; the generator's order is fixed for a position,
// which is all determinism needs.
func randomMove(pos Position, searchMoves []string, rng *rand.Rand) (MoveInfo, error) {
	b, err := Board(pos)
	if err != nil {
		return MoveInfo{}, err
	}
	moves := restrict(b.LegalMoves(), allowedMoves(b, searchMoves))
	if len(moves) == 0 {
		return MoveInfo{}, errors.New("no legal move")
	}
	return MoveInfo{Move: moves[rng.IntN(len(moves))].String()}, nil
}

func (r *Random) Close() error { return nil }
