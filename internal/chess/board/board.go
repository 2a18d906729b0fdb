// Package board is dchess's chess position for search, self-play and
// ingest: legal move generation comes from dragontoothmg (a fast bitboard
// generator; what a search node costs is in
// docs/results/2026-11-21-search-speed.md), and this package adds what
// search and PGN reading need on top:
// make/unmake with history, Zobrist keys that are the same in every run,
// validated FEN in and out, SAN and UCI moves, game-end rules and
// conversion to notnil/chess.
package board

import (
	"math/bits"

	"github.com/dylhunn/dragontoothmg"
)

// Color is a side.
type Color uint8

const (
	White Color = iota
	Black
)

// Other returns the opposing side.
func (c Color) Other() Color { return c ^ 1 }

func (c Color) String() string {
	if c == White {
		return "white"
	}
	return "black"
}

// Piece is a piece type without colour.
type Piece uint8

// Piece values match dragontoothmg's so conversions are free.
const (
	NoPiece Piece = Piece(dragontoothmg.Nothing)
	Pawn    Piece = Piece(dragontoothmg.Pawn)
	Knight  Piece = Piece(dragontoothmg.Knight)
	Bishop  Piece = Piece(dragontoothmg.Bishop)
	Rook    Piece = Piece(dragontoothmg.Rook)
	Queen   Piece = Piece(dragontoothmg.Queen)
	King    Piece = Piece(dragontoothmg.King)
)

// Letter returns the upper-case SAN letter of a piece ("" for a pawn).
func (p Piece) Letter() string {
	return [...]string{"", "", "N", "B", "R", "Q", "K"}[p]
}

// Bitboards is one side's pieces, one bit per square (a1 = bit 0, h8 = bit 63).
type Bitboards = dragontoothmg.Bitboards

// PieceTypes lists the piece types in the order encodings use.
var PieceTypes = [6]Piece{Pawn, Knight, Bishop, Rook, Queen, King}

// PieceBits returns the squares of one piece type in a side's bitboards.
func PieceBits(bb *Bitboards, p Piece) uint64 {
	if set := pieceBitsOf(bb, p); set != nil {
		return *set
	}
	return 0
}

// Move is a move in dragontoothmg's 16-bit encoding: from, to, promotion.
// Castling is the king's two-square move (e1g1).
type Move = dragontoothmg.Move

// NullMove is the zero move, printed "0000".
const NullMove Move = 0

// Square numbers run a1=0, b1=1, ... h8=63.
func SquareName(sq uint8) string {
	return string([]byte{'a' + sq%8, '1' + sq/8})
}

// Board is a position plus the history needed for repetition and unmake.
// The zero value is not usable; use New, FromFEN or Clone.
type Board struct {
	pos dragontoothmg.Board
	// ep is the en-passant target square after a double push (0 = none);
	// tracked here because dragontoothmg keeps it private.
	ep uint8
	// castle holds the castling rights as bits K=1, Q=2, k=4, q=8, tracked
	// here for the same reason.
	castle uint8
	// undo holds earlier positions for Unmake; keys holds the position key
	// of every position since the game start (or FEN), current one last.
	undo []state
	keys []uint64
}

type state struct {
	pos    dragontoothmg.Board
	ep     uint8
	castle uint8
}

// StartFEN is the standard starting position.
const StartFEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"

// New returns the starting position.
func New() *Board {
	b, err := FromFEN(StartFEN)
	if err != nil {
		panic(err)
	}
	return b
}

// Clone returns an independent copy, history included.
func (b *Board) Clone() *Board {
	c := &Board{pos: b.pos, ep: b.ep, castle: b.castle}
	c.undo = append(make([]state, 0, cap(b.undo)), b.undo...)
	c.keys = append(make([]uint64, 0, cap(b.keys)), b.keys...)
	return c
}

// ResetHistory forgets earlier positions, keeping the current one; a game
// record's start position calls this.
func (b *Board) ResetHistory() {
	b.undo = b.undo[:0]
	b.keys = append(b.keys[:0], b.computeKey())
}

// SideToMove returns the side to move.
func (b *Board) SideToMove() Color {
	if b.pos.Wtomove {
		return White
	}
	return Black
}

// Pieces returns one side's bitboards.
func (b *Board) Pieces(c Color) *Bitboards {
	if c == White {
		return &b.pos.White
	}
	return &b.pos.Black
}

// Occupied returns every occupied square.
func (b *Board) Occupied() uint64 { return b.pos.White.All | b.pos.Black.All }

// PieceAt returns the piece and its colour on a square (NoPiece when empty).
func (b *Board) PieceAt(sq uint8) (Piece, Color) {
	mask := uint64(1) << sq
	if b.pos.White.All&mask != 0 {
		return pieceIn(&b.pos.White, mask), White
	}
	if b.pos.Black.All&mask != 0 {
		return pieceIn(&b.pos.Black, mask), Black
	}
	return NoPiece, White
}

func pieceIn(bb *Bitboards, mask uint64) Piece {
	switch {
	case bb.Pawns&mask != 0:
		return Pawn
	case bb.Knights&mask != 0:
		return Knight
	case bb.Bishops&mask != 0:
		return Bishop
	case bb.Rooks&mask != 0:
		return Rook
	case bb.Queens&mask != 0:
		return Queen
	case bb.Kings&mask != 0:
		return King
	}
	return NoPiece
}

// HalfmoveClock counts half-moves since the last capture or pawn move.
func (b *Board) HalfmoveClock() int { return int(b.pos.Halfmoveclock) }

// FullmoveNumber is the FEN move number.
func (b *Board) FullmoveNumber() int { return int(b.pos.Fullmoveno) }

// Ply counts the moves made since the board was set up.
func (b *Board) Ply() int { return len(b.undo) }

// LegalMoves returns the legal moves in the current position.
func (b *Board) LegalMoves() []Move {
	moves := b.pos.GenerateLegalMoves()
	if b.epCapturable() {
		moves = b.fixEnPassant(moves)
	}
	return moves
}

// fixEnPassant decides every en-passant capture by playing it and looking
// at the king, because dragontoothmg omits the capture by a pawn pinned
// along the capture's diagonal, which stays on the pin line and is legal
// (perft_marcel.epd line 1922 after 1.Kxh3 e5: f5xe6 with Bc8 behind).
func (b *Board) fixEnPassant(moves []Move) []Move {
	us := b.Pieces(b.SideToMove())
	out := moves[:0]
	for _, m := range moves {
		if m.To() == b.ep && us.Pawns&(uint64(1)<<m.From()) != 0 {
			continue
		}
		out = append(out, m)
	}
	pushed := b.ep - 8
	if !b.pos.Wtomove {
		pushed = b.ep + 8
	}
	for _, from := range [2]int{int(pushed) - 1, int(pushed) + 1} {
		if from < 0 || from > 63 || from/8 != int(pushed)/8 || us.Pawns&(uint64(1)<<from) == 0 {
			continue
		}
		var m Move
		m.Setfrom(dragontoothmg.Square(from)).Setto(dragontoothmg.Square(b.ep))
		white := b.pos.Wtomove
		b.Make(m)
		king := b.pos.White.Kings
		if !white {
			king = b.pos.Black.Kings
		}
		safe := !b.pos.UnderDirectAttack(white, uint8(bits.TrailingZeros64(king)))
		b.Unmake()
		if safe {
			out = append(out, m)
		}
	}
	return out
}

// InCheck says whether the side to move is in check.
func (b *Board) InCheck() bool { return b.pos.OurKingInCheck() }

// IsCapture says whether a move captures (en passant included).
func (b *Board) IsCapture(m Move) bool {
	to := uint64(1) << m.To()
	var opp *Bitboards
	if b.pos.Wtomove {
		opp = &b.pos.Black
	} else {
		opp = &b.pos.White
	}
	if opp.All&to != 0 {
		return true
	}
	return b.ep != 0 && m.To() == b.ep && b.Pieces(b.SideToMove()).Pawns&(uint64(1)<<m.From()) != 0
}

// Make plays a legal move. Playing an illegal move is undefined behaviour,
// as in dragontoothmg; ParseUCI and ParseSAN only return legal moves.
//
// The move is made here rather than with dragontoothmg's Apply, which
// allocates an undo closure on every call (a tenth of the search's time
// went to it and the garbage it made); Unmake restores a copy instead.
// The key is updated from the move rather than recomputed: the pieces
// that left and reached squares, castling rights, the en-passant file and
// the side to move (TestIncrementalKey checks it against computeKey;
// TestMakeAgreesWithApply checks the whole board against Apply's).
func (b *Board) Make(m Move) {
	b.undo = append(b.undo, state{pos: b.pos, ep: b.ep, castle: b.castle})
	from, to := m.From(), m.To()
	fromBB, toBB := uint64(1)<<from, uint64(1)<<to
	us := b.SideToMove()
	ours, theirs := &b.pos.White, &b.pos.Black
	if us == Black {
		ours, theirs = theirs, ours
	}
	key := b.Key() ^ zobristBlack ^ zobristCastle[b.castle]
	if b.epCapturable() {
		key ^= zobristEPFile[b.ep%8]
	}

	piece := pieceIn(ours, fromBB)
	*pieceBitsOf(ours, piece) &^= fromBB
	ours.All ^= fromBB | toBB
	key ^= zobristPiece[us][piece][from]
	irreversible := piece == Pawn
	if theirs.All&toBB != 0 {
		victim := pieceIn(theirs, toBB)
		*pieceBitsOf(theirs, victim) &^= toBB
		theirs.All &^= toBB
		key ^= zobristPiece[us.Other()][victim][to]
		irreversible = true
	} else if piece == Pawn && to == b.ep && b.ep != 0 {
		captured := uint8(int(to) + epVictimOffset[us])
		theirs.Pawns &^= uint64(1) << captured
		theirs.All &^= uint64(1) << captured
		key ^= zobristPiece[us.Other()][Pawn][captured]
	}
	placed := piece
	if promo := Piece(m.Promote()); promo != NoPiece {
		placed = promo
	}
	*pieceBitsOf(ours, placed) |= toBB
	key ^= zobristPiece[us][placed][to]
	if piece == King && (int(to)-int(from) == 2 || int(from)-int(to) == 2) {
		rookFrom, rookTo := from+3, from+1 // king side
		if to < from {
			rookFrom, rookTo = from-4, from-1
		}
		rookBB := uint64(1)<<rookFrom | uint64(1)<<rookTo
		ours.Rooks ^= rookBB
		ours.All ^= rookBB
		key ^= zobristPiece[us][Rook][rookFrom] ^ zobristPiece[us][Rook][rookTo]
	}
	b.castle &^= castleLoss[from] | castleLoss[to]
	key ^= zobristCastle[b.castle]
	b.ep = 0
	if piece == Pawn && (int(to)-int(from) == 16 || int(from)-int(to) == 16) {
		b.ep = (from + to) / 2
	}

	half, full := b.pos.Halfmoveclock+1, b.pos.Fullmoveno
	if irreversible {
		half = 0
	}
	if us == Black {
		full++
	}
	white, black := b.pos.White, b.pos.Black
	// dragontoothmg keeps castling rights and the en-passant square in
	// unexported fields; a board parsed with just those set carries them.
	b.pos = privateState[b.castle][epIndex(b.ep)]
	b.pos.White, b.pos.Black = white, black
	b.pos.Wtomove = us == Black
	b.pos.Halfmoveclock, b.pos.Fullmoveno = half, full
	if b.epCapturable() {
		key ^= zobristEPFile[b.ep%8]
	}
	b.keys = append(b.keys, key)
}

// pieceBitsOf points at one piece type's bitboard in a side's bitboards
// (nil for NoPiece).
func pieceBitsOf(bb *Bitboards, p Piece) *uint64 {
	switch p {
	case Pawn:
		return &bb.Pawns
	case Knight:
		return &bb.Knights
	case Bishop:
		return &bb.Bishops
	case Rook:
		return &bb.Rooks
	case Queen:
		return &bb.Queens
	case King:
		return &bb.Kings
	}
	return nil
}

// privateState[castle][epIndex(ep)] is an empty dragontoothmg board whose
// unexported castling rights and en-passant square are those given, the
// only way to set them without Apply or a FEN.
var privateState [16][17]dragontoothmg.Board

// epIndex numbers the en-passant target squares: 0 for none, 1-8 for
// a3-h3, 9-16 for a6-h6.
func epIndex(ep uint8) int {
	switch {
	case ep == 0:
		return 0
	case ep < 32:
		return int(ep%8) + 1
	}
	return int(ep%8) + 9
}

func init() {
	for castle := range privateState {
		rights := ""
		for i, c := range "KQkq" {
			if castle&(1<<i) != 0 {
				rights += string(c)
			}
		}
		if rights == "" {
			rights = "-"
		}
		for i := range privateState[castle] {
			ep := "-"
			if i > 0 {
				ep = SquareName(uint8((i-1)%8 + 16 + 24*((i-1)/8)))
			}
			pos := dragontoothmg.ParseFen("8/8/8/8/8/8/8/8 w " + rights + " " + ep + " 0 1")
			pos.White, pos.Black = Bitboards{}, Bitboards{}
			privateState[castle][i] = pos
		}
	}
}

// epVictimOffset[side] leads from side's en-passant target square to the
// pawn it captures.
var epVictimOffset = [2]int{White: -8, Black: 8}

// Unmake takes back the last move made.
func (b *Board) Unmake() {
	n := len(b.undo) - 1
	b.pos, b.ep, b.castle = b.undo[n].pos, b.undo[n].ep, b.undo[n].castle
	b.undo = b.undo[:n]
	b.keys = b.keys[:len(b.keys)-1]
}

// NullMoveAllowed says whether MakeNull may be called when the side to
// move is not in check: not right after a double pawn push, because
// dragontoothmg keeps that push's en-passant square privately and would
// offer it to the wrong side.
func (b *Board) NullMoveAllowed() bool { return b.ep == 0 }

// HasPieces says whether a side has a knight, bishop, rook or queen.
func (b *Board) HasPieces(c Color) bool {
	bb := b.Pieces(c)
	return bb.Knights|bb.Bishops|bb.Rooks|bb.Queens != 0
}

// MakeNull passes the turn without moving, for null-move pruning; Unmake
// takes it back. The halfmove clock restarts so that repetitions are not
// looked for across the null move, which no real game could reach.
func (b *Board) MakeNull() {
	b.undo = append(b.undo, state{pos: b.pos, ep: b.ep, castle: b.castle})
	b.pos.Wtomove = !b.pos.Wtomove
	b.pos.Halfmoveclock = 0
	b.keys = append(b.keys, b.computeKey())
}

// CastlingRights returns the rights as bits K=1, Q=2, k=4, q=8.
func (b *Board) CastlingRights() uint8 { return b.castle }

// EnPassant returns the en-passant target square when a pawn of the side
// to move can capture there.
func (b *Board) EnPassant() (uint8, bool) {
	if b.epCapturable() {
		return b.ep, true
	}
	return 0, false
}

// Key is the position's Zobrist key: placement, side to move, castling
// rights and an en-passant square only when a pawn can actually capture
// there, so positions that are the same under the repetition rule share a
// key. Keys are the same in every run of the program.
func (b *Board) Key() uint64 { return b.keys[len(b.keys)-1] }

// epCapturable says whether a pawn of the side to move stands beside the
// double-pushed pawn (pseudo-legal en passant).
func (b *Board) epCapturable() bool {
	if b.ep == 0 {
		return false
	}
	var pawns uint64
	var pushed uint8
	if b.pos.Wtomove {
		pawns, pushed = b.pos.White.Pawns, b.ep-8
	} else {
		pawns, pushed = b.pos.Black.Pawns, b.ep+8
	}
	file := pushed % 8
	var beside uint64
	if file > 0 {
		beside |= uint64(1) << (pushed - 1)
	}
	if file < 7 {
		beside |= uint64(1) << (pushed + 1)
	}
	return pawns&beside != 0
}

// castleLoss[sq] is the castling rights lost when a move starts or ends on sq.
var castleLoss = [64]uint8{0: 2, 4: 3, 7: 1, 56: 8, 60: 12, 63: 4}
