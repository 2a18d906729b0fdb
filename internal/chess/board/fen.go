package board

import (
	"fmt"
	"math/bits"
	"strconv"
	"strings"
)

// FromFEN parses and validates a FEN. Move counters may be missing
// (EPD positions have four fields). Castling rights that the placement
// cannot support are dropped rather than trusted, so move generation never
// sees an impossible state. An en-passant square that no double push can
// have made is refused: the position it describes cannot have arisen.
func FromFEN(fen string) (*Board, error) {
	fields := strings.Fields(fen)
	if len(fields) < 4 || len(fields) > 6 {
		return nil, fmt.Errorf("invalid FEN %q: want 4 to 6 fields, got %d", fen, len(fields))
	}
	var grid [64]byte
	if err := parsePlacement(fields[0], &grid); err != nil {
		return nil, fmt.Errorf("invalid FEN %q: %v", fen, err)
	}
	var whiteKings, blackKings int
	for sq, c := range grid {
		switch c {
		case 'K':
			whiteKings++
		case 'k':
			blackKings++
		case 'P', 'p':
			if sq < 8 || sq >= 56 {
				return nil, fmt.Errorf("invalid FEN %q: pawn on the first or last rank", fen)
			}
		}
	}
	if whiteKings != 1 || blackKings != 1 {
		return nil, fmt.Errorf("invalid FEN %q: want one king per side", fen)
	}
	if fields[1] != "w" && fields[1] != "b" {
		return nil, fmt.Errorf("invalid FEN %q: side to move must be w or b", fen)
	}
	castling := ""
	if fields[2] != "-" {
		for _, c := range fields[2] {
			if !strings.ContainsRune("KQkq", c) || strings.ContainsRune(castling, c) {
				return nil, fmt.Errorf("invalid FEN %q: bad castling field %q", fen, fields[2])
			}
			castling += string(c)
		}
	}
	castling = supportedCastling(castling, &grid)
	ep := uint8(0)
	if fields[3] != "-" {
		f := fields[3]
		if len(f) != 2 || f[0] < 'a' || f[0] > 'h' || (f[1] != '3' && f[1] != '6') {
			return nil, fmt.Errorf("invalid FEN %q: bad en-passant square %q", fen, f)
		}
		sq := (f[1]-'1')*8 + (f[0] - 'a')
		// The side that just moved double-pushed: its pawn stands in front
		// of the square, which it and the pawn's start square left empty.
		switch {
		case f[1] == '6' && fields[1] == "w" && grid[sq-8] == 'p' && grid[sq] == 0 && grid[sq+8] == 0:
			ep = sq
		case f[1] == '3' && fields[1] == "b" && grid[sq+8] == 'P' && grid[sq] == 0 && grid[sq-8] == 0:
			ep = sq
		default:
			return nil, fmt.Errorf("invalid FEN %q: no pawn can just have passed the en-passant square %s", fen, f)
		}
	}
	half, full := 0, 1
	if len(fields) > 4 {
		n, err := strconv.Atoi(fields[4])
		if err != nil || n < 0 {
			return nil, fmt.Errorf("invalid FEN %q: bad halfmove clock", fen)
		}
		half = min(n, 255)
	}
	if len(fields) > 5 {
		n, err := strconv.Atoi(fields[5])
		if err != nil || n < 1 {
			return nil, fmt.Errorf("invalid FEN %q: bad move number", fen)
		}
		full = min(n, 65535)
	}
	b := &Board{ep: ep}
	for i, c := range "KQkq" {
		if strings.ContainsRune(castling, c) {
			b.castle |= 1 << i
		}
	}
	// The placement goes straight into the bitboards, on a board that
	// carries the rights and the en-passant square as Make's do: formatting
	// a clean FEN for dragontoothmg.ParseFen to read again cost more than
	// the rest of the parse.
	b.pos = privateState[b.castle][epIndex(ep)]
	b.pos.Wtomove = fields[1] == "w"
	b.pos.Halfmoveclock, b.pos.Fullmoveno = uint8(half), uint16(full)
	for sq, c := range grid {
		if c == 0 {
			continue
		}
		named := letterPieces[c]
		side := b.Pieces(named.color)
		*pieceBitsOf(side, named.piece) |= 1 << sq
		side.All |= 1 << sq
	}
	// The side not to move must not be in check: such a position cannot arise.
	if b.opponentInCheck() {
		return nil, fmt.Errorf("invalid FEN %q: the side not to move is in check", fen)
	}
	b.keys = append(b.keys, b.computeKey())
	return b, nil
}

func parsePlacement(placement string, grid *[64]byte) error {
	ranks := strings.Split(placement, "/")
	if len(ranks) != 8 {
		return fmt.Errorf("want 8 ranks, got %d", len(ranks))
	}
	for i, rank := range ranks {
		r := 7 - i
		file := 0
		for j := 0; j < len(rank); j++ {
			c := rank[j]
			switch {
			case c >= '1' && c <= '8':
				file += int(c - '0')
			case strings.IndexByte("PNBRQKpnbrqk", c) >= 0:
				if file < 8 {
					grid[r*8+file] = c
				}
				file++
			default:
				return fmt.Errorf("bad character %q in placement", c)
			}
			if file > 8 {
				return fmt.Errorf("rank %d has more than 8 squares", r+1)
			}
		}
		if file != 8 {
			return fmt.Errorf("rank %d has %d squares", r+1, file)
		}
	}
	return nil
}

func supportedCastling(castling string, grid *[64]byte) string {
	out := ""
	for _, c := range castling {
		ok := false
		switch c {
		case 'K':
			ok = grid[4] == 'K' && grid[7] == 'R'
		case 'Q':
			ok = grid[4] == 'K' && grid[0] == 'R'
		case 'k':
			ok = grid[60] == 'k' && grid[63] == 'r'
		case 'q':
			ok = grid[60] == 'k' && grid[56] == 'r'
		}
		if ok {
			out += string(c)
		}
	}
	return out
}

func (b *Board) opponentInCheck() bool {
	var king uint64
	if b.pos.Wtomove {
		king = b.pos.Black.Kings
	} else {
		king = b.pos.White.Kings
	}
	sq := uint8(bits.TrailingZeros64(king))
	return b.pos.UnderDirectAttack(!b.pos.Wtomove, sq)
}

var pieceLetters = [2][7]byte{
	{0, 'P', 'N', 'B', 'R', 'Q', 'K'},
	{0, 'p', 'n', 'b', 'r', 'q', 'k'},
}

// letterPieces is the side and piece each letter of pieceLetters names.
var letterPieces = func() (named [128]struct {
	color Color
	piece Piece
}) {
	for c, letters := range pieceLetters {
		for p, l := range letters[1:] {
			named[l].color, named[l].piece = Color(c), Piece(p+1)
		}
	}
	return named
}()

// FEN writes the position. The en-passant square is written only when a
// pawn can capture there, so equal positions give equal FENs.
func (b *Board) FEN() string {
	buf := make([]byte, 0, 90)
	return string(b.AppendFEN(buf))
}

// AppendFEN appends the FEN to buf; ingest uses it to avoid allocations.
func (b *Board) AppendFEN(buf []byte) []byte {
	for r := 7; r >= 0; r-- {
		empty := byte(0)
		for f := 0; f < 8; f++ {
			p, c := b.PieceAt(uint8(r*8 + f))
			if p == NoPiece {
				empty++
				continue
			}
			if empty > 0 {
				buf = append(buf, '0'+empty)
				empty = 0
			}
			buf = append(buf, pieceLetters[c][p])
		}
		if empty > 0 {
			buf = append(buf, '0'+empty)
		}
		if r > 0 {
			buf = append(buf, '/')
		}
	}
	if b.pos.Wtomove {
		buf = append(buf, " w "...)
	} else {
		buf = append(buf, " b "...)
	}
	buf = b.appendCastling(buf)
	buf = append(buf, ' ')
	if b.epCapturable() {
		buf = append(buf, 'a'+b.ep%8, '1'+b.ep/8)
	} else {
		buf = append(buf, '-')
	}
	buf = append(buf, ' ')
	buf = strconv.AppendInt(buf, int64(b.pos.Halfmoveclock), 10)
	buf = append(buf, ' ')
	buf = strconv.AppendInt(buf, int64(b.pos.Fullmoveno), 10)
	return buf
}

// Castling returns the castling rights as in a FEN ("KQkq", "-").
func (b *Board) Castling() string { return string(b.appendCastling(nil)) }

func (b *Board) appendCastling(buf []byte) []byte {
	n := len(buf)
	for i, c := range []byte("KQkq") {
		if b.castle&(1<<i) != 0 {
			buf = append(buf, c)
		}
	}
	if len(buf) == n {
		buf = append(buf, '-')
	}
	return buf
}
