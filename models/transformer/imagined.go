package transformer

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
	// Wrong counts the wrong tokens of s_{i+1} by where they are.
	Wrong WrongTokens
	// HasNextAction is set when the true line has a_{i+1};
	// NextActionCorrect when the decoded a_{i+1} is that move.
	HasNextAction     bool
	NextActionCorrect bool
}

// WrongTokens sorts an imagined s_{i+1}'s wrong tokens by where they are:
// the true a_i's origin and destination squares (the piece that leaves,
// the piece that arrives), the other squares (castling's rook, the pawn
// taken en passant, or a square the move does not touch), and the side to
// move, castling and en-passant tokens.
type WrongTokens struct {
	Origin              int `json:"origin"`
	Destination         int `json:"destination"`
	OtherSquares        int `json:"other_squares"`
	SideCastlingPassant int `json:"side_castling_en_passant"`
}

// Add adds o's counts to w.
func (w *WrongTokens) Add(o WrongTokens) {
	w.Origin += o.Origin
	w.Destination += o.Destination
	w.OtherSquares += o.OtherSquares
	w.SideCastlingPassant += o.SideCastlingPassant
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
		from, to := actionSquares(truth[encode.ActionSlot(h, 0)])
		for j, tok := range next {
			switch {
			case decoded[encode.StateLen+j] == tok:
				m.StateCorrect++
			case j == from:
				m.Wrong.Origin++
			case j == to:
				m.Wrong.Destination++
			case j < 64:
				m.Wrong.OtherSquares++
			default:
				m.Wrong.SideCastlingPassant++
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

// actionSquares returns the origin and destination squares (0 = a1 .. 63 =
// h8, the state tokens' order) of an action-vocabulary word.
func actionSquares(action int16) (from, to int) {
	uci := encode.ActionUCI(int(action))
	square := func(s string) int { return int(s[0]-'a') + 8*int(s[1]-'1') }
	return square(uci[0:2]), square(uci[2:4])
}
