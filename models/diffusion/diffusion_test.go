package diffusion

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/dchess/dchess/dataset/encode"
	"github.com/dchess/dchess/internal/chess/board"
	"github.com/dchess/dchess/models/dcw"
	"github.com/dchess/dchess/models/transformer/transformertest"
)

func tinyConfig() Config {
	c := DefaultConfig()
	c.Horizon, c.Dim, c.Heads, c.Layers, c.MLP, c.Steps = 2, 16, 2, 2, 24, 4
	return c
}

func TestScheduleAndLambdaByHand(t *testing.T) {
	c := DefaultConfig() // linear, T = 20: λ_t = (1/T) / (t/T) = 1/t
	for _, tt := range []int{1, 4, 20} {
		if got, want := c.Lambda(tt), 1/float64(tt); math.Abs(got-want) > 1e-12 {
			t.Errorf("linear λ_%d = %v, want %v", tt, got, want)
		}
	}
	if c.Alpha(0) != 1 || c.Alpha(20) != 0 || math.Abs(c.Alpha(5)-0.75) > 1e-12 {
		t.Errorf("linear α: %v %v %v", c.Alpha(0), c.Alpha(5), c.Alpha(20))
	}
	c.Schedule, c.Steps = ScheduleCosine, 2 // α_1 = cos(π/4) = √½
	if got := c.Lambda(1); math.Abs(got-1) > 1e-12 {
		t.Errorf("cosine λ_1 = %v, want 1", got)
	}
	if got := c.Lambda(2); math.Abs(got-math.Sqrt(0.5)) > 1e-12 {
		t.Errorf("cosine λ_2 = %v, want √½", got)
	}
	c.Steps, c.Weighting = 20, WeightingLinear
	if got := c.Lambda(5); math.Abs(got-0.8) > 1e-12 {
		t.Errorf("linear weighting λ_5 = %v, want 1 - 4/20", got)
	}
	c.Weighting = WeightingConstant
	if c.Lambda(7) != 1 {
		t.Errorf("constant weighting λ_7 = %v", c.Lambda(7))
	}
}

func TestCorruptMasksAtTheScheduleRateWithItsWeight(t *testing.T) {
	c := DefaultConfig() // h = 4: 3·70 state targets + 4 actions = 214 targets
	seq := transformertest.Sequence(t, c.Horizon, transformertest.Opening...)
	in := make([]int16, len(seq))
	w := make([]float32, len(seq))
	rng := rand.New(rand.NewPCG(1, 2))
	const tt, draws = 5, 2000
	masked := 0
	for n := 0; n < draws; n++ {
		c.CorruptAt(rng, tt, seq, in, w)
		for i := range seq {
			switch {
			case i < encode.StateLen:
				if in[i] != seq[i] || w[i] != 0 {
					t.Fatalf("s_i slot %d was masked or weighted", i)
				}
			case in[i] == MaskState || in[i] == MaskAction:
				masked++
				// T·λ_t/N = 20 · (1/5) / 214
				if want := float32(20.0 / 5 / 214); math.Abs(float64(w[i]-want)) > 1e-7 {
					t.Fatalf("weight %v, want %v", w[i], want)
				}
			default:
				if in[i] != seq[i] || w[i] != 0 {
					t.Fatalf("unmasked slot %d changed or weighted", i)
				}
			}
		}
	}
	// 1 - α_5 = 0.25 of 214·2000 draws: the standard error is 0.0007.
	if rate := float64(masked) / (214 * draws); math.Abs(rate-0.25) > 0.005 {
		t.Errorf("masked %.4f of the targets, want 0.25", rate)
	}
	c.CorruptAt(rng, 20, seq, in, w) // α_T = 0: everything after s_i masked
	for i := encode.StateLen; i < len(in); i++ {
		if in[i] != MaskState && in[i] != MaskAction {
			t.Fatalf("slot %d unmasked at t = T", i)
		}
	}
}

func TestDecodeReturnsALegalMoveForEveryStepCount(t *testing.T) {
	for _, c := range []Config{tinyConfig(), func() Config {
		c := tinyConfig()
		c.Family, c.Horizon, c.Steps = PolicyFamily, 1, 1
		return c
	}()} {
		m, err := NewModel(c)
		if err != nil {
			t.Fatal(err)
		}
		arch, _ := m.Arch()
		net, err := NewNet(&dcw.File{Family: c.Family, Arch: arch, Tensors: m.InitParams(11)})
		if err != nil {
			t.Fatal(err)
		}
		dec := NewDecoder(net)
		for _, fen := range []string{board.StartFEN, "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", "8/P7/8/8/8/8/6k1/4K3 w - - 0 1"} {
			for _, steps := range []int{1, 2, c.Steps} {
				b, _ := board.FromFEN(fen)
				dec.Steps = steps
				r, err := dec.Decode(b)
				if err != nil {
					t.Fatal(err)
				}
				legal := false
				for i, mv := range r.Moves {
					if mv == r.Best {
						legal = true
						for _, s := range r.Scores {
							if s > r.Scores[i] {
								t.Errorf("best move %s does not have the top score", board.UCI(mv))
							}
						}
					}
				}
				if !legal {
					t.Fatalf("%s: decoded %s, not a legal move", fen, board.UCI(r.Best))
				}
				for i, tok := range r.Tokens {
					if tok == MaskState || tok == MaskAction || tok < 0 {
						t.Fatalf("%s T=%d: slot %d still masked after decoding", c.Family, steps, i)
					}
				}
				if got := encode.ActionUCI(int(r.Tokens[c.StateSlots()])); got != board.UCI(r.Best) {
					t.Errorf("a_i token %s, best %s", got, board.UCI(r.Best))
				}
			}
		}
		if dec.Decoded != 9 || dec.Legal > dec.Decoded {
			t.Errorf("counted %d legal of %d decoded", dec.Legal, dec.Decoded)
		}
	}
}

// TestPolicyHasNoActionSquares: at horizon 1 the network reads no move,
// so the policy cannot have the move-part table.
func TestPolicyHasNoActionSquares(t *testing.T) {
	policy := DefaultPolicyConfig()
	policy.ActionSquares = true
	if err := policy.Validate(); err == nil || !strings.Contains(err.Error(), "action_squares") {
		t.Fatalf("policy with action squares: %v", err)
	}
}
