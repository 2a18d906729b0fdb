package experience

import "github.com/dchess/dchess/internal/chess/board"

// pieceChars are the seed's piece characters: 0 empty, 1-6 White's pawn,
// knight, bishop, rook, queen, king, a-f Black's, indexed [colour][piece].
var pieceChars = [2][7]byte{
	board.White: {board.Pawn: '1', board.Knight: '2', board.Bishop: '3', board.Rook: '4', board.Queen: '5', board.King: '6'},
	board.Black: {board.Pawn: 'a', board.Knight: 'b', board.Bishop: 'c', board.Rook: 'd', board.Queen: 'e', board.King: 'f'},
}

// BoardString is the seed's 64-character board: ranks 8 down to 1, files a
// to h, one character per square. It has no side to move, castling or en
// passant, which is why rows are keyed by position keys and carry these
// strings for reading.
func BoardString(b *board.Board) string {
	var buf [64]byte
	for i := range buf {
		rank, file := 7-i/8, i%8
		p, c := b.PieceAt(uint8(rank*8 + file))
		if p == board.NoPiece {
			buf[i] = '0'
			continue
		}
		buf[i] = pieceChars[c][p]
	}
	return string(buf[:])
}
