// Package puzzle reads the rows of a Lichess puzzle CSV
// (https://database.lichess.org/#puzzles). It is the one puzzle reader:
// `dchess eval --puzzles` (pipeline) plays them and `dchess ingest
// --format puzzles` (dataset/ingest) stores them as positions.
package puzzle

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/dchess/dchess/internal/chess/board"
)

// Puzzle is one Lichess puzzle. FEN is the position before the
// opponent's move Moves[0], which sets the puzzle; then the solver's and
// the opponent's moves alternate (the solver plays Moves[1], Moves[3]...).
type Puzzle struct {
	FEN    string
	Moves  []string
	Rating int
	// ID, Themes (space-separated) and GameURL are "" when the file has
	// no such column.
	ID      string
	Themes  string
	GameURL string
}

// Columns says which column of a row holds each field; -1 for an
// optional column the file does not have.
type Columns struct {
	FEN, Moves, Rating  int
	ID, Themes, GameURL int
}

// ErrHeader is returned for a header without the FEN, Moves and Rating
// columns.
var ErrHeader = errors.New("the header needs FEN, Moves and Rating columns (Lichess CSV)")

// ReadHeader finds the columns by their names in the header row:
// FEN, Moves and Rating are needed, PuzzleId, Themes and GameUrl are
// read when present, the others (Popularity, OpeningTags...) ignored.
func ReadHeader(header []string) (Columns, error) {
	c := Columns{FEN: -1, Moves: -1, Rating: -1, ID: -1, Themes: -1, GameURL: -1}
	for i, name := range header {
		switch strings.TrimSpace(strings.TrimPrefix(name, "\ufeff")) {
		case "FEN":
			c.FEN = i
		case "Moves":
			c.Moves = i
		case "Rating":
			c.Rating = i
		case "PuzzleId":
			c.ID = i
		case "Themes":
			c.Themes = i
		case "GameUrl":
			c.GameURL = i
		}
	}
	if c.FEN < 0 || c.Moves < 0 || c.Rating < 0 {
		return c, ErrHeader
	}
	return c, nil
}

// Parse reads one row. A row that is not a puzzle (too few columns, no
// rating, fewer than two moves, a bad FEN or a move that is not legal)
// is an error saying which.
func (c Columns) Parse(rec []string) (Puzzle, error) {
	if len(rec) <= max(c.FEN, c.Moves, c.Rating) {
		return Puzzle{}, errors.New("too few columns")
	}
	rating, err := strconv.Atoi(strings.TrimSpace(rec[c.Rating]))
	moves := strings.Fields(rec[c.Moves])
	if err != nil || len(moves) < 2 {
		return Puzzle{}, errors.New("want a rating and at least two moves")
	}
	b, err := board.FromFEN(rec[c.FEN])
	if err != nil {
		return Puzzle{}, err
	}
	for i, uci := range moves {
		m, err := b.ParseUCI(uci)
		if err != nil {
			return Puzzle{}, fmt.Errorf("move %d of the line, %s, is not legal in the position it reaches", i+1, uci)
		}
		b.Make(m)
	}
	p := Puzzle{FEN: rec[c.FEN], Moves: moves, Rating: rating}
	optional := func(col int) string {
		if col < 0 || col >= len(rec) {
			return ""
		}
		return strings.TrimSpace(rec[col])
	}
	p.ID, p.Themes, p.GameURL = optional(c.ID), optional(c.Themes), optional(c.GameURL)
	return p, nil
}
