package diffusion

import (
	"fmt"

	"github.com/dchess/dchess/dataset/encode"
)

// Imagined is how the first imagined step of a decoded sequence, s_{i+1}
// and a_{i+1}, compares with a true line.
type Imagined struct {
	// HasState is set when the true line has a_i, so s_{i+1} is known;
	// StateCorrect of its encode.StateLen tokens (64 squares, side to
	// move, four castling rights, en-passant file) equal the decoded ones.
	HasState     bool
	StateCorrect int
	// HasNextAction is set when the true line has a_{i+1};
	// NextActionCorrect when the decoded a_{i+1} is that move.
	HasNextAction     bool
	NextActionCorrect bool
}

// StateExact says whether the whole imagined s_{i+1} block is right.
func (m Imagined) StateExact() bool { return m.HasState && m.StateCorrect == encode.StateLen }

// CompareImagined scores decoded, the tokens of a sequence of horizon h
// (at least 2, as Decoded.Tokens), against truth, the true line's sequence
// of the same horizon (encode.Sequence). A slot the true line does not
// reach (NoToken) is not scored.
func CompareImagined(h int, decoded, truth []int16) (Imagined, error) {
	var m Imagined
	if h < 2 {
		return m, fmt.Errorf("horizon %d imagines nothing after a_i", h)
	}
	if n := encode.SequenceLen(h); len(decoded) != n || len(truth) != n {
		return m, fmt.Errorf("sequences of %d and %d tokens, want %d for horizon %d", len(decoded), len(truth), n, h)
	}
	// encode.Sequence writes s_{i+1} whole or not at all.
	next := truth[encode.StateLen : 2*encode.StateLen]
	if next[0] != encode.NoToken {
		m.HasState = true
		for j, tok := range next {
			if decoded[encode.StateLen+j] == tok {
				m.StateCorrect++
			}
		}
	}
	slot := encode.ActionSlot(h, 1)
	if truth[slot] != encode.NoToken {
		m.HasNextAction = true
		m.NextActionCorrect = decoded[slot] == truth[slot]
	}
	return m, nil
}
