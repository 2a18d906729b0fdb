package match

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"

	"github.com/dchess/dchess/internal/chess/board"
	"github.com/dchess/dchess/internal/chess/epd"
	"github.com/dchess/dchess/internal/chess/pgn"
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

// LoadOpenings reads an opening book: an EPD file (one position a line;
// operations after the FEN fields are ignored) or a PGN file (the position
// after each game's moves). The format is chosen by content: a file whose
// first text is a "[" tag is PGN. It is what --openings of `dchess
// match`, `tournament` and `selfplay` reads.
func LoadOpenings(path string) ([]Opening, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("openings: %w", err)
	}
	var list []Opening
	if bytes.HasPrefix(bytes.TrimLeft(data, " \t\r\n\ufeff"), []byte("[")) || strings.EqualFold(filepath.Ext(path), ".pgn") {
		list, err = pgnOpenings(data, filepath.Base(path))
	} else {
		list, err = epdOpenings(data, filepath.Base(path))
	}
	if err != nil {
		return nil, err
	}
	if len(list) == 0 {
		return nil, fmt.Errorf("openings: %s holds no positions", path)
	}
	return list, nil
}

func epdOpenings(data []byte, name string) ([]Opening, error) {
	var list []Opening
	err := epd.Scan(bytes.NewReader(data), func(lineNo int, text string) error {
		l, err := epd.Parse(text)
		if err != nil {
			return fmt.Errorf("openings: %s:%d: %v", name, lineNo, err)
		}
		if st := l.Board.Status(); st != board.NotOver {
			return fmt.Errorf("openings: %s:%d: the game is already over (%v)", name, lineNo, st)
		}
		list = append(list, Opening{FEN: l.Board.FEN(), Source: fmt.Sprintf("%s:%d", name, lineNo)})
		return nil
	})
	return list, err
}

// pgnOpenings plays each game's main line from its start (or FEN tag) and
// keeps the final position, unless the game is over there.
func pgnOpenings(data []byte, name string) ([]Opening, error) {
	var list []Opening
	r := pgn.NewReader(bytes.NewReader(data))
	for {
		g, err := r.Next()
		if errors.Is(err, io.EOF) {
			return list, nil
		}
		if g == nil { // malformed; stray text after a sound game does not change its position
			return nil, fmt.Errorf("openings: %s: %v", name, err)
		}
		b := board.New()
		if fen := g.StartFEN(); fen != "" {
			if b, err = board.FromFEN(fen); err != nil {
				return nil, fmt.Errorf("openings: %s game %d: %v", name, g.Number, err)
			}
		}
		for _, san := range g.Moves {
			m, err := b.ParseSAN(san)
			if err != nil {
				return nil, fmt.Errorf("openings: %s game %d: %v", name, g.Number, err)
			}
			b.Make(m)
		}
		if b.Status() == board.NotOver {
			list = append(list, Opening{FEN: b.FEN(), Source: fmt.Sprintf("%s game %d", name, g.Number)})
		}
	}
}
