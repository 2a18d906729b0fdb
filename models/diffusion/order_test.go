package diffusion

import (
	"math"
	"slices"
	"testing"

	"github.com/dchess/dchess/dataset/encode"
	"github.com/dchess/dchess/search/board"
)

// predictFunc lets a test stand in for the network.
type predictFunc func(in []int16, slots []int, out [][]float32)

func (f predictFunc) Forward(in []int16, slots []int, out [][]float32) { f(in, slots, out) }

// TestActionFirstUnmasksTheMoveBeforeItsFuture: a stand-in network that,
// while a_i is masked, finds each square the move changes likelier to stay
// (0.6) than e2e4 to be played (0.3), and once a_i is known predicts the
// line after 1. e4 for certain. Decoded by confidence, the changed squares
// settle first and the imagined future never shows e4; with ActionFirst the
// first step unmasks a_i alone and the future follows it. In one step both
// orders decode in one pass.
func TestActionFirstUnmasksTheMoveBeforeItsFuture(t *testing.T) {
	c := tinyConfig()
	_, legal, err := LegalActions(board.New())
	if err != nil {
		t.Fatal(err)
	}
	x1 := make([]int16, encode.SequenceLen(c.Horizon))
	if _, err := encode.Sequence(board.New(), []string{"e2e4", "e7e5"}, c.Horizon, x1); err != nil {
		t.Fatal(err)
	}
	a0 := c.StateSlots()
	line := predictFunc(func(in []int16, slots []int, out [][]float32) {
		for i, s := range slots {
			for j := range out[i] {
				out[i][j] = float32(math.Inf(-1))
			}
			sure, before := x1[s], x1[s%encode.StateLen]
			switch {
			case s == a0:
				for _, m := range legal {
					out[i][m] = float32(math.Log(0.7 / float64(len(legal)-1)))
				}
				out[i][sure] = float32(math.Log(0.3))
			case in[a0] == MaskAction && s < a0 && sure != before:
				out[i][before], out[i][sure] = float32(math.Log(0.6)), float32(math.Log(0.4))
			default:
				out[i][sure] = 0
			}
		}
	})
	dec := NewDecoder(biasNet(t, c, nil, encode.TokenEmpty))
	dec.predict = line
	for _, tc := range []struct {
		actionFirst bool
		steps       int
		want        bool
	}{{false, 20, false}, {false, 4, false}, {true, 20, true}, {true, 4, true}, {true, 2, true}, {true, 1, false}} {
		dec.ActionFirst = tc.actionFirst
		r, err := dec.DecodeSteps(board.New(), tc.steps)
		if err != nil {
			t.Fatal(err)
		}
		if board.UCI(r.Best) != "e2e4" {
			t.Fatalf("action first %v, %d steps: a_i %s, want e2e4", tc.actionFirst, tc.steps, board.UCI(r.Best))
		}
		if got := slices.Equal(r.Tokens[encode.StateLen:a0], x1[encode.StateLen:a0]); got != tc.want {
			t.Errorf("action first %v, %d steps: future imagined right %v, want %v", tc.actionFirst, tc.steps, got, tc.want)
		}
	}
}
