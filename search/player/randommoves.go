package player

import (
	"context"
	"fmt"
	"math/rand/v2"
)

// RandomMoves wraps a player so that some of its moves are uniformly
// random legal moves: self-play's source of variety, since two searching
// players with fixed limits otherwise replay the same game from an opening.
type RandomMoves struct {
	inner Player
	rate  float64
	plies int
	seed  uint64
	rng   *rand.Rand
}

// WithRandomMoves returns p playing a random legal move instead of its own
// with probability rate, in the first plies plies of each game (counted
// from the game's start position; 0: the whole game). The choices come
// from seed and, through SeedGame, the game's seed, so games replay.
func WithRandomMoves(p Player, rate float64, plies int, seed uint64) (*RandomMoves, error) {
	if !(rate >= 0 && rate <= 1) {
		return nil, fmt.Errorf("random-move rate %v is not between 0 and 1", rate)
	}
	if plies < 0 {
		return nil, fmt.Errorf("random-move plies %d must not be negative", plies)
	}
	return &RandomMoves{inner: p, rate: rate, plies: plies, seed: seed, rng: rand.New(rand.NewPCG(seed, 0))}, nil
}

func (r *RandomMoves) Name() string { return r.inner.Name() }

// Unwrap returns the wrapped player.
func (r *RandomMoves) Unwrap() Player { return r.inner }

// SeedGame restarts the wrapper's generator from its seed and the game's,
// and passes the game's seed on to a wrapped random player.
func (r *RandomMoves) SeedGame(seed uint64) {
	r.rng = rand.New(rand.NewPCG(r.seed, seed))
	if s, ok := r.inner.(GameSeeder); ok {
		s.SeedGame(seed)
	}
}

func (r *RandomMoves) NewGame(ctx context.Context) error { return r.inner.NewGame(ctx) }

func (r *RandomMoves) Close() error { return r.inner.Close() }

func (r *RandomMoves) Move(ctx context.Context, pos Position, lim Limits) (MoveInfo, error) {
	// The draw happens on every move, inside the window or not, so the
	// random sequence does not depend on the window.
	roll := r.rng.Float64()
	if roll >= r.rate || (r.plies > 0 && len(pos.Moves) >= r.plies) {
		return r.inner.Move(ctx, pos, lim)
	}
	return randomMove(pos, lim.SearchMoves, r.rng)
}
