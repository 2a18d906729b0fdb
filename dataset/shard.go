package dataset

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"

	"github.com/dchess/dchess/internal/chess/pgn"

	"github.com/dchess/dchess/internal/wire"
)

// A shard file is shardMagic followed by frames, one per record:
//
//	uvarint payload length | payload | CRC32C(payload), 4 bytes little-endian
//
// The payload layout is in docs/dataset-format.md. The per-record checksum
// lets a reader stop at the first damaged record while streaming instead of
// handing corrupt positions to training.
const shardMagic = "DCSHARD\x01"

// maxRecordBytes bounds a frame's declared length so a corrupt length prefix
// is reported as damage instead of triggering a huge allocation.
const maxRecordBytes = 1 << 20

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// errCorruptRecord is wrapped in a ShardError when a payload does not decode.
var errCorruptRecord = errors.New("corrupt record")

// ShardError reports damage in a shard file: where it is and what was wrong.
type ShardError struct {
	File   string // path of the shard file
	Record int64  // index of the record in the shard (0-based), -1 when not about one record
	Offset int64  // byte offset of the frame, -1 when unknown
	Err    error
}

func (e *ShardError) Error() string {
	if e.Record < 0 {
		return fmt.Sprintf("shard %s: %v", e.File, e.Err)
	}
	return fmt.Sprintf("shard %s: record %d at byte %d: %v", e.File, e.Record, e.Offset, e.Err)
}

func (e *ShardError) Unwrap() error { return e.Err }

// Record payload flags. The fields of flagClock and flagNotes follow the
// label, so records without them are encoded as before they existed.
const (
	flagLabel = 1 << iota
	flagClock
	flagNotes

	knownFlags = flagLabel | flagClock | flagNotes
)

// Moves are stored as a 2-byte code when they are plain lowercase UCI moves
// (from | to<<6 | promotion<<12); anything else is the escape code followed by
// the raw string, so every string round-trips exactly.
const moveEscape = 0xFFFF

const promotionPieces = "nbrq"

func encodeMove(m string) (uint16, bool) {
	if len(m) != 4 && len(m) != 5 {
		return 0, false
	}
	sq := func(f, r byte) (uint16, bool) {
		if f < 'a' || f > 'h' || r < '1' || r > '8' {
			return 0, false
		}
		return uint16(f-'a') + 8*uint16(r-'1'), true
	}
	from, ok1 := sq(m[0], m[1])
	to, ok2 := sq(m[2], m[3])
	if !ok1 || !ok2 {
		return 0, false
	}
	code := from | to<<6
	if len(m) == 5 {
		p := uint16(0)
		for i := 0; i < len(promotionPieces); i++ {
			if m[4] == promotionPieces[i] {
				p = uint16(i + 1)
			}
		}
		if p == 0 {
			return 0, false
		}
		code |= p << 12
	}
	return code, true
}

func decodeMove(code uint16) (string, bool) {
	promo := code >> 12
	if promo > uint16(len(promotionPieces)) {
		return "", false
	}
	from, to := code&63, (code>>6)&63
	b := []byte{'a' + byte(from%8), '1' + byte(from/8), 'a' + byte(to%8), '1' + byte(to/8)}
	if promo > 0 {
		b = append(b, promotionPieces[promo-1])
	}
	return string(b), true
}

func appendMove(b []byte, m string) []byte {
	if code, ok := encodeMove(m); ok {
		return binary.LittleEndian.AppendUint16(b, code)
	}
	b = binary.LittleEndian.AppendUint16(b, moveEscape)
	return wire.AppendString(b, m)
}

func appendMoves(b []byte, ms []string) []byte {
	b = binary.AppendUvarint(b, uint64(len(ms)))
	for _, m := range ms {
		b = appendMove(b, m)
	}
	return b
}

// appendRecord appends r's payload encoding to b. key is stored instead of
// r.Key so the writer can fill in a missing key without touching r.
func appendRecord(b []byte, r *Record, key uint64) []byte {
	var flags uint64
	if r.Label != nil {
		flags |= flagLabel
	}
	if r.ClockMS != 0 {
		flags |= flagClock
	}
	if r.Notes != "" {
		flags |= flagNotes
	}
	b = binary.AppendUvarint(b, flags)
	b = wire.AppendString(b, r.FEN)
	b = binary.LittleEndian.AppendUint64(b, key)
	b = appendMove(b, r.Move)
	b = appendMoves(b, r.Next)
	b = append(b, byte(r.Result))
	b = binary.AppendUvarint(b, uint64(r.Ply))
	b = binary.AppendUvarint(b, uint64(r.WhiteElo))
	b = binary.AppendUvarint(b, uint64(r.BlackElo))
	b = binary.LittleEndian.AppendUint64(b, r.GameID)
	if l := r.Label; l != nil {
		b = append(b, byte(l.Status))
		b = binary.AppendVarint(b, int64(l.Mate))
		b = binary.AppendVarint(b, int64(l.CP))
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(l.WinProb))
		b = appendMove(b, l.BestMove)
		b = appendMoves(b, l.PV)
		b = binary.AppendUvarint(b, uint64(l.Depth))
		b = binary.AppendUvarint(b, l.Nodes)
		b = wire.AppendString(b, l.Engine)
		b = binary.AppendUvarint(b, uint64(len(l.MultiPV)))
		for _, line := range l.MultiPV {
			b = binary.AppendVarint(b, int64(line.Mate))
			b = binary.AppendVarint(b, int64(line.CP))
			b = appendMoves(b, line.PV)
		}
		b = wire.AppendString(b, l.Error)
	}
	if r.ClockMS != 0 {
		b = binary.AppendUvarint(b, uint64(r.ClockMS))
	}
	if r.Notes != "" {
		b = wire.AppendString(b, r.Notes)
	}
	return b
}

// payloadDecoder reads a payload (wire.Decoder: the first malformed field
// sets Bad, so decodeRecord checks once at the end).
type payloadDecoder struct {
	wire.Decoder
	// lastEngine lets consecutive records share one Engine string instead of
	// allocating the same name for every labelled position.
	lastEngine string
}

func (d *payloadDecoder) engine() string {
	b := d.Bytes()
	if string(b) != d.lastEngine {
		d.lastEngine = string(b)
	}
	return d.lastEngine
}

func (d *payloadDecoder) move() string {
	code := binary.LittleEndian.Uint16(d.Fixed(2))
	if code == moveEscape {
		return d.Str()
	}
	m, ok := decodeMove(code)
	if !ok {
		d.Bad = true
	}
	return m
}

func (d *payloadDecoder) moves() []string {
	n := d.Uvarint()
	// Each move takes at least 2 bytes, which bounds n before allocating.
	if n == 0 || n > uint64(len(d.B))/2 {
		if n != 0 {
			d.Bad = true
		}
		return nil
	}
	ms := make([]string, n)
	for i := range ms {
		ms[i] = d.move()
	}
	return ms
}

// decodeRecord fills r from payload; empty slices decode as nil.
func (d *payloadDecoder) decodeRecord(payload []byte, r *Record) error {
	d.B, d.Bad = payload, false
	flags := d.Uvarint()
	r.FEN = d.Str()
	r.Key = binary.LittleEndian.Uint64(d.Fixed(8))
	r.Move = d.move()
	r.Next = d.moves()
	r.Result = pgn.Result(d.Byte())
	r.Ply = d.Uint16()
	r.WhiteElo = d.Uint16()
	r.BlackElo = d.Uint16()
	r.GameID = binary.LittleEndian.Uint64(d.Fixed(8))
	r.Label = nil
	if flags&flagLabel != 0 {
		l := &Label{}
		l.Status = LabelStatus(d.Byte())
		l.Mate = d.Int32()
		l.CP = d.Int32()
		l.WinProb = math.Float32frombits(binary.LittleEndian.Uint32(d.Fixed(4)))
		l.BestMove = d.move()
		l.PV = d.moves()
		l.Depth = d.Uint16()
		l.Nodes = d.Uvarint()
		l.Engine = d.engine()
		if n := d.Uvarint(); n > 0 {
			// Each line takes at least 3 bytes.
			if n > uint64(len(d.B))/3 {
				return errCorruptRecord
			}
			l.MultiPV = make([]PVLine, n)
			for i := range l.MultiPV {
				l.MultiPV[i].Mate = d.Int32()
				l.MultiPV[i].CP = d.Int32()
				l.MultiPV[i].PV = d.moves()
			}
		}
		l.Error = d.Str()
		r.Label = l
	}
	r.ClockMS, r.Notes = 0, ""
	if flags&flagClock != 0 {
		if v := d.Uvarint(); v == 0 || v > math.MaxUint32 {
			d.Bad = true
		} else {
			r.ClockMS = uint32(v)
		}
	}
	if flags&flagNotes != 0 {
		if r.Notes = d.Str(); r.Notes == "" {
			d.Bad = true
		}
	}
	if d.Bad || len(d.B) != 0 || flags&^knownFlags != 0 || r.Result > pgn.Draw {
		return errCorruptRecord
	}
	return nil
}

// frameWriter writes the shard header and record frames to w.
type frameWriter struct {
	w       io.Writer
	payload []byte
	frame   []byte
	written int64
}

func newFrameWriter(w io.Writer) (*frameWriter, error) {
	fw := &frameWriter{w: w}
	n, err := io.WriteString(w, shardMagic)
	fw.written += int64(n)
	return fw, err
}

func (fw *frameWriter) write(r *Record, key uint64) error {
	fw.payload = appendRecord(fw.payload[:0], r, key)
	if len(fw.payload) > maxRecordBytes {
		return fmt.Errorf("record of %s is %d bytes encoded, more than the %d allowed", r.FEN, len(fw.payload), maxRecordBytes)
	}
	fw.frame = binary.AppendUvarint(fw.frame[:0], uint64(len(fw.payload)))
	fw.frame = append(fw.frame, fw.payload...)
	fw.frame = binary.LittleEndian.AppendUint32(fw.frame, crc32.Checksum(fw.payload, castagnoli))
	n, err := fw.w.Write(fw.frame)
	fw.written += int64(n)
	return err
}

// frameReader streams records out of one shard file, checking each frame's
// checksum; every error it returns is a *ShardError naming the file.
type frameReader struct {
	name    string
	r       *bufio.Reader
	offset  int64
	index   int64
	payload []byte
	dec     payloadDecoder
}

func newFrameReader(name string, r io.Reader) (*frameReader, error) {
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReaderSize(r, 256<<10)
	}
	fr := &frameReader{name: name, r: br}
	var magic [len(shardMagic)]byte
	if _, err := io.ReadFull(br, magic[:]); err != nil {
		return nil, &ShardError{File: name, Record: -1, Offset: -1, Err: fmt.Errorf("not a shard file: missing header (%v)", err)}
	}
	if string(magic[:]) != shardMagic {
		return nil, &ShardError{File: name, Record: -1, Offset: -1, Err: errors.New("not a shard file: bad header")}
	}
	fr.offset = int64(len(shardMagic))
	return fr, nil
}

// next decodes the next record into r; it returns io.EOF at a clean end.
func (fr *frameReader) next(r *Record) error {
	start := fr.offset
	fail := func(err error) error {
		return &ShardError{File: fr.name, Record: fr.index, Offset: start, Err: err}
	}
	size, err := binary.ReadUvarint(fr.r)
	if err == io.EOF {
		return io.EOF
	}
	if err != nil {
		if err == io.ErrUnexpectedEOF {
			return fail(errors.New("truncated frame header"))
		}
		return fail(fmt.Errorf("bad frame length: %w", err))
	}
	if size > maxRecordBytes {
		return fail(fmt.Errorf("frame length %d is impossible (damaged length prefix)", size))
	}
	header := int64(wire.UvarintLen(size))
	need := int(size) + 4
	if cap(fr.payload) < need {
		fr.payload = make([]byte, need)
	}
	buf := fr.payload[:need]
	if _, err := io.ReadFull(fr.r, buf); err != nil {
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return fail(errors.New("truncated record"))
		}
		return fail(err)
	}
	payload := buf[:size]
	if crc32.Checksum(payload, castagnoli) != binary.LittleEndian.Uint32(buf[size:]) {
		return fail(errors.New("checksum mismatch"))
	}
	if err := fr.dec.decodeRecord(payload, r); err != nil {
		return fail(err)
	}
	fr.offset += header + int64(need)
	fr.index++
	return nil
}
