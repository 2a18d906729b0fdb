package selfplay

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/dchess/dchess/internal/chess/board"
	"github.com/dchess/dchess/internal/chess/epd"
	"github.com/dchess/dchess/internal/chess/pgn"
	"github.com/dchess/dchess/search/match"
)

// LoadOpenings reads an opening book: an EPD file (one position a line;
// operations after the FEN fields are ignored) or a PGN file (the position
// after each game's moves). The format is chosen by content: a file whose
// first text is a "[" tag is PGN. It lives here, not in search/match,
// because PGN is read by dataset/pgn and search does not import dataset.
func LoadOpenings(path string) ([]match.Opening, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("openings: %w", err)
	}
	var list []match.Opening
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

func epdOpenings(data []byte, name string) ([]match.Opening, error) {
	var list []match.Opening
	err := epd.Scan(bytes.NewReader(data), func(lineNo int, text string) error {
		l, err := epd.Parse(text)
		if err != nil {
			return fmt.Errorf("openings: %s:%d: %v", name, lineNo, err)
		}
		if st := l.Board.Status(); st != board.NotOver {
			return fmt.Errorf("openings: %s:%d: the game is already over (%v)", name, lineNo, st)
		}
		list = append(list, match.Opening{FEN: l.Board.FEN(), Source: fmt.Sprintf("%s:%d", name, lineNo)})
		return nil
	})
	return list, err
}

// pgnOpenings plays each game's main line from its start (or FEN tag) and
// keeps the final position, unless the game is over there.
func pgnOpenings(data []byte, name string) ([]match.Opening, error) {
	var list []match.Opening
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
			list = append(list, match.Opening{FEN: b.FEN(), Source: fmt.Sprintf("%s game %d", name, g.Number)})
		}
	}
}
