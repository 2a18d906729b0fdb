package board

import (
	"fmt"

	"github.com/notnil/chess"
)

// FromChess converts a notnil/chess position, the library dchess keeps for
// PGN, SAN and game records, into a search board.
func FromChess(p *chess.Position) (*Board, error) {
	return FromFEN(p.String())
}

// ToChess converts the position into a notnil/chess position.
func (b *Board) ToChess() (*chess.Position, error) {
	opt, err := chess.FEN(b.FEN())
	if err != nil {
		return nil, fmt.Errorf("converting %s to notnil/chess: %w", b.FEN(), err)
	}
	return chess.NewGame(opt).Position(), nil
}
