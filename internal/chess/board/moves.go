package board

import (
	"errors"
	"fmt"
	"strings"
)

// UCI returns a move in UCI notation ("e2e4", "e7e8q", "0000"), as
// dragontoothmg's Move.String does but without fmt: players format every
// move and principal variation they report.
func UCI(m Move) string {
	if m == NullMove {
		return "0000"
	}
	var buf [5]byte
	from, to := m.From(), m.To()
	buf[0], buf[1], buf[2], buf[3] = 'a'+from%8, '1'+from/8, 'a'+to%8, '1'+to/8
	if c := promotionLetter[Piece(m.Promote())]; c != 0 {
		buf[4] = c
		return string(buf[:])
	}
	return string(buf[:4])
}

// promotionLetter is a promotion's UCI suffix, 0 for a move that is none.
var promotionLetter = [8]byte{Knight: 'n', Bishop: 'b', Rook: 'r', Queen: 'q'}

// ParseUCI returns the legal move the UCI string names. It reads the
// squares and the promotion and looks them up among the legal moves,
// instead of formatting every legal move: a player rebuilding a game's
// position parses each of its moves.
func (b *Board) ParseUCI(s string) (Move, error) {
	if len(s) != 4 && len(s) != 5 {
		return NullMove, fmt.Errorf("bad UCI move %q", s)
	}
	from, fromOK := squareOf(s[0], s[1])
	to, toOK := squareOf(s[2], s[3])
	promo, promoOK := NoPiece, true
	if len(s) == 5 {
		for p, c := range promotionLetter {
			if c != 0 && c == s[4] {
				promo = Piece(p)
			}
		}
		promoOK = promo != NoPiece
	}
	if fromOK && toOK && promoOK {
		for _, m := range b.LegalMoves() {
			if m.From() == from && m.To() == to && Piece(m.Promote()) == promo {
				return m, nil
			}
		}
	}
	return NullMove, fmt.Errorf("illegal move %q in %s", s, b.FEN())
}

// squareOf is the square a file letter and a rank digit name.
func squareOf(file, rank byte) (uint8, bool) {
	if file < 'a' || file > 'h' || rank < '1' || rank > '8' {
		return 0, false
	}
	return (rank-'1')*8 + file - 'a', true
}

// ErrIllegalSAN reports SAN that names no legal move (or several).
var ErrIllegalSAN = errors.New("illegal or ambiguous SAN")

// ParseSAN returns the legal move a SAN string names. It accepts the usual
// variants found in PGN files: check and annotation suffixes, "0-0",
// promotion with or without "=", and over-specified disambiguation.
func (b *Board) ParseSAN(san string) (Move, error) {
	s := strings.TrimRight(san, "+#!?")
	if s == "" {
		return NullMove, fmt.Errorf("%w: %q", ErrIllegalSAN, san)
	}
	moves := b.LegalMoves()
	us := b.Pieces(b.SideToMove())
	if s == "O-O" || s == "0-0" || s == "O-O-O" || s == "0-0-0" {
		long := len(s) == 5
		for _, m := range moves {
			if us.Kings&(uint64(1)<<m.From()) == 0 {
				continue
			}
			d := int(m.To()) - int(m.From())
			if (!long && d == 2) || (long && d == -2) {
				return m, nil
			}
		}
		return NullMove, fmt.Errorf("%w: %q", ErrIllegalSAN, san)
	}
	piece := Pawn
	if p := strings.IndexByte("NBRQK", s[0]); p >= 0 {
		piece = [...]Piece{Knight, Bishop, Rook, Queen, King}[p]
		s = s[1:]
	}
	promo := NoPiece
	if n := len(s); n >= 2 {
		c := s[n-1]
		if p := strings.IndexByte("NBRQ", c); p >= 0 && piece == Pawn {
			promo = [...]Piece{Knight, Bishop, Rook, Queen}[p]
			s = strings.TrimSuffix(s[:n-1], "=")
		}
	}
	// What is left: [file][rank][x]square.
	if len(s) < 2 {
		return NullMove, fmt.Errorf("%w: %q", ErrIllegalSAN, san)
	}
	dest := s[len(s)-2:]
	if dest[0] < 'a' || dest[0] > 'h' || dest[1] < '1' || dest[1] > '8' {
		return NullMove, fmt.Errorf("%w: %q", ErrIllegalSAN, san)
	}
	to := (dest[1]-'1')*8 + dest[0] - 'a'
	disamb := strings.TrimSuffix(s[:len(s)-2], "x")
	fromFile, fromRank := -1, -1
	for i := 0; i < len(disamb); i++ {
		c := disamb[i]
		switch {
		case c >= 'a' && c <= 'h':
			fromFile = int(c - 'a')
		case c >= '1' && c <= '8':
			fromRank = int(c - '1')
		default:
			return NullMove, fmt.Errorf("%w: %q", ErrIllegalSAN, san)
		}
	}
	found := NullMove
	for _, m := range moves {
		if m.To() != to || Piece(m.Promote()) != promo {
			continue
		}
		from := m.From()
		if pieceIn(us, uint64(1)<<from) != piece {
			continue
		}
		if fromFile >= 0 && int(from%8) != fromFile || fromRank >= 0 && int(from/8) != fromRank {
			continue
		}
		if found != NullMove {
			return NullMove, fmt.Errorf("%w: %q is ambiguous", ErrIllegalSAN, san)
		}
		found = m
	}
	if found == NullMove {
		return NullMove, fmt.Errorf("%w: %q", ErrIllegalSAN, san)
	}
	return found, nil
}

// SAN writes a legal move in standard algebraic notation, with + or #.
func (b *Board) SAN(m Move) string {
	from, to := m.From(), m.To()
	piece, _ := b.PieceAt(from)
	var sb strings.Builder
	switch {
	case piece == King && int(to)-int(from) == 2:
		sb.WriteString("O-O")
	case piece == King && int(to)-int(from) == -2:
		sb.WriteString("O-O-O")
	default:
		capture := b.IsCapture(m)
		if piece == Pawn {
			if capture {
				sb.WriteByte('a' + from%8)
			}
		} else {
			sb.WriteString(piece.Letter())
			sb.WriteString(b.disambiguation(m, piece))
		}
		if capture {
			sb.WriteByte('x')
		}
		sb.WriteString(SquareName(to))
		if p := Piece(m.Promote()); p != NoPiece {
			sb.WriteByte('=')
			sb.WriteString(p.Letter())
		}
	}
	b.Make(m)
	if b.InCheck() {
		if len(b.LegalMoves()) == 0 {
			sb.WriteByte('#')
		} else {
			sb.WriteByte('+')
		}
	}
	b.Unmake()
	return sb.String()
}

func (b *Board) disambiguation(m Move, piece Piece) string {
	us := b.Pieces(b.SideToMove())
	from := m.From()
	sameFile, sameRank, others := false, false, false
	for _, o := range b.LegalMoves() {
		if o.To() != m.To() || o.From() == from || pieceIn(us, uint64(1)<<o.From()) != piece {
			continue
		}
		others = true
		if o.From()%8 == from%8 {
			sameFile = true
		}
		if o.From()/8 == from/8 {
			sameRank = true
		}
	}
	switch {
	case !others:
		return ""
	case !sameFile:
		return string(rune('a' + from%8))
	case !sameRank:
		return string(rune('1' + from/8))
	}
	return SquareName(from)
}

// Outcome is why a game is over, or NotOver.
type Outcome uint8

const (
	NotOver Outcome = iota
	Checkmate
	Stalemate
	FiftyMoves
	Repetition
	InsufficientMaterial
)

func (o Outcome) String() string {
	return [...]string{"not over", "checkmate", "stalemate", "fifty-move rule", "threefold repetition", "insufficient material"}[o]
}

// Status reports whether the game is over by the rules. A checkmate on the
// move that reaches the fifty-move limit counts as checkmate.
func (b *Board) Status() Outcome {
	if len(b.LegalMoves()) == 0 {
		if b.InCheck() {
			return Checkmate
		}
		return Stalemate
	}
	if b.InsufficientMaterial() {
		return InsufficientMaterial
	}
	if b.pos.Halfmoveclock >= 100 {
		return FiftyMoves
	}
	if b.Repetitions() >= 3 {
		return Repetition
	}
	return NotOver
}

// Repetitions counts how often the current position has occurred, this
// time included, since the last capture or pawn move.
func (b *Board) Repetitions() int {
	key := b.keys[len(b.keys)-1]
	n := 1
	limit := len(b.keys) - 1 - int(b.pos.Halfmoveclock)
	for i := len(b.keys) - 3; i >= 0 && i >= limit; i -= 2 {
		if b.keys[i] == key {
			n++
		}
	}
	return n
}

// IsRepeated says whether the current position occurred before (since the
// last irreversible move); search treats that as a draw.
func (b *Board) IsRepeated() bool {
	key := b.keys[len(b.keys)-1]
	limit := len(b.keys) - 1 - int(b.pos.Halfmoveclock)
	for i := len(b.keys) - 3; i >= 0 && i >= limit; i -= 2 {
		if b.keys[i] == key {
			return true
		}
	}
	return false
}

// InsufficientMaterial covers the dead positions FIDE names: king against
// king, king and minor piece against king, and bishops all on one colour.
func (b *Board) InsufficientMaterial() bool {
	w, bl := &b.pos.White, &b.pos.Black
	if w.Pawns|bl.Pawns|w.Rooks|bl.Rooks|w.Queens|bl.Queens != 0 {
		return false
	}
	minors := popcount(w.Knights | w.Bishops | bl.Knights | bl.Bishops)
	if minors <= 1 {
		return true
	}
	if w.Knights|bl.Knights != 0 {
		return false
	}
	const dark = 0xAA55AA55AA55AA55
	bishops := w.Bishops | bl.Bishops
	return bishops&dark == 0 || bishops&^uint64(dark) == 0
}

// Perft counts leaf nodes to depth; tests and `dchess perft` use it.
func (b *Board) Perft(depth int) int64 {
	if depth == 0 {
		return 1
	}
	moves := b.LegalMoves()
	if depth == 1 {
		return int64(len(moves))
	}
	var n int64
	for _, m := range moves {
		b.Make(m)
		n += b.Perft(depth - 1)
		b.Unmake()
	}
	return n
}
