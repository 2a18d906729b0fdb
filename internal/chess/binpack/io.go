package binpack

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/bits"

	"github.com/dchess/dchess/internal/chess/board"
	"github.com/dylhunn/dragontoothmg"
)

// ChunkSize is the size past which Writer ends a chunk (at the end of the
// chain being written), as Stockfish's writer does: 1 MiB.
const ChunkSize = 1 << 20

// MaxChunkSize is the largest chunk Reader accepts (Stockfish's readers
// refuse larger ones as malformed): 100 MiB.
const MaxChunkSize = 100 << 20

var chunkMagic = []byte("BINP")

// Writer writes entries as a binpack. An entry continues the previous
// one's chain when it is the position after the previous entry's move
// (same pieces, side to move, castling rights and en-passant square, and
// the fifty-move counter that move leaves), its ply is one more and its
// result the opposite; otherwise it starts a new chain. Entries in game
// order therefore take a few bytes each.
type Writer struct {
	w     io.Writer
	chunk []byte
	// The open chain: its stem is already in chunk; its moves are in text.
	open      bool
	plies     int
	text      []byte
	bitsLeft  int // free bits in text's last byte
	lastScore int16
	// last is the previous entry's position after its move, and the
	// previous entry's ply and result, for the continuation test.
	after      *board.Board
	afterKey   [24]byte
	lastPly    uint16
	lastResult int8
	err        error
}

// NewWriter returns a Writer to w. Close writes the last chunk.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Write adds e. An entry whose FEN or move is not legal chess is refused
// with an error, and the Writer stays usable.
func (w *Writer) Write(e Entry) error {
	if w.err != nil {
		return w.err
	}
	b, m, err := checkEntry(&e)
	if err != nil {
		return err
	}
	var key [24]byte
	packPosition(b, key[:])
	if w.open && w.plies < 0xFFFF && e.Ply == w.lastPly+1 && e.Result == -w.lastResult &&
		key == w.afterKey && b.HalfmoveClock() == w.after.HalfmoveClock() {
		w.addMove(b, m, e.Score)
	} else {
		if w.open {
			w.endChain()
		}
		if len(w.chunk) >= ChunkSize {
			if err := w.flush(); err != nil {
				return err
			}
		}
		var stem [stemSize]byte
		packStem(b, m, &e, stem[:])
		w.chunk = append(w.chunk, stem[:]...)
		w.open, w.plies, w.text, w.bitsLeft, w.lastScore = true, 0, w.text[:0], 0, -e.Score
	}
	w.lastPly, w.lastResult = e.Ply, e.Result
	b.Make(m)
	b.ResetHistory()
	w.after = b
	packPosition(b, w.afterKey[:])
	return nil
}

// endChain writes the open chain's count and move text.
func (w *Writer) endChain() {
	w.chunk = append(w.chunk, byte(w.plies>>8), byte(w.plies))
	w.chunk = append(w.chunk, w.text...)
	w.open = false
}

func (w *Writer) flush() error {
	if len(w.chunk) == 0 {
		return nil
	}
	var head [8]byte
	copy(head[:], chunkMagic)
	n := uint32(len(w.chunk))
	head[4], head[5], head[6], head[7] = byte(n), byte(n>>8), byte(n>>16), byte(n>>24)
	if _, err := w.w.Write(head[:]); err != nil {
		w.err = err
		return err
	}
	if _, err := w.w.Write(w.chunk); err != nil {
		w.err = err
		return err
	}
	w.chunk = w.chunk[:0]
	return nil
}

// Close ends the open chain and writes the last chunk; it does not close
// the underlying writer.
func (w *Writer) Close() error {
	if w.err != nil {
		return w.err
	}
	if w.open {
		w.endChain()
	}
	return w.flush()
}

// addBits appends the low n bits of v, most significant first.
func (w *Writer) addBits(v uint16, n int) {
	for n > 0 {
		if w.bitsLeft == 0 {
			w.text = append(w.text, 0)
			w.bitsLeft = 8
		}
		take := min(n, w.bitsLeft)
		chunk := byte(v>>(n-take)) & (1<<take - 1)
		w.text[len(w.text)-1] |= chunk << (w.bitsLeft - take)
		w.bitsLeft -= take
		n -= take
	}
}

// addMove appends move m from b and its score to the open chain.
func (w *Writer) addMove(b *board.Board, m board.Move, score int16) {
	from, to := m.From(), m.To()
	ours := b.Pieces(b.SideToMove()).All
	pieceID := bits.OnesCount64(ours & (1<<from - 1))
	targets, codes, _ := moveTargets(b, from)
	moveID := bits.OnesCount64(targets & (1<<to - 1))
	p, _ := b.PieceAt(from)
	switch {
	case p == board.Pawn && codes > bits.OnesCount64(targets):
		moveID = moveID*4 + int(board.Piece(m.Promote())-board.Knight)
	case p == board.King && (to == from+2 || to+2 == from):
		moveID = bits.OnesCount64(targets) - 1
		if hasLongCastling(b) {
			moveID++
		}
		if to > from {
			moveID++
		}
	}
	w.addBits(uint16(pieceID), usedBits(bits.OnesCount64(ours)))
	w.addBits(uint16(moveID), usedBits(codes))
	delta := signedToUnsigned(score - w.lastScore)
	for {
		block := delta & (1<<scoreBlock - 1)
		if delta > 1<<scoreBlock-1 {
			block |= 1 << scoreBlock
		}
		w.addBits(block, scoreBlock+1)
		delta >>= scoreBlock
		if delta == 0 {
			break
		}
	}
	w.lastScore = -score
	w.plies++
}

// Reader reads the entries of a binpack in order.
type Reader struct {
	r     io.Reader
	chunk []byte
	off   int
	// The chain being read: its position after the last entry's move, the
	// bits of its move text still to come.
	b         *board.Board
	move      board.Move
	left      int // entries of the chain still to read
	bitOff    int // next bit of the move text, from chunk[off]
	lastScore int16
	last      Entry
	chunks    int64
	err       error
}

// NewReader returns a Reader of r.
func NewReader(r io.Reader) *Reader { return &Reader{r: r} }

// ErrCorrupt wraps every error about the file's content (as opposed to
// reading it).
var ErrCorrupt = errors.New("corrupt binpack")

func (r *Reader) corrupt(format string, args ...any) error {
	r.err = fmt.Errorf("%w: chunk %d: %s", ErrCorrupt, r.chunks, fmt.Sprintf(format, args...))
	return r.err
}

// Next returns the next entry, or io.EOF after the last one. An error
// about the content wraps ErrCorrupt; after any error Next keeps
// returning it.
func (r *Reader) Next() (Entry, error) {
	if r.err != nil {
		return Entry{}, r.err
	}
	if r.left > 0 {
		return r.nextInChain()
	}
	// Like Stockfish's reader, a chunk ends where too few bytes for another
	// stem are left.
	if len(r.chunk)-r.off < stemSize+2 {
		if err := r.readChunk(); err != nil {
			r.err = err
			return Entry{}, err
		}
		if len(r.chunk) < stemSize+2 {
			return Entry{}, r.corrupt("%d bytes, too few for an entry", len(r.chunk))
		}
	}
	stem := r.chunk[r.off : r.off+stemSize]
	pr := uint16BE(stem[28:])
	e := Entry{Score: unsignedToSigned(uint16BE(stem[26:])), Ply: pr & MaxPly, Result: int8(unsignedToSigned(pr >> 14))}
	if e.Result < -1 || e.Result > 1 {
		return Entry{}, r.corrupt("result code %d", pr>>14)
	}
	fen, err := unpackPosition(stem, uint16BE(stem[30:]), e.Ply)
	if err != nil {
		return Entry{}, r.corrupt("%v", err)
	}
	b, err := board.FromFEN(fen)
	if err != nil {
		return Entry{}, r.corrupt("%v", err)
	}
	e.FEN = FEN(b)
	e.Move = unpackMove(uint16BE(stem[24:]))
	m, err := b.ParseUCI(e.Move)
	if err != nil {
		return Entry{}, r.corrupt("entry %s: move %s is not legal", e.FEN, e.Move)
	}
	plies := int(uint16BE(r.chunk[r.off+stemSize:]))
	r.off += stemSize + 2
	r.left, r.bitOff, r.lastScore, r.b, r.move, r.last = plies, 0, -e.Score, b, m, e
	if plies == 0 {
		r.b = nil
	}
	return e, nil
}

// readChunk reads the next chunk's header and data; io.EOF at a clean end.
func (r *Reader) readChunk() error {
	var head [8]byte
	if _, err := io.ReadFull(r.r, head[:]); err != nil {
		if err == io.ErrUnexpectedEOF {
			return fmt.Errorf("%w: the file ends inside a chunk header", ErrCorrupt)
		}
		return err
	}
	r.chunks++
	if !bytes.Equal(head[:4], chunkMagic) {
		return fmt.Errorf("%w: chunk %d starts with %q, not BINP", ErrCorrupt, r.chunks, head[:4])
	}
	n := uint32(head[4]) | uint32(head[5])<<8 | uint32(head[6])<<16 | uint32(head[7])<<24
	if n > MaxChunkSize {
		return fmt.Errorf("%w: chunk %d claims %d bytes, more than %d", ErrCorrupt, r.chunks, n, MaxChunkSize)
	}
	if cap(r.chunk) < int(n) {
		r.chunk = make([]byte, n)
	}
	r.chunk = r.chunk[:n]
	r.off = 0
	if _, err := io.ReadFull(r.r, r.chunk); err != nil {
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return fmt.Errorf("%w: chunk %d is cut short", ErrCorrupt, r.chunks)
		}
		return err
	}
	return nil
}

// bits reads n bits of the move text, most significant first.
func (r *Reader) bits(n int) (int, bool) {
	v := 0
	for i := 0; i < n; i++ {
		at := r.off + r.bitOff/8
		if at >= len(r.chunk) {
			return 0, false
		}
		v = v<<1 | int(r.chunk[at]>>(7-r.bitOff%8)&1)
		r.bitOff++
	}
	return v, true
}

func (r *Reader) nextInChain() (Entry, error) {
	if r.last.Ply >= MaxPly {
		return Entry{}, r.corrupt("a chain goes past ply %d", MaxPly)
	}
	b := r.b
	b.Make(r.move)
	b.ResetHistory()
	e := Entry{Ply: r.last.Ply + 1, Result: -r.last.Result}
	short := func() (Entry, error) { return Entry{}, r.corrupt("move text cut short") }
	ours := b.Pieces(b.SideToMove()).All
	pieceID, ok := r.bits(usedBits(bits.OnesCount64(ours)))
	if !ok {
		return short()
	}
	from := nthBit(ours, pieceID)
	if from >= 64 {
		return Entry{}, r.corrupt("piece %d of %d", pieceID, bits.OnesCount64(ours))
	}
	targets, codes, castlings := moveTargets(b, from)
	moveID, ok := r.bits(usedBits(codes))
	if !ok {
		return short()
	}
	if moveID >= codes {
		return Entry{}, r.corrupt("move %d of %d", moveID, codes)
	}
	var m board.Move
	m.Setfrom(dragontoothmg.Square(from))
	p, _ := b.PieceAt(from)
	n := bits.OnesCount64(targets)
	switch {
	case p == board.Pawn && codes > n:
		m.Setto(dragontoothmg.Square(nthBit(targets, moveID/4)))
		m.Setpromote(dragontoothmg.Piece(board.Knight + board.Piece(moveID%4)))
	case p == board.King && moveID >= n && castlings > 0:
		to := from + 2
		if moveID == n && hasLongCastling(b) {
			to = from - 2
		}
		m.Setto(dragontoothmg.Square(to))
	default:
		m.Setto(dragontoothmg.Square(nthBit(targets, moveID)))
	}
	var delta uint16
	for shift := 0; ; shift += scoreBlock {
		block, ok := r.bits(scoreBlock + 1)
		if !ok {
			return short()
		}
		if shift < 16 {
			delta |= uint16(block&(1<<scoreBlock-1)) << shift
		}
		if block>>scoreBlock == 0 {
			break
		}
		if shift > 16 {
			return Entry{}, r.corrupt("score code longer than 16 bits")
		}
	}
	e.Score = r.lastScore + unsignedToSigned(delta)
	r.lastScore = -e.Score
	e.Move = board.UCI(m)
	legal, err := b.ParseUCI(e.Move)
	if err != nil {
		return Entry{}, r.corrupt("chain move %s in %s is not legal", e.Move, FEN(b))
	}
	e.FEN = FEN(b)
	r.move, r.last = legal, e
	r.left--
	if r.left == 0 {
		r.off += (r.bitOff + 7) / 8
		r.b = nil
	}
	return e, nil
}
