// Package binpack reads and writes Stockfish's .binpack training data, the
// compressed format of the engine's training-data tools and of
// nnue-pytorch's data loader. A file is a series of chunks, each the four
// bytes "BINP", a little-endian uint32 length and that many bytes of
// chains. A chain starts with a 32-byte stem entry (a packed position, its
// move, score, ply, result and fifty-move counter) and a big-endian uint16
// count of the entries that follow it; each following entry is the
// position after the previous entry's move, stored as a bit-packed move
// (the moving piece's index among the side's pieces, the destination's
// index among the piece's pseudo-legal targets) and a variable-length
// score delta. docs/dataset-format.md describes every field.
package binpack

import (
	"fmt"
	"math/bits"
	"strconv"
	"strings"

	"github.com/dchess/dchess/internal/chess/board"
	"github.com/dylhunn/dragontoothmg"
)

// Entry is one training position: the position, the move stored with it
// (Stockfish's generators store the search's best move), its score and the
// game's result, both from the side to move.
type Entry struct {
	// FEN is the position. Only its halfmove clock is stored: the move
	// number is Ply's (Ply/2 + 1), so Reader gives it that way.
	FEN string
	// Move is in UCI notation, castling as the king's two-square move.
	Move  string
	Score int16
	// Ply is the game ply, at most MaxPly.
	Ply uint16
	// Result is 1 (the side to move won), 0 (draw) or -1 (lost).
	Result int8
}

// MaxPly is the largest ply a stem entry holds (14 bits).
const MaxPly = 1<<14 - 1

// PlyOf is the ply a FEN's move number and side to move give:
// 2*(move number-1), plus one when Black is to move. Stockfish's tools read
// a FEN's ply that way and write it back as the move number.
func PlyOf(b *board.Board) int {
	ply := 2 * (b.FullmoveNumber() - 1)
	if b.SideToMove() == board.Black {
		ply++
	}
	return ply
}

// EnPassant returns the en-passant square as Stockfish's training-data
// tools keep it: only when a pawn of the side to move can capture there
// without uncovering a slider's attack on its own king. dchess's board
// keeps the square whenever a pawn stands beside the pushed one, so the
// two differ for a pinned pawn.
func EnPassant(b *board.Board) (uint8, bool) {
	ep, ok := b.EnPassant()
	if !ok {
		return 0, false
	}
	us := b.SideToMove()
	them := us.Other()
	ours, theirs := b.Pieces(us), b.Pieces(them)
	// Our pawns that attack the square: those a pawn of theirs on it would attack.
	capturers := board.PawnAttacks[them][ep] & ours.Pawns
	if capturers == 0 {
		return 0, false
	}
	king := uint8(bits.TrailingZeros64(ours.Kings))
	diag := theirs.Bishops | theirs.Queens
	orth := theirs.Rooks | theirs.Queens
	if (diag|orth)&queenRays[king] == 0 {
		return ep, true
	}
	pushed := ep - 8
	if us == board.Black {
		pushed = ep + 8
	}
	for c := capturers; c != 0; c &= c - 1 {
		from := uint8(bits.TrailingZeros64(c))
		occ := (b.Occupied()&^(1<<from) | 1<<ep) &^ (1 << pushed)
		if board.BishopAttacks(king, occ)&diag == 0 && board.RookAttacks(king, occ)&orth == 0 {
			return ep, true
		}
	}
	return 0, false
}

// queenRays[sq] is every square a queen on sq reaches on an empty board.
var queenRays [64]uint64

func init() {
	for sq := uint8(0); sq < 64; sq++ {
		queenRays[sq] = board.BishopAttacks(sq, 0) | board.RookAttacks(sq, 0)
	}
}

// FEN writes b's FEN as Stockfish's tools do: the en-passant field per
// EnPassant, the move counters as b has them.
func FEN(b *board.Board) string {
	fen := b.FEN()
	if _, pseudo := b.EnPassant(); !pseudo {
		return fen
	}
	if _, ok := EnPassant(b); ok {
		return fen
	}
	f := strings.Fields(fen)
	f[3] = "-"
	return strings.Join(f, " ")
}

// Nibble codes of a packed position, one per occupied square in square
// order: the piece codes are colour + 2*(type-1) with pawn=1 .. king=6;
// 12 marks the pawn that just made a double push when en passant is
// possible (see EnPassant), 13 and 14 a white and a black rook that still
// has its castling right, 15 the black king when Black is to move.
const (
	nibbleEPPawn    = 12
	nibbleWhiteRook = 13
	nibbleBlackRook = 14
	nibbleBlackKing = 15
)

// pieceNibble is the plain code of a piece: 0 white pawn, 1 black pawn, 2
// white knight ... 11 black king.
func pieceNibble(p board.Piece, c board.Color) uint8 {
	return 2*uint8(p-board.Pawn) + uint8(c)
}

// Castling-right bits of board.CastlingRights.
const (
	rightK = 1
	rightQ = 2
	rightk = 4
	rightq = 8
)

// packPosition writes the 24-byte packed position of b: the occupied
// squares as a big-endian uint64, then a nibble per occupied square in
// square order, the first of each byte in its low bits.
func packPosition(b *board.Board, out []byte) {
	occ := b.Occupied()
	putUint64BE(out, occ)
	nibbles := out[8:24]
	clear(nibbles)
	ep, hasEP := EnPassant(b)
	var epPawn uint8 = 64
	if hasEP {
		// The pushed pawn stands in front of the square, seen from its side.
		epPawn = ep - 8
		if b.SideToMove() == board.Black {
			epPawn = ep + 8
		}
	}
	rights := b.CastlingRights()
	i := 0
	for o := occ; o != 0; o &= o - 1 {
		sq := uint8(bits.TrailingZeros64(o))
		p, c := b.PieceAt(sq)
		n := pieceNibble(p, c)
		switch {
		case sq == epPawn:
			n = nibbleEPPawn
		case p == board.Rook && c == board.White && (sq == 0 && rights&rightQ != 0 || sq == 7 && rights&rightK != 0):
			n = nibbleWhiteRook
		case p == board.Rook && c == board.Black && (sq == 56 && rights&rightq != 0 || sq == 63 && rights&rightk != 0):
			n = nibbleBlackRook
		case p == board.King && c == board.Black && b.SideToMove() == board.Black:
			n = nibbleBlackKing
		}
		nibbles[i/2] |= n << (4 * (i % 2))
		i++
	}
}

// unpackPosition turns a packed position back into a FEN with the given
// halfmove clock and ply.
func unpackPosition(in []byte, rule50 uint16, ply uint16) (string, error) {
	occ := uint64BE(in)
	if bits.OnesCount64(occ) > 32 {
		return "", fmt.Errorf("packed position has %d pieces", bits.OnesCount64(occ))
	}
	var grid [64]byte
	stm := "w"
	castling := ""
	rights := 0
	ep := "-"
	i := 0
	for o := occ; o != 0; o &= o - 1 {
		sq := uint8(bits.TrailingZeros64(o))
		n := in[8+i/2] >> (4 * (i % 2)) & 0xF
		i++
		switch {
		case n < nibbleEPPawn:
			grid[sq] = "PpNnBbRrQqKk"[n]
		case n == nibbleEPPawn && sq/8 == 3:
			grid[sq] = 'P'
			ep = board.SquareName(sq - 8)
		case n == nibbleEPPawn && sq/8 == 4:
			grid[sq] = 'p'
			ep = board.SquareName(sq + 8)
		case n == nibbleWhiteRook && (sq == 0 || sq == 7):
			grid[sq] = 'R'
			rights |= map[uint8]int{0: rightQ, 7: rightK}[sq]
		case n == nibbleBlackRook && (sq == 56 || sq == 63):
			grid[sq] = 'r'
			rights |= map[uint8]int{56: rightq, 63: rightk}[sq]
		case n == nibbleBlackKing:
			grid[sq] = 'k'
			stm = "b"
		default:
			return "", fmt.Errorf("packed position: code %d on %s", n, board.SquareName(sq))
		}
	}
	for bit, c := range "KQkq" {
		if rights&(1<<bit) != 0 {
			castling += string(c)
		}
	}
	if castling == "" {
		castling = "-"
	}
	var sb strings.Builder
	for r := 7; r >= 0; r-- {
		empty := 0
		for f := 0; f < 8; f++ {
			c := grid[r*8+f]
			if c == 0 {
				empty++
				continue
			}
			if empty > 0 {
				sb.WriteByte(byte('0' + empty))
				empty = 0
			}
			sb.WriteByte(c)
		}
		if empty > 0 {
			sb.WriteByte(byte('0' + empty))
		}
		if r > 0 {
			sb.WriteByte('/')
		}
	}
	fmt.Fprintf(&sb, " %s %s %s %d %d", stm, castling, ep, rule50, ply/2+1)
	return sb.String(), nil
}

// Move types of a packed move.
const (
	moveNormal    = 0
	movePromotion = 1
	moveCastle    = 2
	moveEnPassant = 3
)

// packMove is the 16-bit packed move: type<<14 | from<<8 | to<<2 |
// promotion (knight 0 .. queen 3). Castling is stored as the king taking
// its own rook.
func packMove(b *board.Board, m board.Move) uint16 {
	from, to := uint16(m.From()), uint16(m.To())
	typ := uint16(moveNormal)
	promo := uint16(0)
	p, _ := b.PieceAt(m.From())
	switch {
	case m.Promote() != dragontoothmg.Nothing:
		typ = movePromotion
		promo = uint16(board.Piece(m.Promote()) - board.Knight)
	case p == board.King && (to == from+2 || to+2 == from):
		typ = moveCastle
		if to > from {
			to = from + 3
		} else {
			to = from - 4
		}
	case p == board.Pawn && to%8 != from%8 && b.Occupied()&(1<<to) == 0:
		typ = moveEnPassant
	}
	return typ<<14 | from<<8 | to<<2 | promo
}

// unpackMove turns a packed move into UCI.
func unpackMove(v uint16) string {
	from, to := uint8(v>>8&63), uint8(v>>2&63)
	switch v >> 14 {
	case moveCastle:
		if to > from {
			to = from + 2
		} else {
			to = from - 2
		}
	case movePromotion:
		return board.SquareName(from) + board.SquareName(to) + string("nbrq"[v&3])
	}
	return board.SquareName(from) + board.SquareName(to)
}

// signedToUnsigned maps an int16 to the zigzag-like code Stockfish's
// tools store: non-negative n to 2n, negative n to -2n-1.
func signedToUnsigned(a int16) uint16 {
	r := uint16(a)
	if r&0x8000 != 0 {
		r ^= 0x7FFF
	}
	return r<<1 | r>>15
}

func unsignedToSigned(r uint16) int16 {
	r = r<<15 | r>>1
	if r&0x8000 != 0 {
		r ^= 0x7FFF
	}
	return int16(r)
}

const stemSize = 32

// packStem writes the 32-byte stem entry of e played on b.
func packStem(b *board.Board, m board.Move, e *Entry, out []byte) {
	packPosition(b, out[:24])
	putUint16BE(out[24:], packMove(b, m))
	putUint16BE(out[26:], signedToUnsigned(e.Score))
	putUint16BE(out[28:], e.Ply|signedToUnsigned(int16(e.Result))<<14)
	putUint16BE(out[30:], uint16(b.HalfmoveClock()))
}

func putUint16BE(b []byte, v uint16) { b[0], b[1] = byte(v>>8), byte(v) }

func putUint64BE(b []byte, v uint64) {
	for i := 0; i < 8; i++ {
		b[i] = byte(v >> (56 - 8*i))
	}
}

func uint16BE(b []byte) uint16 { return uint16(b[0])<<8 | uint16(b[1]) }

func uint64BE(b []byte) uint64 {
	var v uint64
	for i := 0; i < 8; i++ {
		v = v<<8 | uint64(b[i])
	}
	return v
}

// usedBits is the number of bits that hold an index below n (0 for n <= 1).
func usedBits(n int) int {
	if n <= 1 {
		return 0
	}
	return bits.Len(uint(n - 1))
}

// scoreBlock is the block size of the scores' variable-length code: each
// block holds 4 bits of the value and a fifth saying another block follows.
const scoreBlock = 4

// moveTargets returns the destinations among which a move of the piece on
// from is numbered, in square order, and how many codes they take (four
// per destination for a promotion). A king's castlings come after its
// targets, queen side first, one code per castling right of its side.
func moveTargets(b *board.Board, from uint8) (targets uint64, codes int, castlings int) {
	us := b.SideToMove()
	ours, theirs := b.Pieces(us), b.Pieces(us.Other())
	occ := ours.All | theirs.All
	p, _ := b.PieceAt(from)
	switch p {
	case board.Pawn:
		attackable := theirs.All
		if ep, ok := EnPassant(b); ok {
			attackable |= 1 << ep
		}
		targets = board.PawnAttacks[us][from] & attackable
		fwd, start, last := int(from)+8, uint8(1), uint8(6)
		if us == board.Black {
			fwd, start, last = int(from)-8, 6, 1
		}
		if occ&(1<<fwd) == 0 {
			targets |= 1 << fwd
			fwd2 := 2*fwd - int(from)
			if from/8 == start && occ&(1<<fwd2) == 0 {
				targets |= 1 << fwd2
			}
		}
		codes = bits.OnesCount64(targets)
		if from/8 == last {
			codes *= 4
		}
		return targets, codes, 0
	case board.King:
		targets = board.KingAttacks[from] &^ ours.All
		rights := b.CastlingRights()
		if us == board.White {
			rights &= rightK | rightQ
		} else {
			rights &= rightk | rightq
		}
		castlings = bits.OnesCount8(rights)
		return targets, bits.OnesCount64(targets) + castlings, castlings
	case board.Knight:
		targets = board.KnightAttacks[from]
	case board.Bishop:
		targets = board.BishopAttacks(from, occ)
	case board.Rook:
		targets = board.RookAttacks(from, occ)
	case board.Queen:
		targets = board.BishopAttacks(from, occ) | board.RookAttacks(from, occ)
	}
	targets &^= ours.All
	return targets, bits.OnesCount64(targets), 0
}

// hasLongCastling says whether the side to move may still castle queen side.
func hasLongCastling(b *board.Board) bool {
	if b.SideToMove() == board.White {
		return b.CastlingRights()&rightQ != 0
	}
	return b.CastlingRights()&rightq != 0
}

// nthBit returns the index of the n-th (from 0) set bit of x, or 64.
func nthBit(x uint64, n int) uint8 {
	for ; n > 0 && x != 0; n-- {
		x &= x - 1
	}
	return uint8(bits.TrailingZeros64(x))
}

// parseUCI returns the legal move a UCI string names; it also accepts a
// castling written as the king taking its rook (e1h1), as some data has it.
func parseUCI(b *board.Board, s string) (board.Move, error) {
	m, err := b.ParseUCI(s)
	if err == nil {
		return m, nil
	}
	if len(s) == 4 {
		from, to := s[:2], s[2:]
		if p, _ := b.PieceAt(squareOf(from)); p == board.King {
			alt := ""
			switch from + to {
			case "e1h1":
				alt = "e1g1"
			case "e1a1":
				alt = "e1c1"
			case "e8h8":
				alt = "e8g8"
			case "e8a8":
				alt = "e8c8"
			}
			if alt != "" {
				if m, err2 := b.ParseUCI(alt); err2 == nil {
					return m, nil
				}
			}
		}
	}
	return board.NullMove, err
}

func squareOf(s string) uint8 {
	if len(s) != 2 || s[0] < 'a' || s[0] > 'h' || s[1] < '1' || s[1] > '8' {
		return 64
	}
	return (s[1]-'1')*8 + s[0] - 'a'
}

// checkEntry parses e's position and move.
func checkEntry(e *Entry) (*board.Board, board.Move, error) {
	b, err := board.FromFEN(e.FEN)
	if err != nil {
		return nil, 0, err
	}
	if e.Ply > MaxPly {
		return nil, 0, fmt.Errorf("ply %d is above the format's %d", e.Ply, MaxPly)
	}
	if e.Result < -1 || e.Result > 1 {
		return nil, 0, fmt.Errorf("result %d: want 1, 0 or -1", e.Result)
	}
	m, err := parseUCI(b, e.Move)
	if err != nil {
		return nil, 0, fmt.Errorf("move: %w", err)
	}
	return b, m, nil
}

// String writes e as a .plain entry.
func (e Entry) String() string {
	return "fen " + e.FEN + "\nmove " + e.Move + "\nscore " + strconv.Itoa(int(e.Score)) +
		"\nply " + strconv.Itoa(int(e.Ply)) + "\nresult " + strconv.Itoa(int(e.Result)) + "\ne\n"
}
