package transformer

import (
	"errors"
	"math"

	"github.com/dchess/dchess/dataset/encode"
	"github.com/dchess/dchess/internal/chess/board"
)

// SequenceDecoder is what players and evaluation read from a decoder of
// action-state-action sequences, models/diffusion's or models/flow's: the
// ranked legal moves, a decode in a given number of steps (a_i restricted
// to the legal moves, the unrestricted one reported, the imagined future
// in Tokens for CompareImagined) and the horizon.
type SequenceDecoder interface {
	Propose(b *board.Board) ([]board.Move, []float64, error)
	DecodeSteps(b *board.Board, steps int) (*Decoded, error)
	Horizon() int
	// LegalMask says whether the model was trained with legal_mask: its
	// a_i is over the legal moves alone, so the unrestricted a_i is legal
	// by construction.
	LegalMask() bool
}

// Decoded is a decoded sequence.
type Decoded struct {
	// Tokens holds the whole sequence (states first, then actions, see
	// encode.SequenceLen).
	Tokens []int16
	// Moves are the legal moves of s_i and Scores their log-probabilities
	// (renormalised over the legal moves) when a_i was decided.
	Moves  []board.Move
	Scores []float64
	// Best is the chosen a_i.
	Best board.Move
	// UnrestrictedAction is the action-vocabulary index the model would
	// pick for a_i without the legal-move restriction (the argmax over all
	// ActionVocab moves at the step a_i was decided); UnrestrictedLegal
	// says whether that move is legal in s_i. With legal_mask the model's
	// a_i puts no mass on illegal moves: it is always legal.
	UnrestrictedAction int
	UnrestrictedLegal  bool
}

// LegalActions returns b's legal moves and their indices in the action
// vocabulary, in the same order; it fails when b has no legal move.
func LegalActions(b *board.Board) ([]board.Move, []int, error) {
	moves := b.LegalMoves()
	if len(moves) == 0 {
		return nil, nil, errors.New("no legal move")
	}
	legal := make([]int, len(moves))
	for i, m := range moves {
		idx, ok := encode.ActionIndex(m)
		if !ok {
			return nil, nil, errors.New("a legal move is outside the action vocabulary")
		}
		legal[i] = idx
	}
	return moves, legal, nil
}

// RestrictLogProbs renormalises lp, the log-probabilities of a_i's slot
// over the whole action vocabulary, over the moves in legal and gives
// every other move -Inf: a_i's distribution for a model trained with
// legal_mask, whose training mask (IllegalLogit) gives illegal moves
// exactly 0 probability in float32.
func RestrictLogProbs(lp []float32, legal []int) {
	m := float32(math.Inf(-1))
	for _, idx := range legal {
		m = max(m, lp[idx])
	}
	var sum float64
	kept := make([]float32, len(legal))
	for j, idx := range legal {
		kept[j] = lp[idx]
		sum += math.Exp(float64(lp[idx] - m))
	}
	logSum := m + float32(math.Log(sum))
	for i := range lp {
		lp[i] = float32(math.Inf(-1))
	}
	for j, idx := range legal {
		lp[idx] = kept[j] - logSum
	}
}

// RestrictAction decides a_i from lp, the log-probabilities of its slot
// over the whole action vocabulary: it records the unrestricted argmax
// and whether it is legal, the legal moves' log-probabilities
// renormalised over them (res.Scores, parallel to res.Moves, which legal
// indexes) and the most probable legal move as res.Best.
func RestrictAction(res *Decoded, lp []float32, legal []int) {
	best := 0
	for j, v := range lp {
		if v > lp[best] {
			best = j
		}
	}
	res.UnrestrictedAction = best
	res.UnrestrictedLegal = false
	var sum float64
	for _, idx := range legal {
		if idx == best {
			res.UnrestrictedLegal = true
		}
		sum += math.Exp(float64(lp[idx]))
	}
	logSum := math.Log(sum)
	if len(res.Scores) != len(legal) {
		res.Scores = make([]float64, len(legal))
	}
	top := 0
	for j, idx := range legal {
		res.Scores[j] = float64(lp[idx]) - logSum
		if res.Scores[j] > res.Scores[top] {
			top = j
		}
	}
	res.Best = res.Moves[top]
}
