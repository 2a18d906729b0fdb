package nn

import (
	"math"
	"testing"

	"github.com/dchess/dchess/dataset"
	"github.com/dchess/dchess/internal/chess/board"
)

func TestCentipawnsInvertsWinProbability(t *testing.T) {
	for _, cp := range []int32{-1500, -300, -1, 0, 42, 250, 1999} {
		p := float64(dataset.WinProbability(cp, 0))
		logit := float32(math.Log(p / (1 - p)))
		if got := Centipawns(logit); got < int(cp)-1 || got > int(cp)+1 {
			t.Errorf("%d cp → p %.6f → %d cp", cp, p, got)
		}
	}
	inf := float32(math.Inf(1))
	nan := float32(math.NaN())
	if Centipawns(100) != MaxCentipawns || Centipawns(-inf) != -MaxCentipawns || Centipawns(nan) != 0 {
		t.Fatal("saturated or NaN logits are not clamped")
	}
}

func TestInputScaling(t *testing.T) {
	b := board.New()
	in := Input{Encoding: EncodingCodes, Min: -7, Max: 7}
	dst := make([]float32, in.Size())
	in.Encode(b, dst)
	// a1 holds White's rook (code 2), e1 the king (7), a3 is empty, a8 Black's rook.
	if dst[0] != 2.0/7 || dst[4] != 1 || dst[16] != 0 || dst[56] != -2.0/7 {
		t.Fatalf("scaled codes: a1 %v e1 %v a3 %v a8 %v", dst[0], dst[4], dst[16], dst[56])
	}
	planes := Input{Encoding: EncodingPlanes, Min: -1, Max: 1}
	p := make([]float32, planes.Size())
	planes.Encode(b, p)
	if p[0] != 0 || p[8] != 1 { // own pawns plane: a1 empty, a2 pawn
		t.Fatalf("unscaled planes changed: %v %v", p[0], p[8])
	}
	if err := (Input{Encoding: "fen", Min: 0, Max: 1}).Validate(); err == nil {
		t.Fatal("unknown encoding accepted")
	}
}
