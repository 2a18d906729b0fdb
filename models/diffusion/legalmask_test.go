package diffusion

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"testing"

	G "gorgonia.org/gorgonia"

	"github.com/dchess/dchess/dataset/encode"
	"github.com/dchess/dchess/internal/chess/board"
	"github.com/dchess/dchess/models/dcw"
	"github.com/dchess/dchess/models/nn/nntest"
	"github.com/dchess/dchess/models/transformer"
	"github.com/dchess/dchess/models/transformer/transformertest"
)

// maskedRun builds m's graph for a batch whose rows are s_i = boards[r]
// with the given inputs, targets and weights, each row's legal-move mask
// written from its board, runs it forward and backward and returns the
// per-row losses, the action logits and the gradient of the action head's
// bias: the sum over the action rows of the logits' gradient (Gorgonia
// differentiates with regard to inputs only), which for one row whose
// weight is on a single action slot is that slot's.
func maskedRun(t *testing.T, m *Model, params []dcw.Tensor, boards []*board.Board, ins, seqs [][]int16, ws [][]float32) (per, logits, dbias []float32) {
	t.Helper()
	run := transformertest.Run(t, m.InputShapes(len(ins)), len(ins), func(r int, rows [][]float32) {
		m.Encode(ins[r], seqs[r], ws[r], rows)
		_, legal, err := transformer.LegalActions(boards[r])
		if err != nil {
			t.Fatal(err)
		}
		m.EncodeLegal(legal, rows)
	}, func(g *G.ExprGraph, inputs []*G.Node) (*G.Node, *G.Node, []*G.Node, error) {
		out, err := m.Build(g, inputs, params)
		return out.PerRow, out.ActionLogits, out.Learnables, err
	})
	return run.PerRow, run.ActionLogits, transformertest.Grads(t, run.Learnables)["head.action.b"]
}

// TestLegalMaskLossIsTheLegalMovesCrossEntropy: with bias-only weights
// every action slot's logits are the biases, so the losses are known by
// hand. From the start position (20 legal moves) with e2e4 at 2, d2d4 at
// 1, the illegal a1a8 at 5 and every other move at 0, a_i = e2e4 costs
// log(e^2 + e + 18) - 2 over the legal moves with legal_mask and
// log(e^2 + e + e^5 + 1965) - 2 over the vocabulary without; a_{i+1}
// (e7e5, at 0) costs log(e^2 + e + e^5 + 1965) either way.
func TestLegalMaskLossIsTheLegalMovesCrossEntropy(t *testing.T) {
	policy := tinyConfig()
	policy.Family, policy.Horizon, policy.Steps = PolicyFamily, 1, 1
	bias := map[string]float32{"e2e4": 2, "d2d4": 1, "a1a8": 5}
	all := math.Log(math.Exp(2) + math.E + math.Exp(5) + float64(encode.ActionVocab-3))
	legalOnly := math.Log(math.Exp(2) + math.E + 18)
	for _, mask := range []bool{false, true} {
		for _, c := range []Config{tinyConfig(), policy} {
			c.LegalMask = mask
			m, err := NewModel(c)
			if err != nil {
				t.Fatal(err)
			}
			params, err := c.Transformer().BiasOnlyTensors(bias, encode.TokenEmpty)
			if err != nil {
				t.Fatal(err)
			}
			seq := transformertest.Sequence(t, c.Horizon, transformertest.Opening...)
			ss := c.StateSlots()
			in := append([]int16(nil), seq...)
			for k := 0; k < c.Horizon; k++ {
				in[ss+k] = MaskAction
			}
			// Row 0 scores a_i alone, row 1 a_{i+1} alone (h = 2).
			ins, seqs, ws := [][]int16{in}, [][]int16{seq}, [][]float32{make([]float32, len(seq))}
			ws[0][ss] = 1
			if c.Horizon > 1 {
				w := make([]float32, len(seq))
				w[ss+1] = 1
				ins, seqs, ws = append(ins, in), append(seqs, seq), append(ws, w)
			}
			boards := []*board.Board{board.New(), board.New()}
			per, logits, _ := maskedRun(t, m, params, boards, ins, seqs, ws)
			want := all - 2
			if mask {
				want = legalOnly - 2
			}
			if math.Abs(float64(per[0])-want) > 1e-4 {
				t.Errorf("%s legal_mask %v: a_i's loss %.6f, want %.6f", c.Family, mask, per[0], want)
			}
			if c.Horizon > 1 && math.Abs(float64(per[1])-all) > 1e-4 {
				t.Errorf("%s legal_mask %v: a_{i+1}'s loss %.6f, want %.6f over every move", c.Family, mask, per[1], all)
			}
			// The reported logits of a_i are masked too (the accuracy's argmax).
			a1a8, _ := encode.ActionIndexUCI("a1a8")
			if got := logits[a1a8]; mask != (got < -1e8) {
				t.Errorf("%s legal_mask %v: a_i's logit of a1a8 %g", c.Family, mask, got)
			}
		}
	}
}

// TestLegalMaskZeroesTheIllegalGradientsOfAiOnly: on random weights, for
// lines from random positions with every target masked, the gradient of
// a_i's logits (a row weighted on a_i alone) is exactly 0 on every move
// illegal in s_i with legal_mask, and not without; a_{i+1}'s (a row
// weighted on it alone) is not, mask or no mask.
func TestLegalMaskZeroesTheIllegalGradientsOfAiOnly(t *testing.T) {
	for _, mask := range []bool{false, true} {
		c := tinyConfig()
		c.LegalMask = mask
		m, err := NewModel(c)
		if err != nil {
			t.Fatal(err)
		}
		params := m.InitParams(24)
		rng := rand.New(rand.NewPCG(21, 22))
		ss, V := c.StateSlots(), encode.ActionVocab
		for _, b := range nntest.RandomBoards(4, 23) {
			moves, legal, err := transformer.LegalActions(b)
			if err != nil {
				continue
			}
			m1 := moves[rng.IntN(len(moves))]
			line := []string{board.UCI(m1)}
			b.Make(m1)
			if next := b.LegalMoves(); len(next) > 0 {
				line = append(line, board.UCI(next[rng.IntN(len(next))]))
			}
			b.Unmake()
			seq := make([]int16, c.SeqLen())
			if _, err := encode.Sequence(b, line, c.Horizon, seq); err != nil {
				t.Fatal(err)
			}
			in, w := make([]int16, len(seq)), make([]float32, len(seq))
			c.CorruptAt(rng, c.Steps, seq, in, w) // t = T: every target masked
			isLegal := make([]bool, V)
			for _, idx := range legal {
				isLegal[idx] = true
			}
			for k := 0; k < len(line); k++ {
				only := make([]float32, len(seq))
				only[ss+k] = 1
				_, _, grad := maskedRun(t, m, params, []*board.Board{b}, [][]int16{in}, [][]int16{seq}, [][]float32{only})
				var illegal, legalMoves int
				for j, g := range grad[:V] {
					switch {
					case g != 0 && isLegal[j]:
						legalMoves++
					case g != 0:
						illegal++
					}
				}
				if k == 0 && (mask && illegal != 0 || !mask && illegal == 0) {
					t.Errorf("legal_mask %v, %s: %d moves illegal there have a gradient on a_i", mask, b.FEN(), illegal)
				}
				if k == 0 && legalMoves == 0 {
					t.Errorf("legal_mask %v, %s: no legal move has a gradient on a_i", mask, b.FEN())
				}
				if k == 1 && illegal == 0 {
					t.Errorf("legal_mask %v, %s: a_{i+1}'s moves illegal in s_i have no gradient", mask, b.FEN())
				}
			}
		}
	}
}

// TestLegalMaskDecodesALegalAiEvenUntrained: an untrained network's argmax
// over the whole vocabulary is mostly illegal, but with legal_mask a_i's
// distribution has no mass outside the legal moves at any step, so the
// unrestricted a_i (and the token decoded) is legal everywhere, at one
// step as at several.
func TestLegalMaskDecodesALegalAiEvenUntrained(t *testing.T) {
	policy := tinyConfig()
	policy.Family, policy.Horizon, policy.Steps = PolicyFamily, 1, 1
	for _, c := range []Config{tinyConfig(), policy} {
		illegalWithout := 0
		for _, mask := range []bool{false, true} {
			c.LegalMask = mask
			m, err := NewModel(c)
			if err != nil {
				t.Fatal(err)
			}
			arch, _ := m.Arch()
			net, err := NewNet(&dcw.File{Family: c.Family, Arch: arch, Tensors: m.InitParams(31)})
			if err != nil {
				t.Fatal(err)
			}
			dec := NewDecoder(net)
			for _, b := range nntest.RandomBoards(30, 32) {
				_, legal, err := transformer.LegalActions(b)
				if err != nil {
					continue
				}
				for _, steps := range []int{1, c.Steps} {
					r, err := dec.DecodeSteps(b, steps)
					if err != nil {
						t.Fatal(err)
					}
					a0 := int(r.Tokens[c.StateSlots()])
					isLegal := false
					for _, idx := range legal {
						isLegal = isLegal || idx == a0
					}
					if !isLegal {
						t.Fatalf("%s legal_mask %v T=%d: decoded a_i %s is illegal in %s", c.Family, mask, steps, encode.ActionUCI(a0), b.FEN())
					}
					if !r.UnrestrictedLegal {
						if mask {
							t.Fatalf("%s T=%d: unrestricted a_i %s illegal in %s with legal_mask", c.Family, steps, encode.ActionUCI(r.UnrestrictedAction), b.FEN())
						}
						illegalWithout++
					}
					var mass float64
					for _, s := range r.Scores {
						mass += math.Exp(s)
					}
					if math.Abs(mass-1) > 1e-4 {
						t.Errorf("legal moves' scores sum to %v", mass)
					}
				}
			}
		}
		// The test has power: without the mask the untrained argmax is illegal.
		if illegalWithout == 0 {
			t.Errorf("%s: every unrestricted a_i was legal without legal_mask", c.Family)
		}
	}
}

// TestWeightsWithoutLegalMaskDecodeAsBefore: weights written before
// legal_mask existed have no such key in their architecture; they load
// with the mask off, and a resumed run's config takes the checkpoint's
// value.
func TestWeightsWithoutLegalMaskDecodeAsBefore(t *testing.T) {
	c := tinyConfig()
	if !c.LegalMask || !DefaultPolicyConfig().LegalMask {
		t.Fatal("the default configs have legal_mask off")
	}
	arch, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	var fields map[string]any
	if err := json.Unmarshal(arch, &fields); err != nil {
		t.Fatal(err)
	}
	delete(fields, "legal_mask")
	old, _ := json.Marshal(fields)
	if bytes.Contains(old, []byte("legal")) {
		t.Fatalf("old architecture %s", old)
	}
	m, _ := NewModel(c)
	net, err := NewNet(&dcw.File{Family: c.Family, Arch: old, Tensors: m.InitParams(41)})
	if err != nil {
		t.Fatal(err)
	}
	if net.Config().LegalMask || NewDecoder(net).LegalMask() {
		t.Errorf("weights without legal_mask load with it on")
	}
	// The unrestricted a_i is the model's own again: as the same weights
	// written with legal_mask false decode.
	c.LegalMask = false
	arch, _ = json.Marshal(c)
	off, err := NewNet(&dcw.File{Family: c.Family, Arch: arch, Tensors: m.InitParams(41)})
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range nntest.RandomBoards(10, 42) {
		r1, err1 := NewDecoder(net).Decode(b)
		r2, err2 := NewDecoder(off).Decode(b)
		if (err1 == nil) != (err2 == nil) || err1 == nil && (r1.UnrestrictedAction != r2.UnrestrictedAction || r1.Best != r2.Best) {
			t.Fatalf("%s: old weights decode %v, legal_mask false %v", b.FEN(), r1, r2)
		}
	}
	resumed := DefaultConfig()
	if err := resumed.Resumed(old); err != nil || resumed.LegalMask {
		t.Errorf("a run resumed from an old checkpoint: legal_mask %v (%v)", resumed.LegalMask, err)
	}
	if err := resumed.Resumed(mustJSON(t, DefaultConfig())); err != nil || !resumed.LegalMask {
		t.Errorf("a run resumed from a legal_mask checkpoint: legal_mask %v (%v)", resumed.LegalMask, err)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
