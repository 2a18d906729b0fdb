package deepchess

import (
	"math/bits"

	"github.com/dchess/dchess/internal/chess/board"
)

// Packed is a position's 773 DeepChess bits in 13 words: words 0-11 are the
// piece bitboards in encode.Bits order (White P N B R Q K, then Black),
// which is exactly bit (colour*6+piece)*64+square of the encoding; word 12
// holds the side to move (bit 0, set for White) and the castling rights
// K Q k q (bits 1-4). It is 104 bytes, small enough to keep for every
// position a pair sampler or a search has seen.
type Packed [13]uint64

// Pack encodes b as encode.Bits does, packed.
func Pack(b *board.Board) Packed {
	var p Packed
	for c := board.White; c <= board.Black; c++ {
		bb := b.Pieces(c)
		for i, piece := range board.PieceTypes {
			p[int(c)*6+i] = board.PieceBits(bb, piece)
		}
	}
	if b.SideToMove() == board.White {
		p[12] = 1
	}
	p[12] |= uint64(b.CastlingRights()&15) << 1
	return p
}

// Unpack writes the 773 bits as float32 0/1 into dst (len >= InputSize).
func (p *Packed) Unpack(dst []float32) {
	dst = dst[:InputSize]
	clear(dst)
	p.eachBit(func(i int) { dst[i] = 1 })
}

// eachBit calls fn with the index of every set bit, in increasing order.
func (p *Packed) eachBit(fn func(i int)) {
	for w, word := range p {
		if w == 12 {
			word &= 31 // side to move and the four castling rights
		}
		for ; word != 0; word &= word - 1 {
			fn(w*64 + bits.TrailingZeros64(word))
		}
	}
}

// Mirror returns the colour-swapped position: the board flipped top to
// bottom, White's pieces made Black's and the reverse, the other side to
// move, and the castling rights exchanged. Its value for White is the
// original's value for Black, so a position is better for White than a
// draw exactly when it is better for White than its mirror.
func (p *Packed) Mirror() Packed {
	var m Packed
	for i := 0; i < 6; i++ {
		m[i] = bits.ReverseBytes64(p[6+i]) // ranks are bytes: reversing them flips the board
		m[6+i] = bits.ReverseBytes64(p[i])
	}
	rights := (p[12] >> 1) & 15
	m[12] = ((rights>>2)|(rights&3)<<2)<<1 | (p[12]&1 ^ 1)
	return m
}
