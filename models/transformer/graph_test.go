package transformer

import (
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	G "gorgonia.org/gorgonia"

	"github.com/dchess/dchess/dataset/encode"
	"github.com/dchess/dchess/internal/chess/board"
	"github.com/dchess/dchess/models/dcw"
	"github.com/dchess/dchess/models/transformer/transformertest"
)

// tinyArch is a transformer small enough to differentiate numerically.
func tinyArch() Arch {
	return Arch{Horizon: 2, Dim: 16, Heads: 2, Layers: 2, MLP: 24, LegalMask: true}
}

// maskAt corrupts seq into in as absorbing-state diffusion does with a
// linear schedule at α = keep (models/diffusion's Config.CorruptAt): s_i
// as it is, each target token (every slot after s_i the line reaches)
// kept with probability keep, else masked with weight 1/((1 - keep)·N), N
// the number of targets.
func maskAt(c Arch, rng *rand.Rand, keep float64, seq, in []int16, weight []float32) {
	copy(in, seq[:encode.StateLen])
	targets := 0
	for i := encode.StateLen; i < len(seq); i++ {
		if seq[i] != encode.NoToken {
			targets++
		}
	}
	w := float32(1 / (1 - keep) / float64(max(targets, 1)))
	clear(weight)
	for i := encode.StateLen; i < len(seq); i++ {
		mask := int16(MaskState)
		if i >= c.StateSlots() {
			mask = MaskAction
		}
		switch {
		case seq[i] == encode.NoToken:
			in[i] = mask
		case rng.Float64() < keep:
			in[i] = seq[i]
		default:
			in[i], weight[i] = mask, w
		}
	}
}

// inputShapes are the graph's inputs: InputShapes' six, and with
// LegalMask the legal-move mask.
func inputShapes(c Arch, batch int) [][]int {
	shapes := c.InputShapes(batch)
	if c.LegalMask {
		shapes = append(shapes, c.LegalMaskShape(batch))
	}
	return shapes
}

// graphRun builds the graph for a batch of examples and runs it forward
// (and backward), returning the per-row losses, the action logits and the
// learnables. With boards (one a row, s_i) each row's legal-move mask is
// written from its board.
func graphRun(t *testing.T, c Arch, params []dcw.Tensor, ins, seqs [][]int16, ws [][]float32, boards ...*board.Board) ([]float32, []float32, []*G.Node) {
	t.Helper()
	return graphRunWith(t, c, fusedLayerNorm, params, ins, seqs, ws, boards...)
}

// graphRunWith is graphRun with the layer norms' normalisation normalise.
func graphRunWith(t *testing.T, c Arch, normalise normaliser, params []dcw.Tensor, ins, seqs [][]int16, ws [][]float32, boards ...*board.Board) ([]float32, []float32, []*G.Node) {
	t.Helper()
	run := transformertest.Run(t, inputShapes(c, len(ins)), len(ins), func(r int, rows [][]float32) {
		c.Encode(ins[r], seqs[r], ws[r], rows)
		if boards != nil {
			_, legal, err := LegalActions(boards[r])
			if err != nil {
				t.Fatal(err)
			}
			c.EncodeLegal(legal, rows)
		}
	}, func(g *G.ExprGraph, inputs []*G.Node) (*G.Node, *G.Node, []*G.Node, error) {
		out, err := c.build(g, inputs, params, normalise)
		return out.PerRow, out.ActionLogits, out.Learnables, err
	})
	return run.PerRow, run.ActionLogits, run.Learnables
}

func TestGorgoniaMatchesPureGo(t *testing.T) {
	squares := tinyArch()
	squares.ActionSquares = true
	for name, c := range map[string]Arch{"move rows": tinyArch(), "action squares": squares} {
		t.Run(name, func(t *testing.T) { checkGorgoniaMatchesPureGo(t, c) })
	}
}

// checkGorgoniaMatchesPureGo compares the graph's losses and action
// log-probabilities with the pure-Go forward pass on corrupted sequences
// early in the schedule, where most moves are visible.
func checkGorgoniaMatchesPureGo(t *testing.T, c Arch) {
	params := c.InitParams(3)
	net, err := NewNet(c, &dcw.File{Family: "test", Tensors: params})
	if err != nil {
		t.Fatal(err)
	}
	seq := transformertest.Sequence(t, c.Horizon, transformertest.Opening...)
	rng := rand.New(rand.NewPCG(5, 6))
	var ins, seqs [][]int16
	var ws [][]float32
	for r := 0; r < 3; r++ {
		in, w := make([]int16, len(seq)), make([]float32, len(seq))
		maskAt(c, rng, 1-float64(2+r)/4, seq, in, w)
		ins, seqs, ws = append(ins, in), append(seqs, seq), append(ws, w)
	}
	per, logits, _ := graphRun(t, c, params, ins, seqs, ws)
	logp := append([]float32(nil), logits...)
	for r := 0; r < len(logp); r += encode.ActionVocab {
		logSoftmax(logp[r : r+encode.ActionVocab])
	}

	var slots []int
	var outs [][]float32
	for s := 0; s < c.SeqLen(); s++ {
		slots = append(slots, s)
		size := encode.StateVocab
		if s >= c.StateSlots() {
			size = encode.ActionVocab
		}
		outs = append(outs, make([]float32, size))
	}
	worst := 0.0
	for r := range ins {
		net.Forward(ins[r], slots, outs)
		var loss float64
		for s, lp := range outs {
			if s >= c.StateSlots() {
				k := s - c.StateSlots()
				for j, v := range lp {
					worst = math.Max(worst, math.Abs(float64(v-logp[(r*c.Horizon+k)*encode.ActionVocab+j])))
				}
			}
			if ws[r][s] != 0 {
				loss -= float64(ws[r][s]) * float64(lp[seq[s]])
			}
		}
		if math.Abs(loss-float64(per[r])) > 1e-4*math.Max(1, math.Abs(loss)) {
			t.Errorf("row %d: graph loss %v, pure Go %v", r, per[r], loss)
		}
	}
	if worst > 1e-4 {
		t.Errorf("action log-probabilities differ by %g", worst)
	}
}

// TestGradientMatchesFiniteDifferences checks the hand-built layer norm,
// attention, gather and cross-entropy differentiate correctly, and the
// move-part table through the incidence product.
func TestGradientMatchesFiniteDifferences(t *testing.T) {
	c := tinyArch()
	c.Layers = 1
	c.ActionSquares = true
	params := c.InitParams(4)
	seq := transformertest.Sequence(t, c.Horizon, transformertest.Opening...)
	in, w := make([]int16, len(seq)), make([]float32, len(seq))
	maskAt(c, rand.New(rand.NewPCG(7, 8)), 0.25, seq, in, w)
	// Show a_{i+1}, so that a visible move's part rows have a gradient.
	next := encode.ActionSlot(c.Horizon, 1)
	in[next], w[next] = seq[next], 0
	args := [][]int16{in}
	_, _, learnables := graphRun(t, c, params, args, [][]int16{seq}, [][]float32{w})
	grads := transformertest.Grads(t, learnables)
	lossAt := func() float64 {
		per, _, _ := graphRun(t, c, params, args, [][]int16{seq}, [][]float32{w})
		return float64(per[0])
	}
	rng := rand.New(rand.NewPCG(9, 10))
	for _, name := range []string{"block0.ln1.g", "block0.head1.q", "block0.head0.k", "block0.head0.v", "block0.attn.w", "block0.mlp.in.w", "ln.b", "head.state.w", "head.action.b", "embed.pos", "embed.state", "embed.action.parts"} {
		var p *dcw.Tensor
		for i := range params {
			if params[i].Name == name {
				p = &params[i]
			}
		}
		for n := 0; n < 3; n++ {
			j := rng.IntN(len(p.Data))
			switch name {
			case "head.action.b":
				j = int(seq[c.StateSlots()]) // a_i's own bias has a clear gradient
			case "embed.action.parts":
				// The origin or destination row of the move shown.
				rows := encode.ActionPartRows(int(in[next]))
				j = rows[rng.IntN(2)]*c.Dim + rng.IntN(c.Dim)
			}
			numeric := transformertest.CentralDifference(&p.Data[j], lossAt)
			analytic := float64(grads[name][j])
			if math.Abs(numeric-analytic) > 2e-3+0.05*math.Abs(numeric) {
				t.Errorf("%s[%d]: gradient %g, finite difference %g", name, j, analytic, numeric)
			}
		}
	}
}

// TestGraphRepeatsExactlyOnAnyCores: the same batch gives the same loss
// and gradient bits in every graph built for it, on one core or two (the
// attention op splits its sequences and heads over the cores), which a
// seed's reproducibility and resumed training rely on.
func TestGraphRepeatsExactlyOnAnyCores(t *testing.T) {
	c := tinyArch()
	params := c.InitParams(5)
	seq := transformertest.Sequence(t, c.Horizon, transformertest.Opening...)
	rng := rand.New(rand.NewPCG(12, 13))
	var ins, seqs [][]int16
	var ws [][]float32
	for r := 0; r < 5; r++ {
		in, w := make([]int16, len(seq)), make([]float32, len(seq))
		maskAt(c, rng, 1-float64(1+r%4)/4, seq, in, w)
		ins, seqs, ws = append(ins, in), append(seqs, seq), append(ws, w)
	}
	run := func(procs int) [][]float32 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		per, logits, learnables := graphRun(t, c, params, ins, seqs, ws)
		out := [][]float32{per, logits}
		for _, l := range learnables {
			g, err := l.Grad()
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, append([]float32(nil), g.Data().([]float32)...))
		}
		return out
	}
	want := run(1)
	for _, procs := range []int{1, 2} {
		for i, got := range run(procs) {
			if !slices.Equal(got, want[i]) {
				t.Fatalf("%d cores: result %d (losses, logits, then gradients) differs from the first run", procs, i)
			}
		}
	}
}

// TestActionSquaresKeepTheOtherWeights: the part table comes last, so a
// run with it starts every other tensor where a run without it does, and
// the two differ in that table alone.
func TestActionSquaresKeepTheOtherWeights(t *testing.T) {
	squares := tinyArch()
	squares.ActionSquares = true
	plain, with := tinyArch().InitParams(5), squares.InitParams(5)
	if len(with) != len(plain)+1 || with[len(plain)].Name != "embed.action.parts" {
		t.Fatalf("%d tensors with action squares, %d without; last %s", len(with), len(plain), with[len(with)-1].Name)
	}
	for i := range plain {
		if plain[i].Name != with[i].Name || !slices.Equal(plain[i].Data, with[i].Data) {
			t.Fatalf("tensor %s starts differently with action squares", plain[i].Name)
		}
	}
}
