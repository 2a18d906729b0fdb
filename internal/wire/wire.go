// Package wire is the one reader of dchess's binary payloads (the dataset's
// shard records, the labeller's journal entries): varints, fixed-size
// fields and length-prefixed bytes, with the writers' helpers beside it.
package wire

import (
	"encoding/binary"
	"math"
)

// Decoder reads fields from B in order. The first overrun or out-of-range
// value sets Bad and empties B, and every later read returns zero values,
// so a caller checks Bad once at the end.
type Decoder struct {
	B   []byte
	Bad bool
}

// Fail marks the payload malformed, for a check the reads cannot make
// (a count too large for what is left, a value out of its range).
func (d *Decoder) Fail() {
	d.Bad = true
	d.B = nil
}

// Uvarint reads an unsigned varint.
func (d *Decoder) Uvarint() uint64 {
	v, n := binary.Uvarint(d.B)
	if n <= 0 {
		d.Fail()
		return 0
	}
	d.B = d.B[n:]
	return v
}

// Int32 reads a signed (zigzag) varint that must fit in an int32.
func (d *Decoder) Int32() int32 {
	v, n := binary.Varint(d.B)
	if n <= 0 || v < math.MinInt32 || v > math.MaxInt32 {
		d.Fail()
		return 0
	}
	d.B = d.B[n:]
	return int32(v)
}

// Uint16 reads an unsigned varint that must fit in a uint16.
func (d *Decoder) Uint16() uint16 {
	v := d.Uvarint()
	if v > math.MaxUint16 {
		d.Bad = true
		return 0
	}
	return uint16(v)
}

// Fixed reads n bytes; past the end it returns n zero bytes.
func (d *Decoder) Fixed(n int) []byte {
	if len(d.B) < n {
		d.Fail()
		return make([]byte, n)
	}
	v := d.B[:n]
	d.B = d.B[n:]
	return v
}

// Byte reads one byte.
func (d *Decoder) Byte() byte { return d.Fixed(1)[0] }

// Bytes reads a uvarint length and that many bytes (AppendString's format).
func (d *Decoder) Bytes() []byte {
	n := d.Uvarint()
	if n > uint64(len(d.B)) {
		d.Fail()
		return nil
	}
	v := d.B[:n]
	d.B = d.B[n:]
	return v
}

// Str reads a string written by AppendString.
func (d *Decoder) Str() string { return string(d.Bytes()) }

// AppendString writes s as a uvarint length and its bytes.
func AppendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// UvarintLen is the number of bytes v takes as a uvarint.
func UvarintLen(v uint64) int {
	var b [binary.MaxVarintLen64]byte
	return binary.PutUvarint(b[:], v)
}
