package flow

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	G "gorgonia.org/gorgonia"

	"github.com/dchess/dchess/dataset/encode"
	"github.com/dchess/dchess/internal/chess/board"
	"github.com/dchess/dchess/models/dcw"
	"github.com/dchess/dchess/models/transformer"
	"github.com/dchess/dchess/models/transformer/transformertest"
)

func tinyConfig() Config {
	c := DefaultConfig()
	c.Horizon, c.Dim, c.Heads, c.Layers, c.MLP, c.Steps = 2, 16, 2, 1, 24, 4
	return c
}

func close(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(1, math.Abs(b)) }

func TestSchedulersByHand(t *testing.T) {
	c := DefaultConfig()
	if c.Kappa(0) != 0 || c.Kappa(1) != 1 || !close(c.Kappa(0.25), 0.25) || !close(c.JumpRate(0.25), 1/0.75) {
		t.Errorf("linear: κ_0 %v κ_1 %v κ_.25 %v rate %v", c.Kappa(0), c.Kappa(1), c.Kappa(0.25), c.JumpRate(0.25))
	}
	c.Scheduler, c.Exponent = SchedulerPolynomial, 2
	// κ_.5 = .25, κ'_.5 = 2·.5 = 1: rate 1/(1 - .25)
	if c.Kappa(0) != 0 || c.Kappa(1) != 1 || !close(c.Kappa(0.5), 0.25) || !close(c.KappaDot(0.5), 1) || !close(c.JumpRate(0.5), 4.0/3) {
		t.Errorf("t²: κ_.5 %v κ'_.5 %v rate %v", c.Kappa(0.5), c.KappaDot(0.5), c.JumpRate(0.5))
	}
	if !math.IsInf(c.JumpRate(1), 1) {
		t.Errorf("rate at t = 1: %v", c.JumpRate(1))
	}
}

func TestSampleTimeStaysInsideTheInterval(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	lo, hi := 1.0, 0.0
	for range 10000 {
		x := SampleTime(rng)
		lo, hi = min(lo, x), max(hi, x)
	}
	if lo < TimeEpsilon || hi >= 1-TimeEpsilon || lo > 0.01 || hi < 0.99 {
		t.Errorf("times in [%v, %v]", lo, hi)
	}
}

func TestValidateNamesTheBadSetting(t *testing.T) {
	for _, tc := range []struct {
		edit func(*Config)
		want string
	}{
		{func(c *Config) { c.Scheduler = "cosine" }, "scheduler"},
		{func(c *Config) { c.Exponent = 0 }, "exponent"},
		{func(c *Config) { c.Exponent = 0.5 }, "exponent"},
		{func(c *Config) { c.Source = "uniform" }, "source"},
		{func(c *Config) { c.Objective = "mse" }, "objective"},
		{func(c *Config) { c.Steps = 0 }, "steps"},
		{func(c *Config) { c.Target = "book" }, "target"},
		{func(c *Config) { c.Dim = 7 }, "dim"},
		{func(c *Config) { c.Family = "diffusion" }, "family"},
	} {
		c := DefaultConfig()
		tc.edit(&c)
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want one naming %s", c, err, tc.want)
		}
	}
	if err := DefaultConfig().Validate(); err != nil {
		t.Error(err)
	}
}

func TestBoardSourceStartsEachFutureStateAsSI(t *testing.T) {
	c := DefaultConfig()
	c.Source = SourceBoard
	seq := transformertest.Sequence(t, c.Horizon, transformertest.Opening...)
	src := make([]int16, len(seq))
	c.SourceTokens(seq, src)
	in, w, stay := make([]int16, len(seq)), make([]float32, len(seq)), make([]float32, len(seq))
	c.CorruptAt(rand.New(rand.NewPCG(1, 2)), 0, seq, in, w, stay) // κ_0 = 0: x_t = x_0
	for _, x := range [][]int16{src, in} {
		for k := 0; k < c.Horizon; k++ {
			if !slices.Equal(x[k*encode.StateLen:(k+1)*encode.StateLen], seq[:encode.StateLen]) {
				t.Fatalf("future state %d does not start as s_i", k)
			}
			if x[encode.ActionSlot(c.Horizon, k)] != MaskAction {
				t.Fatalf("action %d does not start masked", k)
			}
		}
	}
	// After 1. e4 only e2, e4 and the side to move differ from s_i (no
	// en-passant file: no black pawn can take on e3): the path has 3 of
	// s_{i+1}'s 70 tokens to move.
	changed := 0
	for j := 0; j < encode.StateLen; j++ {
		if seq[encode.StateLen+j] != src[encode.StateLen+j] {
			changed++
		}
	}
	if changed != 3 {
		t.Errorf("%d tokens of s_{i+1} differ from s_i, want 3", changed)
	}
	// The decoder starts from the same x_0.
	dec := newDecoder(&Net{cfg: c}, oracle{c, seq})
	dec.trace = func(k int, tokens []int16) {
		if k == 0 && !slices.Equal(tokens, src) {
			t.Errorf("the sampler does not start from the board source")
		}
	}
	if _, err := dec.Decode(board.New()); err != nil {
		t.Fatal(err)
	}
}

func TestPathLeavesOneMinusKappaAtTheSource(t *testing.T) {
	for _, tc := range []struct {
		scheduler, source string
		t, kappa          float64
	}{
		{SchedulerLinear, SourceMask, 0.3, 0.3},
		{SchedulerLinear, SourceBoard, 0.8, 0.8},
		{SchedulerPolynomial, SourceMask, 0.6, 0.36},
		{SchedulerPolynomial, SourceBoard, 0.3, 0.09},
	} {
		c := DefaultConfig()
		c.Scheduler, c.Exponent, c.Source = tc.scheduler, 2, tc.source
		seq := transformertest.Sequence(t, c.Horizon, transformertest.Opening...)
		src := make([]int16, len(seq))
		c.SourceTokens(seq, src)
		in, w, stay := make([]int16, len(seq)), make([]float32, len(seq)), make([]float32, len(seq))
		rng := rand.New(rand.NewPCG(3, 4))
		// Tokens whose target is their source sit at both: count the others.
		atSource, movable := 0, 0
		for range 1000 {
			c.CorruptAt(rng, tc.t, seq, in, w, stay)
			if !slices.Equal(in[:encode.StateLen], seq[:encode.StateLen]) {
				t.Fatal("s_i changed")
			}
			for i := encode.StateLen; i < len(seq); i++ {
				if seq[i] == src[i] {
					continue
				}
				movable++
				switch in[i] {
				case src[i]:
					atSource++
				case seq[i]:
				default:
					t.Fatalf("slot %d is neither its source nor its target", i)
				}
			}
		}
		// At least 16·1000 draws: the standard error is below 0.004.
		if share := float64(atSource) / float64(movable); math.Abs(share-(1-tc.kappa)) > 0.015 {
			t.Errorf("%s %s t=%v: %.4f of %d tokens at their source, want 1 - κ_t = %v", tc.scheduler, tc.source, tc.t, share, movable, 1-tc.kappa)
		}
	}
}

func TestLossWeightsByHand(t *testing.T) {
	const N = 3*70 + 4 // target tokens of an h = 4 sequence
	type want struct{ weight, stay float32 }
	for _, tc := range []struct {
		name                         string
		scheduler, source, objective string
		t                            float64
		// expected (weight, stay) for: a token at a [MASK] source, a
		// state token at a board source equal to its target, one at a
		// board source that differs from it
		mask, unchanged, changed want
	}{
		// κ_t = t at t = .75: λ = 1/(1 - .75) = 4.
		{"mask elbo", SchedulerLinear, SourceMask, ObjectiveELBO, 0.75, want{4.0 / N, 0}, want{}, want{}},
		{"mask ce", SchedulerLinear, SourceMask, ObjectiveCrossEntropy, 0.75, want{1.0 / N, 0}, want{}, want{}},
		// κ_t = t² at t = .5: λ = 2·.5/(1 - .25) = 4/3.
		{"mask elbo t²", SchedulerPolynomial, SourceMask, ObjectiveELBO, 0.5, want{4.0 / 3 / N, 0}, want{}, want{}},
		{"board elbo", SchedulerLinear, SourceBoard, ObjectiveELBO, 0.75, want{4.0 / N, 0}, want{0, 4.0 / N}, want{4.0 / N, 4.0 / N}},
		{"board ce", SchedulerLinear, SourceBoard, ObjectiveCrossEntropy, 0.75, want{1.0 / N, 0}, want{1.0 / N, 0}, want{1.0 / N, 0}},
	} {
		c := DefaultConfig()
		c.Scheduler, c.Exponent, c.Source, c.Objective = tc.scheduler, 2, tc.source, tc.objective
		seq := transformertest.Sequence(t, c.Horizon, transformertest.Opening...)
		src := make([]int16, len(seq))
		c.SourceTokens(seq, src)
		in, w, stay := make([]int16, len(seq)), make([]float32, len(seq)), make([]float32, len(seq))
		rng := rand.New(rand.NewPCG(5, 6))
		seen := map[string]bool{}
		for range 50 {
			c.CorruptAt(rng, tc.t, seq, in, w, stay)
			for i := range seq {
				var kind string
				var exp want
				switch {
				case i < encode.StateLen || in[i] != src[i]:
					kind = "scored nowhere" // s_i, or jumped off its source
				case src[i] == MaskState || src[i] == MaskAction:
					kind, exp = "mask", tc.mask
				case src[i] == seq[i]:
					kind, exp = "unchanged", tc.unchanged
				default:
					kind, exp = "changed", tc.changed
				}
				seen[kind] = true
				if math.Abs(float64(w[i]-exp.weight)) > 1e-7 || math.Abs(float64(stay[i]-exp.stay)) > 1e-7 {
					t.Fatalf("%s: %s slot %d: weight %v stay %v, want %v %v", tc.name, kind, i, w[i], stay[i], exp.weight, exp.stay)
				}
			}
		}
		if !seen["mask"] || !seen["scored nowhere"] || (tc.source == SourceBoard && (!seen["unchanged"] || !seen["changed"])) {
			t.Errorf("%s: slot kinds seen %v", tc.name, seen)
		}
	}
}

// oracle predicts x_1 with certainty.
type oracle struct {
	c  Config
	x1 []int16
}

func (o oracle) Forward(_ []int16, slots []int, out [][]float32) {
	for i, s := range slots {
		for j := range out[i] {
			out[i][j] = -1e30
		}
		out[i][o.x1[s]] = 0
	}
}

func TestOracleSamplerRecoversTheLineInOneAndTwentySteps(t *testing.T) {
	for _, source := range []string{SourceMask, SourceBoard} {
		for _, sampler := range []string{SamplerStochastic, SamplerDeterministic} {
			for _, scheduler := range []string{SchedulerLinear, SchedulerPolynomial} {
				c := DefaultConfig()
				c.Source, c.Scheduler = source, scheduler
				seq := transformertest.Sequence(t, c.Horizon, transformertest.Opening...)
				src := make([]int16, len(seq))
				c.SourceTokens(seq, src)
				dec := newDecoder(&Net{cfg: c}, oracle{c, seq})
				dec.Sampler = sampler
				// Halfway through 20 steps the path is under way: some of
				// the tokens that differ from their source have moved, not all.
				dec.trace = func(k int, tokens []int16) {
					if k != 10 {
						return
					}
					moved, movable := 0, 0
					for i := range tokens {
						if src[i] != seq[i] {
							movable++
							if tokens[i] == seq[i] {
								moved++
							}
						}
					}
					if share := float64(moved) / float64(movable); share < 0.05 || share > 0.95 {
						t.Errorf("%s %s %s: %.2f of the tokens at their target at t = 1/2", source, sampler, scheduler, share)
					}
				}
				for _, steps := range []int{1, 20} {
					r, err := dec.DecodeSteps(board.New(), steps)
					if err != nil {
						t.Fatal(err)
					}
					if !slices.Equal(r.Tokens, seq) || board.UCI(r.Best) != "e2e4" || !r.UnrestrictedLegal {
						t.Errorf("%s %s %s, %d steps: did not recover x_1 (best %s)", source, sampler, scheduler, steps, board.UCI(r.Best))
					}
				}
			}
		}
	}
}

// TestSamplerFollowsKappa: driven by the oracle in 20 steps, the share of
// tokens still at their [MASK] source after step k is 1 - κ_{k/20} (the
// Euler steps of κ_t = t leave exactly 1 - t in expectation).
func TestSamplerFollowsKappa(t *testing.T) {
	c := DefaultConfig()
	seq := transformertest.Sequence(t, c.Horizon, transformertest.Opening...)
	const steps, runs = 20, 40
	masked := make([]int, steps+1)
	for _, sampler := range []string{SamplerStochastic, SamplerDeterministic} {
		clear(masked)
		dec := newDecoder(&Net{cfg: c}, oracle{c, seq})
		dec.Sampler = sampler
		dec.trace = func(k int, tokens []int16) {
			for _, tok := range tokens[encode.StateLen:] {
				if tok == MaskState || tok == MaskAction {
					masked[k]++
				}
			}
		}
		for run := range runs {
			dec.Seed = uint64(run)
			if _, err := dec.DecodeSteps(board.New(), steps); err != nil {
				t.Fatal(err)
			}
		}
		total := float64(runs * (len(seq) - encode.StateLen))
		for k, n := range masked {
			want := 1 - c.Kappa(float64(k)/steps)
			// 8,560 tokens: the standard error is below 0.006.
			if share := float64(n) / total; math.Abs(share-want) > 0.025 {
				t.Errorf("%s: after step %d %.3f of the tokens are masked, want 1 - κ = %.3f", sampler, k, share, want)
			}
		}
	}
}

// graphRun builds the graph for a batch, runs it forward and backward
// and returns the per-row losses and the learnables.
func graphRun(t *testing.T, m *Model, params []dcw.Tensor, ins, seqs [][]int16, ws, stays [][]float32) ([]float32, []*G.Node) {
	t.Helper()
	run := transformertest.Run(t, m.InputShapes(len(ins)), len(ins), func(r int, rows [][]float32) {
		m.Encode(ins[r], seqs[r], ws[r], stays[r], rows)
	}, func(g *G.ExprGraph, inputs []*G.Node) (*G.Node, *G.Node, []*G.Node, error) {
		out, err := m.Build(g, inputs, params)
		return out.PerRow, out.ActionLogits, out.Learnables, err
	})
	return run.PerRow, run.Learnables
}

// fill writes a batch of examples into the graph's inputs.
func fill(m *Model, inputs []*G.Node, ins, seqs [][]int16, ws, stays [][]float32) {
	transformertest.Fill(inputs, len(ins), func(r int, rows [][]float32) {
		m.Encode(ins[r], seqs[r], ws[r], stays[r], rows)
	})
}

// netLogProbs runs m's plain-Go network with params on the tokens in and
// returns the slots after s_i and their log-probabilities, from which the
// tests work out the graph's loss by hand.
func netLogProbs(t *testing.T, m *Model, params []dcw.Tensor, in []int16) ([]int, [][]float32) {
	t.Helper()
	arch, _ := m.Arch()
	net, err := NewNet(&dcw.File{Family: Family, Arch: arch, Tensors: params})
	if err != nil {
		t.Fatal(err)
	}
	var slots []int
	var outs [][]float32
	for s := encode.StateLen; s < len(in); s++ {
		slots, outs = append(slots, s), append(outs, make([]float32, slotSize(m.Config(), s)))
	}
	net.Forward(in, slots, outs)
	return slots, outs
}

// TestLossAndGradientsByHand: on the board source with the ELBO at
// t = .75 (λ = 4), the graph's loss is Σ 4/N·(-log p(x_1)) over the
// tokens at a source that differs from their target plus Σ 4/N·(1 - p(x_t))
// over the state tokens at their source, from the plain-Go network, and
// its gradients match finite differences.
func TestLossAndGradientsByHand(t *testing.T) {
	c := tinyConfig()
	c.Source = SourceBoard
	m, err := NewModel(c)
	if err != nil {
		t.Fatal(err)
	}
	params := m.InitParams(4)
	seq := transformertest.Sequence(t, c.Horizon, transformertest.Opening...)
	n := len(seq) - encode.StateLen
	in, w, stay := make([]int16, len(seq)), make([]float32, len(seq)), make([]float32, len(seq))
	c.CorruptAt(rand.New(rand.NewPCG(7, 8)), 0.75, seq, in, w, stay)
	src := make([]int16, len(seq))
	c.SourceTokens(seq, src)

	slots, outs := netLogProbs(t, m, params, in)
	var want float64
	terms := 0
	for i, s := range slots {
		if in[s] != src[s] {
			continue
		}
		lambda := 1 / (1 - 0.75)
		if in[s] != seq[s] {
			want += lambda / float64(n) * -float64(outs[i][seq[s]])
			terms++
		}
		if s < c.StateSlots() {
			want += lambda / float64(n) * (1 - math.Exp(float64(outs[i][in[s]])))
			terms++
		}
	}
	args := [][]int16{in}
	per, learnables := graphRun(t, m, params, args, [][]int16{seq}, [][]float32{w}, [][]float32{stay})
	if terms < 10 || math.Abs(float64(per[0])-want) > 1e-4*math.Max(1, want) {
		t.Fatalf("graph loss %v, by hand %v (%d terms)", per[0], want, terms)
	}

	grads := transformertest.Grads(t, learnables)
	lossAt := func() float64 {
		per, _ := graphRun(t, m, params, args, [][]int16{seq}, [][]float32{w}, [][]float32{stay})
		return float64(per[0])
	}
	rng := rand.New(rand.NewPCG(9, 10))
	for _, name := range []string{"block0.ln1.g", "block0.head0.q", "block0.mlp.in.w", "ln.b", "head.state.w", "head.state.b", "head.action.b", "embed.state"} {
		var p *dcw.Tensor
		for i := range params {
			if params[i].Name == name {
				p = &params[i]
			}
		}
		for range 3 {
			j := rng.IntN(len(p.Data))
			if name == "head.action.b" {
				j = int(seq[c.StateSlots()])
			}
			numeric := transformertest.CentralDifference(&p.Data[j], lossAt)
			if analytic := float64(grads[name][j]); math.Abs(numeric-analytic) > 2e-3+0.05*math.Abs(numeric) {
				t.Errorf("%s[%d]: gradient %g, finite difference %g", name, j, analytic, numeric)
			}
		}
	}
}

// TestTinyRunLowersTheLoss trains the tiny model with Adam on the ELBO of
// two lines (both sources) and checks that the cross-entropy of x_1 from
// x_0 (every future token at its source) falls.
func TestTinyRunLowersTheLoss(t *testing.T) {
	for _, source := range []string{SourceMask, SourceBoard} {
		c := tinyConfig()
		c.Source = source
		m, _ := NewModel(c)
		params := m.InitParams(1)
		lines := [][]int16{transformertest.Sequence(t, c.Horizon, "e2e4", "e7e5"), transformertest.Sequence(t, c.Horizon, "d2d4", "d7d5")}
		const batch = 8
		g := G.NewGraph()
		nodes := transformertest.Inputs(g, m.InputShapes(batch))
		out, err := m.Build(g, nodes, params)
		if err != nil {
			t.Fatal(err)
		}
		loss, _ := G.Mean(out.PerRow)
		if _, err := G.Grad(loss, out.Learnables...); err != nil {
			t.Fatal(err)
		}
		vm := G.NewTapeMachine(g, G.BindDualValues(out.Learnables...))
		solver := G.NewAdamSolver(G.WithLearnRate(0.01))
		rng := rand.New(rand.NewPCG(11, 12))
		// The evaluation batch: x_0 with weight 1/N on every target.
		var eIns, eSeqs, tIns, tSeqs [][]int16
		var eWs, eStays, tWs, tStays [][]float32
		for r := range batch {
			seq := lines[r%2]
			in, w := make([]int16, len(seq)), make([]float32, len(seq))
			c.SourceTokens(seq, in)
			for i := encode.StateLen; i < len(seq); i++ {
				w[i] = 1 / float32(len(seq)-encode.StateLen)
			}
			eIns, eSeqs, eWs, eStays = append(eIns, in), append(eSeqs, seq), append(eWs, w), append(eStays, make([]float32, len(seq)))
			tIns, tSeqs = append(tIns, make([]int16, len(seq))), append(tSeqs, seq)
			tWs, tStays = append(tWs, make([]float32, len(seq))), append(tStays, make([]float32, len(seq)))
		}
		evaluate := func() float64 {
			fill(m, nodes, eIns, eSeqs, eWs, eStays)
			if err := vm.RunAll(); err != nil {
				t.Fatal(err)
			}
			defer vm.Reset()
			return float64(loss.Value().Data().(float32))
		}
		before := evaluate()
		for range 60 {
			for r := range batch {
				c.Corrupt(rng, tSeqs[r], tIns[r], tWs[r], tStays[r])
			}
			fill(m, nodes, tIns, tSeqs, tWs, tStays)
			if err := vm.RunAll(); err != nil {
				t.Fatal(err)
			}
			if err := solver.Step(G.NodesToValueGrads(out.Learnables)); err != nil {
				t.Fatal(err)
			}
			vm.Reset()
		}
		after := evaluate()
		vm.Close()
		if !(after < 0.7*before) {
			t.Errorf("%s: cross-entropy from the source %.3f before training, %.3f after", source, before, after)
		}
	}
}

// biasWeights is a net that predicts by its output biases alone.
func biasWeights(t *testing.T, c Config, actionBias map[string]float32, stateWord int) *Net {
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

func TestDecodeRestrictsAiAndReportsTheUnrestrictedMove(t *testing.T) {
	for _, source := range []string{SourceMask, SourceBoard} {
		for _, sampler := range []string{SamplerStochastic, SamplerDeterministic} {
			c := tinyConfig()
			c.Source = source
			c.LegalMask = false // the unrestricted a_i is the model's own (see TestLegalMaskDecodesLegalAi)
			// a1a8 is the favourite but illegal from the start, where e2e4
			// is the only likely legal move; with a lone rook on a1 it is legal.
			dec := NewDecoder(biasWeights(t, c, map[string]float32{"a1a8": 60, "e2e4": 40}, encode.TokenEmpty))
			if err := dec.SetSampler(sampler); err != nil {
				t.Fatal(err)
			}
			for _, tc := range []struct {
				fen, best string
				legal     bool
			}{{board.StartFEN, "e2e4", false}, {"7k/8/8/8/8/8/8/R5K1 w - - 0 1", "a1a8", true}} {
				for _, steps := range []int{1, 3} {
					b, _ := board.FromFEN(tc.fen)
					r, err := dec.DecodeSteps(b, steps)
					if err != nil {
						t.Fatal(err)
					}
					if got := board.UCI(r.Best); got != tc.best || encode.ActionUCI(r.UnrestrictedAction) != "a1a8" || r.UnrestrictedLegal != tc.legal {
						t.Errorf("%s %s %s: best %s, unrestricted %s legal %v", source, sampler, tc.fen, got, encode.ActionUCI(r.UnrestrictedAction), r.UnrestrictedLegal)
					}
					if got := encode.ActionUCI(int(r.Tokens[c.StateSlots()])); got != tc.best {
						t.Errorf("a_i token %s, best %s", got, tc.best)
					}
					for i, tok := range r.Tokens {
						if tok == MaskState && i < c.StateSlots() || tok == MaskAction && i >= c.StateSlots() {
							t.Fatalf("%s %s: slot %d still masked", source, sampler, i)
						}
					}
					// The imagined future is scored as the diffusion model's.
					truth := make([]int16, len(r.Tokens))
					encode.Sequence(b, []string{tc.best}, c.Horizon, truth)
					if _, err := transformer.CompareImagined(dec.Horizon(), r.Tokens, truth); err != nil {
						t.Fatal(err)
					}
					moves, scores, err := dec.Propose(b)
					if err != nil {
						t.Fatal(err)
					}
					top := 0
					for i := range scores {
						if scores[i] > scores[top] {
							top = i
						}
					}
					if board.UCI(moves[top]) != tc.best {
						t.Errorf("Propose ranks %s first, want %s", board.UCI(moves[top]), tc.best)
					}
				}
			}
			if dec.Decoded != 8 || dec.Legal != 4 {
				t.Errorf("%s %s: %d legal of %d decoded, want 4 of 8", source, sampler, dec.Legal, dec.Decoded)
			}
		}
	}
}

func TestStochasticSamplerRepeatsForASeedAndVariesAcrossSeeds(t *testing.T) {
	c := tinyConfig()
	m, _ := NewModel(c)
	arch, _ := m.Arch()
	net, err := NewNet(&dcw.File{Family: Family, Arch: arch, Tensors: m.InitParams(2)})
	if err != nil {
		t.Fatal(err)
	}
	dec := NewDecoder(net)
	if dec.Sampler != SamplerDeterministic {
		t.Errorf("a new decoder samples %s, want the deterministic sampler by default", dec.Sampler)
	}
	dec.Sampler = SamplerStochastic
	decode := func(seed uint64) []int16 {
		dec.Seed = seed
		r, err := dec.DecodeSteps(board.New(), 5)
		if err != nil {
			t.Fatal(err)
		}
		return r.Tokens
	}
	if err := dec.SetSampler("greedy"); err == nil {
		t.Error("sampler greedy accepted")
	}
	if !slices.Equal(decode(1), decode(1)) {
		t.Error("the same seed decoded two sequences")
	}
	if slices.Equal(decode(1), decode(2)) {
		t.Error("two seeds decoded the same sequence from random weights")
	}
}
