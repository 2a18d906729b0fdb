package ingest

import (
	"math/bits"
	"strconv"
	"strings"

	"github.com/dchess/dchess/internal/chess/board"
)

// The board's own AppendFEN asks for each of the 64 squares in turn, which
// made it a fifth of ingest's time; ingest writes the same canonical FEN
// from the bitboards and follows castling rights and the en-passant square
// itself, by the board's rules (TestFENMatchesBoard checks every position
// of the Kasparov games against board.FEN).

// castleLoss[sq] is the castling rights lost when a move starts or ends on sq.
var castleLoss = [64]uint8{0: 2, 4: 3, 7: 1, 56: 8, 60: 12, 63: 4}

// startState reads castling and en passant from the game's start position.
func (c *gameConverter) startState(b *board.Board, fromFEN bool) {
	c.castle, c.ep = 15, 0
	if !fromFEN {
		return
	}
	fields := strings.Fields(b.FEN())
	c.castle = 0
	for i, r := range "KQkq" {
		if strings.ContainsRune(fields[2], r) {
			c.castle |= 1 << i
		}
	}
	if f := fields[3]; f != "-" {
		c.ep = (f[1]-'1')*8 + f[0] - 'a'
	}
}

// makeMove plays m and updates the castling rights and the en-passant
// square, which is kept only when a pawn of the side to move can take there.
func (c *gameConverter) makeMove(b *board.Board, m board.Move) {
	from, to := m.From(), m.To()
	piece, _ := b.PieceAt(from)
	b.Make(m)
	c.castle &^= castleLoss[from] | castleLoss[to]
	c.ep = 0
	if piece == board.Pawn && (to-from == 16 || from-to == 16) {
		var beside uint64
		if to%8 > 0 {
			beside |= 1 << (to - 1)
		}
		if to%8 < 7 {
			beside |= 1 << (to + 1)
		}
		if b.Pieces(b.SideToMove()).Pawns&beside != 0 {
			c.ep = (from + to) / 2
		}
	}
}

var pieceLetters = [2][6]byte{{'P', 'N', 'B', 'R', 'Q', 'K'}, {'p', 'n', 'b', 'r', 'q', 'k'}}

// appendFEN writes the position exactly as board.AppendFEN does.
func (c *gameConverter) appendFEN(buf []byte, b *board.Board) []byte {
	var grid [64]byte
	for side, color := range []board.Color{board.White, board.Black} {
		p := b.Pieces(color)
		for k, set := range [6]uint64{p.Pawns, p.Knights, p.Bishops, p.Rooks, p.Queens, p.Kings} {
			for ; set != 0; set &= set - 1 {
				grid[bits.TrailingZeros64(set)] = pieceLetters[side][k]
			}
		}
	}
	// The placement is at most 71 bytes; writing it into a fixed array
	// and appending once avoids a capacity check per square.
	var out [72]byte
	n := 0
	for r := 7; r >= 0; r-- {
		row := (*[8]byte)(grid[r*8 : r*8+8])
		empty := byte(0)
		for _, p := range row {
			if p == 0 {
				empty++
				continue
			}
			if empty > 0 {
				out[n] = '0' + empty
				n++
				empty = 0
			}
			out[n] = p
			n++
		}
		if empty > 0 {
			out[n] = '0' + empty
			n++
		}
		if r > 0 {
			out[n] = '/'
			n++
		}
	}
	buf = append(buf, out[:n]...)
	if b.SideToMove() == board.White {
		buf = append(buf, " w "...)
	} else {
		buf = append(buf, " b "...)
	}
	if c.castle == 0 {
		buf = append(buf, '-')
	}
	for i, l := range []byte("KQkq") {
		if c.castle&(1<<i) != 0 {
			buf = append(buf, l)
		}
	}
	buf = append(buf, ' ')
	if c.ep != 0 {
		buf = append(buf, 'a'+c.ep%8, '1'+c.ep/8)
	} else {
		buf = append(buf, '-')
	}
	buf = append(buf, ' ')
	buf = strconv.AppendInt(buf, int64(b.HalfmoveClock()), 10)
	buf = append(buf, ' ')
	buf = strconv.AppendInt(buf, int64(b.FullmoveNumber()), 10)
	return buf
}
