package flow

import (
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

// TestLegalMaskLossByHandOnTheBoardSource: with legal_mask the mask is the
// input after the board source's stay inputs, and the graph's ELBO at
// t = .75 is TestLossAndGradientsByHand's with a_i's log-probability
// renormalised over the legal moves of the start position.
func TestLegalMaskLossByHandOnTheBoardSource(t *testing.T) {
	for _, mask := range []bool{false, true} {
		c := tinyConfig()
		c.Source, c.LegalMask = SourceBoard, mask
		m, err := NewModel(c)
		if err != nil {
			t.Fatal(err)
		}
		shapes := m.InputShapes(1)
		if want := 8 + map[bool]int{false: 0, true: 1}[mask]; len(shapes) != want || mask && shapes[8][1] != encode.ActionVocab {
			t.Fatalf("legal_mask %v: input shapes %v", mask, shapes)
		}
		params := m.InitParams(4)
		seq := transformertest.Sequence(t, c.Horizon, transformertest.Opening...)
		n := len(seq) - encode.StateLen
		in, w, stay := make([]int16, len(seq)), make([]float32, len(seq)), make([]float32, len(seq))
		c.CorruptAt(rand.New(rand.NewPCG(7, 8)), 0.75, seq, in, w, stay)
		ss := c.StateSlots()
		const lambda = 1 / (1 - 0.75)
		in[ss], w[ss] = MaskAction, float32(lambda/float64(n)) // a_i at its source, scored
		src := make([]int16, len(seq))
		c.SourceTokens(seq, src)

		slots, outs := netLogProbs(t, m, params, in)
		_, legal, err := transformer.LegalActions(board.New())
		if err != nil {
			t.Fatal(err)
		}
		var want float64
		for i, s := range slots {
			if in[s] != src[s] {
				continue
			}
			lp := outs[i]
			if s == ss && mask {
				transformer.RestrictLogProbs(lp, legal)
			}
			if in[s] != seq[s] {
				want += lambda / float64(n) * -float64(lp[seq[s]])
			}
			if s < ss {
				want += lambda / float64(n) * (1 - math.Exp(float64(lp[in[s]])))
			}
		}
		g := G.NewGraph()
		nodes := transformertest.Inputs(g, m.InputShapes(1))
		fill(m, nodes, [][]int16{in}, [][]int16{seq}, [][]float32{w}, [][]float32{stay})
		rows := make([][]float32, len(nodes))
		for i, nd := range nodes {
			rows[i] = nd.Value().Data().([]float32)
		}
		m.EncodeLegal(legal, rows)
		out, err := m.Build(g, nodes, params)
		if err != nil {
			t.Fatal(err)
		}
		vm := G.NewTapeMachine(g)
		if err := vm.RunAll(); err != nil {
			t.Fatal(err)
		}
		got := float64(out.PerRow.Value().Data().([]float32)[0])
		vm.Close()
		if math.Abs(got-want) > 1e-4*math.Max(1, want) {
			t.Errorf("legal_mask %v: graph loss %v, by hand %v", mask, got, want)
		}
	}
}

// TestLegalMaskSamplesALegalAiEvenUntrained: with legal_mask an untrained
// network's a_i has no mass outside the legal moves at any Euler step,
// with either sampler and source, at one step as at several; without it
// its argmax over the vocabulary is mostly illegal.
func TestLegalMaskSamplesALegalAiEvenUntrained(t *testing.T) {
	for _, source := range []string{SourceMask, SourceBoard} {
		for _, sampler := range []string{SamplerStochastic, SamplerDeterministic} {
			illegalWithout := 0
			for _, mask := range []bool{false, true} {
				c := tinyConfig()
				c.Source, c.LegalMask = source, mask
				m, err := NewModel(c)
				if err != nil {
					t.Fatal(err)
				}
				arch, _ := m.Arch()
				net, err := NewNet(&dcw.File{Family: Family, Arch: arch, Tensors: m.InitParams(31)})
				if err != nil {
					t.Fatal(err)
				}
				dec := NewDecoder(net)
				if err := dec.SetSampler(sampler); err != nil {
					t.Fatal(err)
				}
				if dec.LegalMask() != mask {
					t.Fatalf("decoder's LegalMask %v, want %v", dec.LegalMask(), mask)
				}
				for _, b := range nntest.RandomBoards(20, 32) {
					_, legal, err := transformer.LegalActions(b)
					if err != nil {
						continue
					}
					for _, steps := range []int{1, 4} {
						r, err := dec.DecodeSteps(b, steps)
						if err != nil {
							t.Fatal(err)
						}
						a0, isLegal := int(r.Tokens[c.StateSlots()]), false
						for _, idx := range legal {
							isLegal = isLegal || idx == a0
						}
						if !isLegal {
							t.Fatalf("%s %s legal_mask %v: sampled a_i %s illegal in %s", source, sampler, mask, encode.ActionUCI(a0), b.FEN())
						}
						if !r.UnrestrictedLegal {
							if mask {
								t.Fatalf("%s %s %d steps: unrestricted a_i %s illegal in %s with legal_mask", source, sampler, steps, encode.ActionUCI(r.UnrestrictedAction), b.FEN())
							}
							illegalWithout++
						}
					}
				}
			}
			if illegalWithout == 0 {
				t.Errorf("%s %s: every unrestricted a_i was legal without legal_mask", source, sampler)
			}
		}
	}
}

// TestWeightsWithoutLegalMaskLoadWithItOff: flow weights written before
// legal_mask have no such key; they load with it off, and a run resumed
// from such a checkpoint keeps it off.
func TestWeightsWithoutLegalMaskLoadWithItOff(t *testing.T) {
	c := tinyConfig()
	if !c.LegalMask {
		t.Fatal("the default config has legal_mask off")
	}
	arch, _ := json.Marshal(c)
	var fields map[string]any
	if err := json.Unmarshal(arch, &fields); err != nil {
		t.Fatal(err)
	}
	if _, ok := fields["legal_mask"]; !ok {
		t.Fatalf("architecture %s has no legal_mask", arch)
	}
	delete(fields, "legal_mask")
	old, _ := json.Marshal(fields)
	m, _ := NewModel(c)
	net, err := NewNet(&dcw.File{Family: Family, Arch: old, Tensors: m.InitParams(41)})
	if err != nil {
		t.Fatal(err)
	}
	if net.Config().LegalMask || NewDecoder(net).LegalMask() {
		t.Errorf("weights without legal_mask load with it on")
	}
	resumed := DefaultConfig()
	if err := resumed.Resumed(old); err != nil || resumed.LegalMask {
		t.Errorf("a run resumed from an old checkpoint: legal_mask %v (%v)", resumed.LegalMask, err)
	}
	if err := resumed.Resumed(arch); err != nil || !resumed.LegalMask {
		t.Errorf("a run resumed from a legal_mask checkpoint: legal_mask %v (%v)", resumed.LegalMask, err)
	}
}
