// Package nnue is the efficiently updatable neural network evaluation
// (NNUE, Nasu 2018; Stockfish's since 2020): a first layer over the 768
// (colour, piece, square) features of each side's view, whose sum over a
// position's pieces is kept in an accumulator that a move updates by
// adding and subtracting a few weight rows, then a few small dense layers.
// graph.go builds it in Gorgonia for training; eval.go quantizes exported
// weights and follows the search's moves with the accumulators.
package nnue

import (
	"fmt"
	"math/bits"

	"github.com/dchess/dchess/dataset"
	"github.com/dchess/dchess/internal/chess/board"
)

// Family names the family in configs and model.dcw.
const Family = "nnue"

// Features is the number of (colour, piece, square) features of one view.
const Features = 2 * 6 * 64

// Slots is the most features one view has active: one per piece.
const Slots = 32

// Config is the architecture and the target: the config file's model
// section, stored in model.dcw.
type Config struct {
	// Accumulator is N, the width of the feature transformer 768 → N that
	// both views share; the dense layers read the two side by side (2N),
	// or their pairwise products (N).
	Accumulator int `json:"accumulator" yaml:"accumulator"`
	// Hidden are the widths of the dense layers between the clipped
	// accumulators and the one output, each followed by a clipped ReLU.
	Hidden []int `json:"hidden" yaml:"hidden"`
	// Scale is the centipawns per unit of the output's logit: the network
	// scores output centipawns and is trained on sigmoid(output / Scale).
	Scale float64 `json:"scale" yaml:"scale"`
	// Lambda blends the target: Lambda · Stockfish's win probability +
	// (1 - Lambda) · the game's result, from the side to move.
	Lambda float64 `json:"lambda" yaml:"lambda"`
	// QuietOnly trains on quiet positions alone: not in check, and
	// Stockfish's best move not a capture, where a static score means most.
	QuietOnly bool `json:"quiet_only" yaml:"quiet_only"`
	// Children also trains, on the train split, on the positions after the
	// first move of up to this many of each label's lines (its best line,
	// then the lines of label --multipv), each scored by its line from the
	// child's side to move: siblings with Stockfish's scores, the choice a
	// search makes between a position's moves. QuietOnly applies to them,
	// the line's next move standing for the best move.
	Children int `json:"children,omitempty" yaml:"children"`
	// ChildPlies follows each of those lines this many plies: the
	// positions after its first move, its first two, and so on, each
	// scored by the line from that position's side to move, the line's
	// next move standing for the best move. 1 (or 0, files before the
	// option) is the first move alone.
	ChildPlies int `json:"child_plies,omitempty" yaml:"child_plies"`
	// Sparsity adds Sparsity times the mean of a position's inputs to the
	// first dense layer (the clipped accumulators, or their pairwise
	// products) to its loss, an L1 penalty that trains more of them to 0:
	// the player's first layer skips the chunks of four that are all 0
	// (docs/nnue.md), so a sparser network evaluates faster.
	Sparsity float64 `json:"sparsity,omitempty" yaml:"sparsity"`
	// Pairwise feeds the dense layers the product of each view's two
	// clipped halves, unit j times unit j + N/2, as Stockfish does: N
	// inputs instead of 2N, each 0 when either factor is, so the player's
	// first layer reads half as many bytes and skips more of them.
	Pairwise bool `json:"pairwise,omitempty" yaml:"pairwise"`
	// Mirror also trains, on the train split, on each row's position
	// mirrored left to right (files a and h swapped) with the same target,
	// where neither side may castle: there the rules, and so the score,
	// do not change under the mirror, so it is a second position for free.
	Mirror bool `json:"mirror,omitempty" yaml:"mirror"`
	// OutputBuckets gives the last layer this many outputs, one for each
	// band of the position's piece count (kings included): a position of
	// p pieces is scored by output (p-1)·OutputBuckets/32, so the opening,
	// the middlegame and the endgame each have their own last layer, as
	// Stockfish's layer stacks, chosen by the same count, do. 1 (or 0,
	// files before the option) is the one output.
	OutputBuckets int `json:"output_buckets,omitempty" yaml:"output_buckets"`
}

// DefaultScale makes sigmoid(cp / Scale) the win probability dchess
// labels with, 1/(1 + exp(-0.00368208 cp)): a network trained with it
// scores on Stockfish's centipawn scale.
const DefaultScale = 1 / dataset.WinProbCoefficient

// DefaultConfig is the network, 768 → 256 per view, with the
// pairwise product (256 → 32 → 1; the 512 → 32 → 1 without it,
// which fits as well and plays level at 10+0.1 and at equal depth, but
// costs a search node more: docs/results/2026-11-26-nnue-pairwise.md),
// trained on Stockfish's win probability alone (lambda 1, nnue-pytorch's
// default) and on quiet positions, the positions along their best line's
// first four plies and their mirrors (each won at equal depth against the
// recipe without it: the mirror in
// docs/results/2026-11-27-nnue-mixed-data-mirror.md, four plies of the
// line against one in docs/results/2026-11-27-nnue-positions-along-the-line.md).
func DefaultConfig() Config {
	return Config{Accumulator: 256, Hidden: []int{32}, Scale: DefaultScale, Lambda: 1, QuietOnly: true, Children: 4, ChildPlies: 4, Pairwise: true, Mirror: true, OutputBuckets: 1}
}

// Validate reports a configuration that cannot be built, in one line.
func (c Config) Validate() error {
	switch {
	case c.Accumulator < 16 || c.Accumulator > 4096 || c.Accumulator%16 != 0:
		return fmt.Errorf("nnue: accumulator %d must be a multiple of 16 in 16..4096", c.Accumulator)
	case len(c.Hidden) > 4:
		return fmt.Errorf("nnue: at most 4 hidden layers, not %d", len(c.Hidden))
	case !(c.Scale > 0 && c.Scale <= 1e4):
		return fmt.Errorf("nnue: scale %g must be in (0, 10000] centipawns", c.Scale)
	case !(c.Lambda >= 0 && c.Lambda <= 1):
		return fmt.Errorf("nnue: lambda %g must be in [0, 1]", c.Lambda)
	case c.Children < 0 || c.Children > 16:
		return fmt.Errorf("nnue: children %d must be in 0..16", c.Children)
	case c.ChildPlies < 0 || c.ChildPlies > 16:
		return fmt.Errorf("nnue: child_plies %d must be in 1..16 (0, in files before the option, reads as 1)", c.ChildPlies)
	case !(c.Sparsity >= 0 && c.Sparsity <= 1):
		return fmt.Errorf("nnue: sparsity %g must be in [0, 1]", c.Sparsity)
	case c.OutputBuckets < 0 || c.OutputBuckets > Slots:
		return fmt.Errorf("nnue: output_buckets %d must be in 1..%d", c.OutputBuckets, Slots)
	case c.Pairwise && c.Accumulator%32 != 0:
		return fmt.Errorf("nnue: pairwise needs an accumulator that is a multiple of 32, not %d", c.Accumulator)
	}
	for _, h := range c.Hidden {
		if h < 1 || h > 1024 {
			return fmt.Errorf("nnue: hidden width %d must be in 1..1024", h)
		}
	}
	return nil
}

// widths are the dense layers' widths, input first: both views' clipped
// accumulators, or their pairwise products; last the outputs, one a bucket.
func (c Config) widths() []int {
	return append(append([]int{2 * c.perView()}, c.Hidden...), c.buckets())
}

// buckets is how many outputs the last layer has (OutputBuckets; 0, in
// files before the option, is 1).
func (c Config) buckets() int { return max(1, c.OutputBuckets) }

// bucket is the output that scores a position of pieces pieces (1..Slots).
func (c Config) bucket(pieces int) int {
	return min(max((pieces-1)*c.buckets()/Slots, 0), c.buckets()-1)
}

// LinePlies is how many plies of each line training follows (ChildPlies;
// 0, in files before the option, is 1).
func (c Config) LinePlies() int { return max(1, c.ChildPlies) }

// perView is how many of the first dense layer's inputs each view gives.
func (c Config) perView() int {
	if c.Pairwise {
		return c.Accumulator / 2
	}
	return c.Accumulator
}

func denseName(i int) string { return fmt.Sprintf("fc%d", i) }

type paramShape struct {
	name  string
	shape []int
}

// paramShapes lists every tensor: the feature transformer, then the dense
// layers (weights in × out).
func (c Config) paramShapes() []paramShape {
	out := []paramShape{{"ft.w", []int{Features, c.Accumulator}}, {"ft.b", []int{c.Accumulator}}}
	w := c.widths()
	for i := 0; i+1 < len(w); i++ {
		out = append(out, paramShape{denseName(i) + ".w", []int{w[i], w[i+1]}}, paramShape{denseName(i) + ".b", []int{w[i+1]}})
	}
	return out
}

// feature is the index of a piece of colour pc on sq in view's features:
// the viewer's pieces first, squares as the viewer sees them (Black's
// view is the board flipped vertically), so both views share one weight
// matrix.
func feature(view, pc board.Color, p board.Piece, sq uint8) int {
	side := 0
	if pc != view {
		side = 1
	}
	if view == board.Black {
		sq ^= 56
	}
	return (side*6+int(p)-1)*64 + int(sq)
}

// activeFeatures writes the features of b's pieces in view into dst (one
// per piece, in square order) and returns how many.
func activeFeatures(b *board.Board, view board.Color, dst []int) int {
	n := 0
	for _, pc := range [2]board.Color{board.White, board.Black} {
		bb := b.Pieces(pc)
		for _, p := range board.PieceTypes {
			for set := board.PieceBits(bb, p); set != 0; set &= set - 1 {
				if n == len(dst) {
					return n + 1 // more pieces than slots: the caller refuses the position
				}
				dst[n] = feature(view, pc, p, uint8(bits.TrailingZeros64(set)))
				n++
			}
		}
	}
	return n
}
