package player

import (
	"context"
	"math"
	"math/bits"
	"testing"

	"github.com/dchess/dchess/internal/chess/board"
	"github.com/dchess/dchess/search"
)

// pawnComparator prefers, for White, the position with more White pawns
// over Black's.
type pawnComparator struct{}

func (pawnComparator) Compare(a, b *board.Board) float64 {
	edge := func(x *board.Board) int {
		return bits.OnesCount64(x.Pieces(board.White).Pawns) - bits.OnesCount64(x.Pieces(board.Black).Pawns)
	}
	return 1 / (1 + math.Exp(-float64(edge(a)-edge(b))))
}

// A comparison player reports its search's score, so a match runner does
// not read a won game as level: positive for the side a pawn up, negative
// for the other, in the info lines and the move.
func TestComparePlayerHasAScore(t *testing.T) {
	for fen, positive := range map[string]bool{
		"4k3/8/8/8/8/8/P7/4K3 w - - 0 1": true,
		"4k3/8/8/8/8/8/P7/4K3 b - - 0 1": false,
	} {
		p := ComparePlayer("cmp", search.NewCompare(pawnComparator{}, search.CompareOptions{HashMB: 1}), SearchOptions{}, 2)
		var infos []Info
		mi, err := p.Move(context.Background(), Position{StartFEN: fen}, Limits{Depth: 2, OnInfo: func(in Info) { infos = append(infos, in) }})
		if err != nil {
			t.Fatal(err)
		}
		if !mi.HasScore || mi.Mate != 0 || (mi.Score > 0) != positive || mi.Score == 0 {
			t.Errorf("%s: HasScore %v score %d mate %d", fen, mi.HasScore, mi.Score, mi.Mate)
		}
		if len(infos) == 0 || infos[len(infos)-1].Score != mi.Score {
			t.Errorf("%s: info lines %+v do not end on the move's score %d", fen, infos, mi.Score)
		}
	}
}
