// Package encode turns positions into the fixed-size float32 inputs the
// model families read. Every encoder writes into a caller-owned slice so
// training batches and search leaves allocate nothing.
//
// Evaluators score from the side to move, so the planes and the signed
// piece codes are written from the side to move's view: when Black is to
// move the board is mirrored vertically and the colours swapped, and "own"
// pieces are always the first six planes (or positive codes). DeepChess's
// 773 bits compare positions for White, so they stay absolute.
package encode

import (
	"math/bits"

	"github.com/dchess/dchess/internal/chess/board"
)

// Sizes of each encoding, in float32s.
const (
	// PlaneCount planes of 8×8: own P N B R Q K, their P N B R Q K, a
	// constant side-to-move plane (1 when White is to move), four
	// constant castling planes (own king side, own queen side, theirs
	// likewise) and one plane marking the en-passant target square.
	PlaneCount = 18
	PlanesSize = PlaneCount * 64
	// BitsSize is DeepChess's input: 2 colours × 6 pieces × 64 squares,
	// the side to move (1 = White) and the four castling rights (KQkq).
	BitsSize = 773
	// CodesSize is the thesis's 64 signed piece codes.
	CodesSize = 64
	// MaterialSize is the material balance: own minus opposing pawns,
	// knights, bishops, rooks and queens.
	MaterialSize = 5
)

// pieceCode is the thesis's value per piece type: pawn 1, rook 2, knight 3,
// bishop 4, queen 5, king 7.
var pieceCode = [7]float32{board.Pawn: 1, board.Knight: 3, board.Bishop: 4, board.Rook: 2, board.Queen: 5, board.King: 7}

// relative returns the side to move's and the opponent's pieces, and
// whether squares must be mirrored (Black to move).
func relative(b *board.Board) (own, their *board.Bitboards, mirror bool) {
	us := b.SideToMove()
	return b.Pieces(us), b.Pieces(us.Other()), us == board.Black
}

// square maps a square to the side to move's view: a vertical mirror
// (a1 <-> a8) when Black is to move.
func square(sq int, mirror bool) int {
	if mirror {
		return sq ^ 56
	}
	return sq
}

// Planes writes the PlanesSize plane encoding into dst (len >= PlanesSize),
// plane-major: dst[plane*64 + square].
func Planes(b *board.Board, dst []float32) {
	dst = dst[:PlanesSize]
	clear(dst)
	own, their, mirror := relative(b)
	for i, p := range board.PieceTypes {
		setSquares(dst[i*64:], board.PieceBits(own, p), mirror, 1)
		setSquares(dst[(6+i)*64:], board.PieceBits(their, p), mirror, 1)
	}
	if b.SideToMove() == board.White {
		fill(dst[12*64:13*64], 1)
	}
	rights := b.CastlingRights()
	order := [4]int{0, 1, 2, 3} // K Q k q for White to move
	if mirror {
		order = [4]int{2, 3, 0, 1}
	}
	for plane, bit := range order {
		if rights&(1<<bit) != 0 {
			fill(dst[(13+plane)*64:(14+plane)*64], 1)
		}
	}
	if ep := enPassantSquare(b); ep >= 0 {
		dst[17*64+square(ep, mirror)] = 1
	}
}

// Bits writes DeepChess's 773 bits (absolute, White's view) into dst:
// dst[(colour*6 + piece)*64 + square], then side to move, then KQkq.
func Bits(b *board.Board, dst []float32) {
	dst = dst[:BitsSize]
	clear(dst)
	for c := board.White; c <= board.Black; c++ {
		bb := b.Pieces(c)
		for i, p := range board.PieceTypes {
			setSquares(dst[(int(c)*6+i)*64:], board.PieceBits(bb, p), false, 1)
		}
	}
	if b.SideToMove() == board.White {
		dst[768] = 1
	}
	rights := b.CastlingRights()
	for i := 0; i < 4; i++ {
		if rights&(1<<i) != 0 {
			dst[769+i] = 1
		}
	}
}

// Codes writes the thesis's 64 signed piece codes from the side to move's
// view (own pieces positive) into dst, indexed by square (a1 = 0).
func Codes(b *board.Board, dst []float32) {
	dst = dst[:CodesSize]
	clear(dst)
	own, their, mirror := relative(b)
	for _, p := range board.PieceTypes {
		for bb := board.PieceBits(own, p); bb != 0; bb &= bb - 1 {
			dst[square(bits.TrailingZeros64(bb), mirror)] = pieceCode[p]
		}
		for bb := board.PieceBits(their, p); bb != 0; bb &= bb - 1 {
			dst[square(bits.TrailingZeros64(bb), mirror)] = -pieceCode[p]
		}
	}
}

func setSquares(plane []float32, bb uint64, mirror bool, v float32) {
	for ; bb != 0; bb &= bb - 1 {
		plane[square(bits.TrailingZeros64(bb), mirror)] = v
	}
}

func fill(s []float32, v float32) {
	for i := range s {
		s[i] = v
	}
}

func enPassantSquare(b *board.Board) int {
	sq, ok := b.EnPassant()
	if !ok {
		return -1
	}
	return int(sq)
}

// Material writes the MaterialSize piece-count differences (own minus
// theirs: P N B R Q) into dst, the whole input of the material-only
// baseline that the learned evaluators are measured against.
func Material(b *board.Board, dst []float32) {
	own, their, _ := relative(b)
	for i, p := range board.PieceTypes[:MaterialSize] {
		dst[i] = float32(bits.OnesCount64(board.PieceBits(own, p)) - bits.OnesCount64(board.PieceBits(their, p)))
	}
}
