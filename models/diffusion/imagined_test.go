package diffusion

import (
	"testing"

	"github.com/dchess/dchess/dataset/encode"
	"github.com/dchess/dchess/internal/chess/board"
	"github.com/dchess/dchess/models/transformer"
)

// biasNet returns a net that predicts by its output biases alone (see
// BiasOnlyWeights).
func biasNet(t *testing.T, c Config, actionBias map[string]float32, stateWord int) *Net {
	t.Helper()
	f, err := BiasOnlyWeights(c, actionBias, stateWord)
	if err != nil {
		t.Fatal(err)
	}
	net, err := NewNet(f)
	if err != nil {
		t.Fatal(err)
	}
	return net
}

func TestDecodeReportsTheUnrestrictedActionAndItsLegality(t *testing.T) {
	policy := tinyConfig()
	policy.Family, policy.Horizon, policy.Steps = PolicyFamily, 1, 1
	// a1a8 is the vocabulary's favourite but is illegal from the start
	// position, where e2e4 is the best legal move; with a lone rook on a1
	// a1a8 is legal and chosen. With legal_mask the model's a_i has no
	// mass on a1a8 from the start: its unrestricted choice is e2e4.
	bias := map[string]float32{"a1a8": 10, "e2e4": 5}
	for _, mask := range []bool{false, true} {
		for _, c := range []Config{tinyConfig(), policy} {
			c.LegalMask = mask
			dec := NewDecoder(biasNet(t, c, bias, encode.TokenEmpty))
			if dec.LegalMask() != mask {
				t.Errorf("%s: decoder's LegalMask %v, want %v", c.Family, dec.LegalMask(), mask)
			}
			for _, tc := range []struct {
				fen, best, unrestricted string
				legal                   bool
			}{
				{board.StartFEN, "e2e4", "a1a8", false},
				{"7k/8/8/8/8/8/8/R5K1 w - - 0 1", "a1a8", "a1a8", true},
			} {
				if mask {
					tc.unrestricted, tc.legal = tc.best, true
				}
				b, _ := board.FromFEN(tc.fen)
				r, err := dec.Decode(b)
				if err != nil {
					t.Fatal(err)
				}
				if got := board.UCI(r.Best); got != tc.best {
					t.Errorf("%s mask %v %s: best %s, want %s", c.Family, mask, tc.fen, got, tc.best)
				}
				if got := encode.ActionUCI(r.UnrestrictedAction); got != tc.unrestricted || r.UnrestrictedLegal != tc.legal {
					t.Errorf("%s mask %v %s: unrestricted %s legal %v, want %s legal %v", c.Family, mask, tc.fen, got, r.UnrestrictedLegal, tc.unrestricted, tc.legal)
				}
			}
			if want := map[bool]int{false: 1, true: 2}[mask]; dec.Legal != want || dec.Decoded != 2 {
				t.Errorf("%s mask %v: counted %d legal of %d decoded, want %d of 2", c.Family, mask, dec.Legal, dec.Decoded, want)
			}
		}
	}
}

func TestDecodedTokensHoldTheImaginedFuture(t *testing.T) {
	// Every state slot predicts an empty square and every action slot
	// a1a8: after 1. e4 the imagined s_{i+1} gets exactly the 32 empty
	// squares right, and the imagined a_{i+1} (a1a8) is not e7e5.
	c := tinyConfig()
	dec := NewDecoder(biasNet(t, c, map[string]float32{"a1a8": 10, "e2e4": 5}, encode.TokenEmpty))
	for _, steps := range []int{1, c.Steps} {
		r, err := dec.DecodeSteps(board.New(), steps)
		if err != nil {
			t.Fatal(err)
		}
		truth := make([]int16, encode.SequenceLen(c.Horizon))
		if _, err := encode.Sequence(board.New(), []string{"e2e4", "e7e5"}, c.Horizon, truth); err != nil {
			t.Fatal(err)
		}
		m, err := transformer.CompareImagined(c.Horizon, r.Tokens, truth)
		if err != nil {
			t.Fatal(err)
		}
		if !m.HasState || m.StateCorrect != 32 || !m.HasNextAction || m.NextActionCorrect {
			t.Errorf("T=%d: %+v, want 32 state tokens right and a_{i+1} wrong", steps, m)
		}
	}
}
