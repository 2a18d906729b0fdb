package flow

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"

	"github.com/dchess/dchess/dataset/encode"
	"github.com/dchess/dchess/internal/chess/board"
	"github.com/dchess/dchess/models/transformer"
)

// predictor gives p_{1|t} as log-probabilities per slot: a Net, or a
// test's oracle.
type predictor interface {
	Forward(in []int16, slots []int, out [][]float32)
}

// Decoder plays from a Net (search.MoveProposer). From x_0 (s_i, then the
// source) it integrates the CTMC over [0, 1] in Steps Euler steps of
// size h = 1/Steps: at t = k·h each token still at its source value jumps
// with probability min(1, h·κ'_t/(1-κ_t)) to a draw from p_{1|t}, and at
// the last step every such token jumps (κ_1 = 1). a_i is drawn among the
// legal moves of s_i only; with legal_mask its p_{1|t} is renormalised
// over them at every step (transformer.RestrictLogProbs), as in training.
// The deterministic sampler jumps the expected
// number of tokens, the most confident first, to their most probable
// words. Like Net it is not safe for concurrent use.
type Decoder struct {
	net *Net
	// Steps is the number of Euler steps (default the config's).
	Steps int
	// Sampler is SamplerDeterministic (default) or SamplerStochastic.
	Sampler string
	// Seed seeds the stochastic sampler; a decode's draws depend only on
	// Seed, the position and the number of steps.
	Seed uint64
	// ActionFirst spends the first of two or more steps on a_i alone, from
	// s_i and the source, so the future is imagined given the move.
	// Otherwise a_i is one token among the others, and the board tokens a
	// move would change, each more probably unchanged than any one move is
	// probable, settle before it (docs/flow.md).
	ActionFirst bool
	// Legal and Decoded count the decoded a_i whose unrestricted
	// prediction (argmax over the whole vocabulary) was a legal move.
	Legal, Decoded int

	predict predictor
	// trace, when set (tests), sees x_t after each step k (0: x_0).
	trace    func(k int, tokens []int16)
	in, src  []int16
	slots    []int       // every slot after s_i
	out      [][]float32 // one row per slot of slots
	decided  []bool
	jumping  []int
	jumpOuts [][]float32
}

// NewDecoder samples from net with the trained number of steps,
// deterministically: as a player it plays its most probable move, where the
// stochastic sampler plays a draw, Stockfish's move far less often on the
// sequence study's test positions
// (docs/results/2026-11-26-sequence-families-20000-steps.md).
func NewDecoder(net *Net) *Decoder { return newDecoder(net, net) }

// newDecoder samples from p with net's config (tests: an oracle's p).
func newDecoder(net *Net, p predictor) *Decoder {
	c := net.cfg
	L := c.SeqLen()
	d := &Decoder{net: net, Steps: c.Steps, Sampler: SamplerDeterministic, predict: p,
		in: make([]int16, L), src: make([]int16, L), decided: make([]bool, L)}
	for i := encode.StateLen; i < L; i++ {
		d.slots = append(d.slots, i)
		d.out = append(d.out, make([]float32, slotSize(c, i)))
	}
	return d
}

var _ transformer.SequenceDecoder = (*Decoder)(nil)

// SetSampler chooses the sampler by name: stochastic or deterministic.
func (d *Decoder) SetSampler(name string) error {
	if name != SamplerStochastic && name != SamplerDeterministic {
		return fmt.Errorf("flow: sampler %q must be stochastic or deterministic", name)
	}
	d.Sampler = name
	return nil
}

// Net returns the decoder's network.
func (d *Decoder) Net() *Net { return d.net }

// Horizon is the length of the sequences the decoder imagines.
func (d *Decoder) Horizon() int { return d.net.cfg.Horizon }

// LegalMask says whether a_i is over the legal moves alone (legal_mask).
func (d *Decoder) LegalMask() bool { return d.net.cfg.LegalMask }

// forward predicts the listed slots, a_i's distribution restricted to the
// legal moves with legal_mask.
func (d *Decoder) forward(slots []int, outs [][]float32, legal []int) {
	d.predict.Forward(d.in, slots, outs)
	if !d.net.cfg.LegalMask {
		return
	}
	a0 := d.net.cfg.StateSlots()
	for i, s := range slots {
		if s == a0 {
			transformer.RestrictLogProbs(outs[i], legal)
		}
	}
}

// Propose ranks the legal moves of b (search.MoveProposer): the sampled
// a_i first (score 0), the others by their log-probability, renormalised
// over the legal moves, at the step a_i jumped. It stops the decode there
// (with ActionFirst after one network pass): the later steps only imagine
// the future.
func (d *Decoder) Propose(b *board.Board) ([]board.Move, []float64, error) {
	r, err := d.decode(b, d.Steps, true)
	if err != nil {
		return nil, nil, err
	}
	scores := append([]float64(nil), r.Scores...)
	for i, m := range r.Moves {
		if m == r.Best {
			scores[i] = 0
		}
	}
	return r.Moves, scores, nil
}

// Decode samples a sequence from b in d.Steps steps.
func (d *Decoder) Decode(b *board.Board) (*transformer.Decoded, error) {
	return d.DecodeSteps(b, d.Steps)
}

// DecodeSteps samples a sequence from b in the given number of Euler
// steps (at least one), so one decoder serves a sweep over the count.
func (d *Decoder) DecodeSteps(b *board.Board, steps int) (*transformer.Decoded, error) {
	return d.decode(b, steps, false)
}

// decode samples from b in the given number of steps; actionOnly stops
// once a_i has jumped, leaving Tokens partly at their source.
func (d *Decoder) decode(b *board.Board, steps int, actionOnly bool) (*transformer.Decoded, error) {
	if err := d.SetSampler(d.Sampler); err != nil {
		return nil, err
	}
	c := d.net.cfg
	moves, legal, err := transformer.LegalActions(b)
	if err != nil {
		return nil, err
	}
	steps = max(steps, 1)
	encode.StateTokens(b, d.in)
	c.SourceTokens(d.in, d.src)
	copy(d.in, d.src)
	clear(d.decided)
	res := &transformer.Decoded{Moves: moves, Scores: make([]float64, len(moves))}
	rng := rand.New(rand.NewPCG(d.Seed, b.Key()^uint64(steps)*0x9e3779b97f4a7c15))
	if d.trace != nil {
		d.trace(0, d.in)
	}
	h := 1 / float64(steps)
	for k := 0; k < steps; k++ {
		p := 1.0
		if k < steps-1 {
			p = min(1, h*c.JumpRate(float64(k)*h))
		}
		switch {
		case d.ActionFirst && k == 0 && steps > 1:
			d.actionStep(rng, res, legal)
		case d.Sampler == SamplerDeterministic:
			d.deterministicStep(p, res, legal)
		default:
			d.stochasticStep(rng, p, res, legal)
		}
		if d.trace != nil {
			d.trace(k+1, d.in)
		}
		if a0 := c.StateSlots(); actionOnly && d.in[a0] != d.src[a0] {
			break
		}
	}
	res.Tokens = append([]int16(nil), d.in...)
	return res, nil
}

// stochasticStep jumps each token at its source value with probability p
// to a draw from p_{1|t}; a token off its source has reached its target
// and stays.
func (d *Decoder) stochasticStep(rng *rand.Rand, p float64, res *transformer.Decoded, legal []int) {
	d.jumping, d.jumpOuts = d.jumping[:0], d.jumpOuts[:0]
	for i, s := range d.slots {
		if d.in[s] == d.src[s] && rng.Float64() < p {
			d.jumping, d.jumpOuts = append(d.jumping, s), append(d.jumpOuts, d.out[i])
		}
	}
	if len(d.jumping) == 0 {
		return
	}
	d.forward(d.jumping, d.jumpOuts, legal)
	a0 := d.net.cfg.StateSlots()
	for i, s := range d.jumping {
		lp := d.jumpOuts[i]
		if s != a0 {
			d.in[s] = int16(drawLog(rng, lp))
			continue
		}
		d.jumpAction(rng, res, lp, legal)
	}
}

// actionStep decides a_i alone in one network pass (ActionFirst): drawn
// from p_{1|0} by the stochastic sampler, its most probable legal move by
// the deterministic one.
func (d *Decoder) actionStep(rng *rand.Rand, res *transformer.Decoded, legal []int) {
	a0 := d.net.cfg.StateSlots()
	out := d.out[a0-encode.StateLen]
	d.forward([]int{a0}, [][]float32{out}, legal)
	if d.Sampler == SamplerDeterministic {
		d.decideAction(res, out, legal)
		d.in[a0] = int16(legal[slices.Index(res.Moves, res.Best)])
	} else {
		d.jumpAction(rng, res, out, legal)
	}
	d.decided[a0] = true
}

// jumpAction draws a_i among the legal moves from lp.
func (d *Decoder) jumpAction(rng *rand.Rand, res *transformer.Decoded, lp []float32, legal []int) {
	d.decideAction(res, lp, legal)
	probs := make([]float32, len(res.Scores))
	for j, sc := range res.Scores {
		probs[j] = float32(sc)
	}
	j := drawLog(rng, probs)
	res.Best = res.Moves[j]
	d.in[d.net.cfg.StateSlots()] = int16(legal[j])
}

// deterministicStep jumps round(p·n) of the n undecided tokens, the most
// confident first, each to its most probable word (a_i to its most
// probable legal move).
func (d *Decoder) deterministicStep(p float64, res *transformer.Decoded, legal []int) {
	d.jumping, d.jumpOuts = d.jumping[:0], d.jumpOuts[:0]
	for i, s := range d.slots {
		if !d.decided[s] {
			d.jumping, d.jumpOuts = append(d.jumping, s), append(d.jumpOuts, d.out[i])
		}
	}
	n := len(d.jumping) - int(math.Round(float64(len(d.jumping))*(1-p)))
	if n <= 0 {
		return
	}
	d.forward(d.jumping, d.jumpOuts, legal)
	a0 := d.net.cfg.StateSlots()
	type candidate struct {
		at   int // index into jumping
		word int
		conf float32
	}
	cands := make([]candidate, 0, len(d.jumping))
	for i, s := range d.jumping {
		lp := d.jumpOuts[i]
		words := legal
		if s != a0 {
			words = nil
		}
		best := argmax(lp, words)
		cands = append(cands, candidate{i, best, lp[best]})
	}
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].conf > cands[j].conf })
	for _, cd := range cands[:n] {
		s := d.jumping[cd.at]
		d.decided[s] = true
		d.in[s] = int16(cd.word)
		if s == a0 {
			d.decideAction(res, d.jumpOuts[cd.at], legal)
		}
	}
}

// decideAction restricts a_i to the legal moves (res.Best their most
// probable) and counts whether its unrestricted argmax was legal.
func (d *Decoder) decideAction(res *transformer.Decoded, lp []float32, legal []int) {
	transformer.RestrictAction(res, lp, legal)
	d.Decoded++
	if res.UnrestrictedLegal {
		d.Legal++
	}
}

// argmax is the index of lp's largest value, among words when not nil.
func argmax(lp []float32, words []int) int {
	if words == nil {
		best := 0
		for j, v := range lp {
			if v > lp[best] {
				best = j
			}
		}
		return best
	}
	best := words[0]
	for _, w := range words {
		if lp[w] > lp[best] {
			best = w
		}
	}
	return best
}

// drawLog draws an index from log-probabilities lp.
func drawLog(rng *rand.Rand, lp []float32) int {
	u := rng.Float64()
	var cum float64
	last := 0
	for j, v := range lp {
		p := math.Exp(float64(v))
		if p == 0 {
			continue
		}
		cum += p
		last = j
		if u < cum {
			return j
		}
	}
	return last // rounding left u above the total
}
