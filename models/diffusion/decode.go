package diffusion

import (
	"math"
	"slices"
	"sort"

	"github.com/dchess/dchess/dataset/encode"
	"github.com/dchess/dchess/internal/chess/board"
	"github.com/dchess/dchess/models/transformer"
)

// Decoder plays from a Net (search.MoveProposer): it starts from s_i with
// every later slot masked and, over T steps, predicts every masked slot,
// keeps the most confident predictions and re-masks the rest, so that
// after step t about N·(1 - α_{t-1}) of the N slots stay masked (α_0 = 1:
// none after the last step). The action a_i is chosen among the legal
// moves of s_i only; with legal_mask its distribution at every step is
// renormalised over them (transformer.RestrictLogProbs), as in training, so that its
// confidence is the legal moves' too. Like Net it is not safe for
// concurrent use.
type Decoder struct {
	net *Net
	// Steps is the number of decoding steps (default the trained T).
	Steps int
	// ActionFirst spends the first of two or more steps on a_i alone, from
	// s_i, so the future is imagined given the move. Otherwise the most
	// confident slots go first, and the squares a move would change, each
	// more probably unchanged than any one move is probable, settle before
	// a_i (docs/flow.md, "When a_i is decided").
	ActionFirst bool
	// Legal and Decoded count the decoded a_i whose unrestricted
	// prediction (argmax over the whole vocabulary) was a legal move.
	Legal, Decoded int
	// predict gives each slot's log-probabilities: the Net, or a test's
	// oracle.
	predict interface {
		Forward(in []int16, slots []int, out [][]float32)
	}
	in    []int16
	slots []int
	out   [][]float32
}

// NewDecoder decodes with net in its trained number of steps.
func NewDecoder(net *Net) *Decoder {
	c := net.cfg
	d := &Decoder{net: net, Steps: c.Steps, predict: net, in: make([]int16, c.SeqLen())}
	for i := encode.StateLen; i < c.SeqLen(); i++ {
		d.slots = append(d.slots, i)
		size := encode.StateVocab
		if i >= c.StateSlots() {
			size = encode.ActionVocab
		}
		d.out = append(d.out, make([]float32, size))
	}
	return d
}

// Net returns the decoder's network.
func (d *Decoder) Net() *Net { return d.net }

// Horizon is the length of the sequences the decoder imagines.
func (d *Decoder) Horizon() int { return d.net.cfg.Horizon }

// LegalMask says whether a_i is over the legal moves alone (legal_mask).
func (d *Decoder) LegalMask() bool { return d.net.cfg.LegalMask }

var _ transformer.SequenceDecoder = (*Decoder)(nil)

// Propose ranks the legal moves of b (search.MoveProposer). It stops the
// decode once a_i is decided (with ActionFirst after one network pass):
// the later steps only imagine the future.
func (d *Decoder) Propose(b *board.Board) ([]board.Move, []float64, error) {
	r, err := d.decode(b, d.Steps, true)
	if err != nil {
		return nil, nil, err
	}
	return r.Moves, r.Scores, nil
}

// Decode runs the reverse process from b in d.Steps steps.
func (d *Decoder) Decode(b *board.Board) (*transformer.Decoded, error) {
	return d.DecodeSteps(b, d.Steps)
}

// DecodeSteps runs the reverse process from b in the given number of
// steps (at least one), so one decoder serves a sweep over T.
func (d *Decoder) DecodeSteps(b *board.Board, steps int) (*transformer.Decoded, error) {
	return d.decode(b, steps, false)
}

// decode runs the reverse process from b in the given number of steps;
// actionOnly stops it once a_i is decided, leaving Tokens partly masked.
func (d *Decoder) decode(b *board.Board, steps int, actionOnly bool) (*transformer.Decoded, error) {
	c := d.net.cfg
	moves, legal, err := transformer.LegalActions(b)
	if err != nil {
		return nil, err
	}
	ss := c.StateSlots()
	a0 := ss // the slot of a_i
	encode.StateTokens(b, d.in)
	masked := make([]bool, len(d.in))
	for i := encode.StateLen; i < len(d.in); i++ {
		masked[i] = true
		d.in[i] = MaskState
		if i >= ss {
			d.in[i] = MaskAction
		}
	}
	res := &transformer.Decoded{Moves: moves, Scores: make([]float64, len(moves))}
	total := len(d.slots)
	steps = max(steps, 1)
	type candidate struct {
		slot int
		word int16
		conf float32
	}
	var cands []candidate
	for step := steps; step >= 1; step-- {
		if actionOnly && !masked[a0] {
			break
		}
		if d.ActionFirst && step == steps && steps > 1 {
			out := d.out[a0-encode.StateLen]
			d.predict.Forward(d.in, []int{a0}, [][]float32{out})
			if c.LegalMask {
				transformer.RestrictLogProbs(out, legal)
			}
			d.decideAction(res, out, legal)
			masked[a0] = false
			d.in[a0] = int16(legal[slices.Index(res.Moves, res.Best)])
			continue
		}
		var slots []int
		var outs [][]float32
		for i, s := range d.slots {
			if masked[s] {
				slots = append(slots, s)
				outs = append(outs, d.out[i])
			}
		}
		if len(slots) == 0 {
			break
		}
		// The schedule runs over the decoder's own number of steps; a step
		// that would unmask nothing (T above the slot count) is skipped.
		alpha := decodeAlpha(c, step-1, steps)
		stayMasked := int(math.Round(float64(total) * (1 - alpha)))
		unmask := len(slots) - stayMasked
		if unmask <= 0 {
			continue
		}
		d.predict.Forward(d.in, slots, outs)
		if c.LegalMask {
			if i := indexOf(slots, a0); i >= 0 {
				transformer.RestrictLogProbs(outs[i], legal)
			}
		}
		cands = cands[:0]
		for i, s := range slots {
			lp := outs[i]
			if s == a0 {
				best := 0
				for j, idx := range legal {
					if lp[idx] > lp[legal[best]] {
						best = j
					}
				}
				cands = append(cands, candidate{s, int16(legal[best]), lp[legal[best]]})
				continue
			}
			best := 0
			for j, v := range lp {
				if v > lp[best] {
					best = j
				}
			}
			cands = append(cands, candidate{s, int16(best), lp[best]})
		}
		sort.SliceStable(cands, func(i, j int) bool { return cands[i].conf > cands[j].conf })
		for _, cd := range cands[:unmask] {
			masked[cd.slot] = false
			d.in[cd.slot] = cd.word
			if cd.slot == a0 {
				d.decideAction(res, outs[indexOf(slots, a0)], legal)
			}
		}
	}
	res.Tokens = append([]int16(nil), d.in...)
	return res, nil
}

// decideAction restricts a_i to the legal moves and counts whether its
// unrestricted argmax was legal.
func (d *Decoder) decideAction(res *transformer.Decoded, lp []float32, legal []int) {
	transformer.RestrictAction(res, lp, legal)
	d.Decoded++
	if res.UnrestrictedLegal {
		d.Legal++
	}
}

func indexOf(s []int, v int) int {
	for i, x := range s {
		if x == v {
			return i
		}
	}
	return -1
}

// decodeAlpha is the config's schedule stretched over steps decoding
// steps (steps may differ from the trained T).
func decodeAlpha(c Config, t, steps int) float64 {
	c.Steps = steps
	return c.Alpha(t)
}
