package board

import "math/bits"

// Zobrist keys of our own: dragontoothmg draws its hash constants from the
// randomly seeded math/rand at start-up, so its hash differs between runs,
// and with it transposition-table placement and search node counts. These
// come from a fixed-seed generator, so a position has the same key in
// every process.
var (
	zobristPiece  [2][7][64]uint64
	zobristBlack  uint64
	zobristCastle [16]uint64
	zobristEPFile [8]uint64
)

func init() {
	// splitmix64 with a fixed seed.
	state := uint64(0x64636865737321) // "dchess!"
	next := func() uint64 {
		state += 0x9E3779B97F4A7C15
		z := state
		z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
		z = (z ^ (z >> 27)) * 0x94D049BB133111EB
		return z ^ (z >> 31)
	}
	for c := range zobristPiece {
		for p := Pawn; p <= King; p++ {
			for sq := range zobristPiece[c][p] {
				zobristPiece[c][p][sq] = next()
			}
		}
	}
	zobristBlack = next()
	for i := range zobristCastle {
		zobristCastle[i] = next()
	}
	for i := range zobristEPFile {
		zobristEPFile[i] = next()
	}
}

// computeKey hashes the position from scratch: placement, side to move,
// castling rights, and the en-passant file only when a pawn can capture
// there, so positions equal under the repetition rule share a key.
func (b *Board) computeKey() uint64 {
	var h uint64
	for c, bb := range [2]*Bitboards{&b.pos.White, &b.pos.Black} {
		for p, set := range [7]uint64{Pawn: bb.Pawns, Knight: bb.Knights, Bishop: bb.Bishops, Rook: bb.Rooks, Queen: bb.Queens, King: bb.Kings} {
			for x := set; x != 0; x &= x - 1 {
				h ^= zobristPiece[c][p][bits.TrailingZeros64(x)]
			}
		}
	}
	if !b.pos.Wtomove {
		h ^= zobristBlack
	}
	h ^= zobristCastle[b.castle&15]
	if b.epCapturable() {
		h ^= zobristEPFile[b.ep%8]
	}
	return h
}

// KeyAfter is Key after m is made, but for any change to the castling
// rights and the en-passant file (and a castling rook's move): cheap, and
// right for almost every move, which is what fetching the transposition
// table's entry before making the move needs.
func (b *Board) KeyAfter(m Move) uint64 {
	from, to := m.From(), m.To()
	us := b.SideToMove()
	ours, theirs := b.Pieces(us), b.Pieces(us.Other())
	piece := pieceIn(ours, uint64(1)<<from)
	placed := piece
	if promo := Piece(m.Promote()); promo != NoPiece {
		placed = promo
	}
	key := b.Key() ^ zobristBlack ^ zobristPiece[us][piece][from] ^ zobristPiece[us][placed][to]
	if theirs.All&(uint64(1)<<to) != 0 {
		key ^= zobristPiece[us.Other()][pieceIn(theirs, uint64(1)<<to)][to]
	}
	return key
}
