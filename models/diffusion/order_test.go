package diffusion

import (
	"math"
	"slices"
	"testing"

	"github.com/dchess/dchess/dataset/encode"
	"github.com/dchess/dchess/internal/chess/board"
	"github.com/dchess/dchess/models/transformer"
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
	_, legal, err := transformer.LegalActions(board.New())
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

// TestProposeStopsAtTheMove: Propose ranks the moves as the whole decode
// does but stops once a_i is decided: after one network pass with
// ActionFirst, or jointly when a_i is the most confident slot; it fails if
// Propose decodes past a_i or ranks otherwise.
func TestProposeStopsAtTheMove(t *testing.T) {
	c := tinyConfig()
	_, legal, err := transformer.LegalActions(board.New())
	if err != nil {
		t.Fatal(err)
	}
	passes := 0
	sure := false // a_i the most confident slot, or the least
	stub := predictFunc(func(in []int16, slots []int, out [][]float32) {
		passes++
		for i, s := range slots {
			for j := range out[i] {
				out[i][j] = float32(math.Inf(-1))
			}
			if s != c.StateSlots() {
				out[i][encode.TokenEmpty] = float32(math.Log(0.5))
				continue
			}
			for k, m := range legal {
				out[i][m] = float32(math.Log(float64(k+1) / float64(len(legal)*(len(legal)+1)/2)))
			}
			if sure {
				out[i][legal[0]] = 0
			}
		}
	})
	dec := NewDecoder(biasNet(t, c, nil, encode.TokenEmpty))
	dec.predict = stub
	dec.Steps = 8
	for _, tc := range []struct {
		actionFirst, sure bool
		wantPasses        int
	}{{false, false, 8}, {false, true, 1}, {true, false, 1}, {true, true, 1}} {
		dec.ActionFirst, sure = tc.actionFirst, tc.sure
		passes = 0
		full, err := dec.Decode(board.New())
		if err != nil {
			t.Fatal(err)
		}
		if passes != 8 {
			t.Fatalf("the whole decode took %d passes, want 8", passes)
		}
		passes = 0
		moves, scores, err := dec.Propose(board.New())
		if err != nil {
			t.Fatal(err)
		}
		if passes != tc.wantPasses {
			t.Errorf("action first %v, a_i sure %v: Propose took %d passes, want %d", tc.actionFirst, tc.sure, passes, tc.wantPasses)
		}
		if !slices.Equal(moves, full.Moves) || !slices.Equal(scores, full.Scores) {
			t.Errorf("action first %v, a_i sure %v: Propose ranks the moves otherwise than the whole decode", tc.actionFirst, tc.sure)
		}
	}
}
