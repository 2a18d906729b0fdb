package transformer

import (
	"testing"

	"github.com/dchess/dchess/dataset/encode"
	"github.com/dchess/dchess/internal/chess/board"
)

func TestCompareImaginedByHand(t *testing.T) {
	const h = 2
	truthOf := func(line ...string) []int16 {
		seq := make([]int16, encode.SequenceLen(h))
		if _, err := encode.Sequence(board.New(), line, h, seq); err != nil {
			t.Fatal(err)
		}
		return seq
	}
	truth := truthOf("e2e4", "e7e5")
	decoded := append([]int16(nil), truth...)
	// Two wrong tokens of s_{i+1}: e4 left empty and White still to move.
	decoded[encode.StateLen+28] = encode.TokenEmpty
	decoded[encode.StateLen+64] = encode.TokenWhiteToMove
	m, err := CompareImagined(h, decoded, truth)
	if err != nil {
		t.Fatal(err)
	}
	if !m.HasState || m.StateCorrect != encode.StateLen-2 || m.StateExact() || !m.HasNextAction || !m.NextActionCorrect {
		t.Errorf("two wrong state tokens: %+v", m)
	}
	if want := (WrongTokens{Destination: 1, SideCastlingPassant: 1}); m.Wrong != want {
		t.Errorf("two wrong state tokens sorted as %+v, want %+v", m.Wrong, want)
	}
	// The pawn left on e2, a knight imagined on f3: one on the origin, one
	// elsewhere.
	decoded = append([]int16(nil), truth...)
	decoded[encode.StateLen+12] = truth[12]
	decoded[encode.StateLen+21] = truth[6]
	m, _ = CompareImagined(h, decoded, truth)
	if want := (WrongTokens{Origin: 1, OtherSquares: 1}); m.Wrong != want || m.StateCorrect != encode.StateLen-2 {
		t.Errorf("origin and another square wrong: %+v, want %+v", m.Wrong, want)
	}
	e7e6, _ := encode.ActionIndexUCI("e7e6")
	decoded = append([]int16(nil), truth...)
	decoded[encode.ActionSlot(h, 1)] = int16(e7e6)
	if m, _ = CompareImagined(h, decoded, truth); !m.StateExact() || m.NextActionCorrect {
		t.Errorf("wrong a_{i+1}: %+v", m)
	}
	// A one-move line knows s_{i+1} but not a_{i+1}; no line knows neither.
	if m, _ = CompareImagined(h, decoded, truthOf("e2e4")); !m.StateExact() || m.HasNextAction {
		t.Errorf("one-move line: %+v", m)
	}
	if m, _ = CompareImagined(h, decoded, truthOf()); m.HasState || m.HasNextAction || m.StateCorrect != 0 {
		t.Errorf("empty line: %+v", m)
	}
	if _, err := CompareImagined(1, decoded[:encode.SequenceLen(1)], truth[:encode.SequenceLen(1)]); err == nil {
		t.Error("horizon 1 compared")
	}
}
