package flow

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/dchess/dchess/dataset/encode"
	"github.com/dchess/dchess/internal/chess/board"
	"github.com/dchess/dchess/models/transformer"
	"github.com/dchess/dchess/models/transformer/transformertest"
)

// unsureOracle is unsure as a trained model is before it knows the move:
// until a_i is decided each future token a move changes stays as in s_i
// with probability 0.6 and reaches its target with 0.4, and a_i is its
// target with probability action, the other legal moves sharing the rest;
// once a_i is decided every token is its target for certain.
type unsureOracle struct {
	c      Config
	x1     []int16
	legal  []int
	action float64
}

func (o unsureOracle) Forward(in []int16, slots []int, out [][]float32) {
	a0 := o.c.StateSlots()
	known := in[a0] != MaskAction
	for i, s := range slots {
		row := out[i]
		for j := range row {
			row[j] = -1e30
		}
		stays := o.x1[s%encode.StateLen] // s_i's token on the same square
		switch {
		case s == a0:
			for _, m := range o.legal {
				row[m] = float32(math.Log((1 - o.action) / float64(len(o.legal)-1)))
			}
			row[o.x1[s]] = float32(math.Log(o.action))
		case known || s > a0 || o.x1[s] == stays:
			row[o.x1[s]] = 0
		default:
			row[stays], row[o.x1[s]] = float32(math.Log(0.6)), float32(math.Log(0.4))
		}
	}
}

// futureRight says whether a decode imagined s_{i+1} .. s_{i+h-1} as x_1.
func futureRight(tokens, x1 []int16, c Config) bool {
	return slices.Equal(tokens[encode.StateLen:c.StateSlots()], x1[encode.StateLen:c.StateSlots()])
}

// TestActionFirstImaginesTheFutureOfItsMove: decoded jointly, the tokens
// a move changes settle as "unchanged" before the move itself (each is
// likelier to stay than any one move is to be played), so the imagined
// boards never show the move; with order=action-first the first step
// decides a_i alone and the future follows it exactly. One step has no
// first step to spare: both orders decode in one pass. The test fails if
// the first step decides more than a_i, or a_i is not decided there.
func TestActionFirstImaginesTheFutureOfItsMove(t *testing.T) {
	_, legal, err := transformer.LegalActions(board.New())
	if err != nil {
		t.Fatal(err)
	}
	for _, source := range []string{SourceMask, SourceBoard} {
		c := DefaultConfig()
		c.Source = source
		x1 := transformertest.Sequence(t, c.Horizon, transformertest.Opening...)
		dec := newDecoder(&Net{cfg: c}, unsureOracle{c, x1, legal, 0.3})
		dec.Sampler = SamplerDeterministic
		for _, tc := range []struct {
			actionFirst bool
			steps       int
			want        bool
		}{{false, 20, false}, {false, 5, false}, {true, 20, true}, {true, 5, true}, {true, 2, true}, {true, 1, false}} {
			dec.ActionFirst = tc.actionFirst
			// After a_i the future follows κ: the Euler step from t = 1/20
			// moves h·κ'_t/(1 - κ_t) = 1/19 of the masked future (κ_t = t).
			masked := -1
			dec.trace = func(k int, tokens []int16) {
				if k == 2 && source == SourceMask {
					masked = 0
					for _, tok := range tokens[encode.StateLen:] {
						if tok == MaskState || tok == MaskAction {
							masked++
						}
					}
				}
			}
			r, err := dec.DecodeSteps(board.New(), tc.steps)
			if err != nil {
				t.Fatal(err)
			}
			if future := len(x1) - encode.StateLen - 1; source == SourceMask && tc.actionFirst && tc.steps == 20 &&
				math.Abs(float64(masked)-float64(future)*18/19) > 1 {
				t.Errorf("action first, 20 steps: %d of the %d future tokens masked after the step past a_i, want %.1f",
					masked, future, float64(future)*18/19)
			}
			if board.UCI(r.Best) != "e2e4" {
				t.Fatalf("%s, action first %v, %d steps: a_i %s, want the most probable e2e4", source, tc.actionFirst, tc.steps, board.UCI(r.Best))
			}
			if got := futureRight(r.Tokens, x1, c); got != tc.want {
				t.Errorf("%s, action first %v, %d steps: future imagined right %v, want %v", source, tc.actionFirst, tc.steps, got, tc.want)
			}
		}
	}
	// The stochastic sampler, with a_i certain: jointly, a token that jumps
	// before a_i commits to "unchanged" 6 times in 10 (the mask source
	// keeps no token at its source word); a_i first, every token follows it.
	c := DefaultConfig()
	x1 := transformertest.Sequence(t, c.Horizon, transformertest.Opening...)
	dec := newDecoder(&Net{cfg: c}, unsureOracle{c, x1, legal, 1})
	for _, actionFirst := range []bool{false, true} {
		dec.ActionFirst = actionFirst
		right := 0
		for seed := range 20 {
			dec.Seed = uint64(seed)
			r, err := dec.DecodeSteps(board.New(), 20)
			if err != nil {
				t.Fatal(err)
			}
			if futureRight(r.Tokens, x1, c) {
				right++
			}
		}
		if actionFirst != (right == 20) {
			t.Errorf("stochastic, action first %v: the future right in %d of 20 draws", actionFirst, right)
		}
	}
}

// countingOracle counts the network passes of a decode.
type countingOracle struct {
	predictor
	passes *int
}

func (o countingOracle) Forward(in []int16, slots []int, out [][]float32) {
	*o.passes++
	o.predictor.Forward(in, slots, out)
}

// TestProposeStopsAtTheMove: for both samplers and orders Propose plays the
// whole decode's a_i (the same draw for the stochastic sampler) and ranks
// the moves as it does, but stops once a_i has jumped: after one network
// pass with ActionFirst. It fails if Propose decodes past a_i there or
// plays otherwise.
func TestProposeStopsAtTheMove(t *testing.T) {
	_, legal, err := transformer.LegalActions(board.New())
	if err != nil {
		t.Fatal(err)
	}
	c := DefaultConfig()
	x1 := transformertest.Sequence(t, c.Horizon, transformertest.Opening...)
	passes := 0
	dec := newDecoder(&Net{cfg: c}, countingOracle{unsureOracle{c, x1, legal, 1}, &passes})
	dec.Steps = 8
	for _, sampler := range []string{SamplerDeterministic, SamplerStochastic} {
		for _, actionFirst := range []bool{false, true} {
			for seed := range 5 {
				dec.Sampler, dec.ActionFirst, dec.Seed = sampler, actionFirst, uint64(seed)
				passes = 0
				full, err := dec.Decode(board.New())
				if err != nil {
					t.Fatal(err)
				}
				wholePasses := passes
				passes = 0
				moves, scores, err := dec.Propose(board.New())
				if err != nil {
					t.Fatal(err)
				}
				name := fmt.Sprintf("%s, action first %v, seed %d", sampler, actionFirst, seed)
				if actionFirst && passes != 1 || passes > wholePasses {
					t.Errorf("%s: Propose took %d passes, the whole decode %d", name, passes, wholePasses)
				}
				best := slices.Index(scores, 0)
				if !slices.Equal(moves, full.Moves) || best < 0 || moves[best] != full.Best {
					t.Errorf("%s: Propose plays otherwise than the whole decode", name)
				}
				for i := range scores {
					if i != best && scores[i] != full.Scores[i] {
						t.Errorf("%s: Propose ranks the moves otherwise than the whole decode", name)
						break
					}
				}
			}
		}
	}
}
