package match

import (
	"fmt"
	"math/rand/v2"

	"github.com/dchess/dchess/internal/chess/board"
)

// Opening is the position a game pair starts from.
type Opening struct {
	FEN string
	// Source says where it came from ("book.epd:12", "random 4 plies"), for
	// error messages and the PGN.
	Source string
}

// GenerateOpenings makes n openings of plies random legal moves from the
// start position, each from its own generator seeded by seed and its
// index, so opening i is the same however many are made. A line that ends
// the game is drawn again.
func GenerateOpenings(n, plies int, seed uint64) []Opening {
	list := make([]Opening, n)
	for i := range list {
		rng := rand.New(rand.NewPCG(seed, uint64(i)+1))
		for {
			b := board.New()
			for range plies {
				moves := b.LegalMoves()
				if len(moves) == 0 {
					break
				}
				b.Make(moves[rng.IntN(len(moves))])
			}
			if b.Status() == board.NotOver {
				list[i] = Opening{FEN: b.FEN(), Source: fmt.Sprintf("random %d plies #%d", plies, i+1)}
				break
			}
		}
	}
	return list
}

// PickOpenings returns n openings from list, in file order (wrapping
// around) or shuffled with seed.
func PickOpenings(list []Opening, n int, random bool, seed uint64) []Opening {
	order := make([]int, len(list))
	for i := range order {
		order[i] = i
	}
	out := make([]Opening, n)
	rng := rand.New(rand.NewPCG(seed, 0x6f70656e))
	for i := range out {
		if random && i%len(list) == 0 {
			rng.Shuffle(len(order), func(a, b int) { order[a], order[b] = order[b], order[a] })
		}
		out[i] = list[order[i%len(list)]]
	}
	return out
}
