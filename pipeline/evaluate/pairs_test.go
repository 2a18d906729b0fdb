package evaluate

import (
	"testing"

	"github.com/dchess/dchess/search/player"
)

func TestWhiteView(t *testing.T) {
	for _, c := range []struct {
		fen  string
		mi   player.MoveInfo
		want int
	}{
		{"8/8/8/8/8/8/8/K6k w - - 0 1", player.MoveInfo{Score: 120}, 120},
		{"8/8/8/8/8/8/8/K6k b - - 0 1", player.MoveInfo{Score: 120}, -120},
		{"8/8/8/8/8/8/8/K6k w - - 0 1", player.MoveInfo{Score: 31000, Mate: 2}, mateValue - 2},
		{"8/8/8/8/8/8/8/K6k b - - 0 1", player.MoveInfo{Score: 31000, Mate: 2}, -mateValue + 2},
		{"8/8/8/8/8/8/8/K6k b - - 0 1", player.MoveInfo{Score: -31000, Mate: -3}, mateValue - 3},
	} {
		if got := whiteView(c.fen, c.mi); got != c.want {
			t.Errorf("%s %+v: %d, want %d", c.fen, c.mi, got, c.want)
		}
	}
}
