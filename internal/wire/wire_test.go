package wire_test

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/dchess/dchess/internal/wire"
)

func TestRoundTrip(t *testing.T) {
	b := binary.AppendUvarint(nil, 300)
	b = binary.AppendVarint(b, -7)
	b = binary.AppendUvarint(b, 65535)
	b = wire.AppendString(b, "stockfish")
	b = append(b, 9, 1, 2)
	d := wire.Decoder{B: b}
	if d.Uvarint() != 300 || d.Int32() != -7 || d.Uint16() != 65535 || d.Str() != "stockfish" || d.Byte() != 9 {
		t.Fatal("values differ")
	}
	if f := d.Fixed(2); f[0] != 1 || f[1] != 2 || d.Bad || len(d.B) != 0 {
		t.Errorf("tail %v, bad %v", f, d.Bad)
	}
	if wire.UvarintLen(300) != 2 || wire.UvarintLen(0) != 1 {
		t.Error("UvarintLen")
	}
}

// TestMalformedStaysBad: the first bad field marks the payload, and every
// later read returns zero values without panicking.
func TestMalformedStaysBad(t *testing.T) {
	for name, b := range map[string][]byte{
		"string longer than payload": wire.AppendString(nil, "abc")[:2],
		"int32 out of range":         binary.AppendVarint(nil, math.MaxInt32+1),
		"truncated varint":           {0x80},
	} {
		d := wire.Decoder{B: b}
		switch name {
		case "int32 out of range":
			d.Int32()
		case "truncated varint":
			d.Uvarint()
		default:
			d.Str()
		}
		if !d.Bad {
			t.Errorf("%s: not marked bad", name)
		}
		if d.Uvarint() != 0 || d.Str() != "" || len(d.Fixed(4)) != 4 || d.Byte() != 0 {
			t.Errorf("%s: reads after the failure are not zero", name)
		}
	}
	d := wire.Decoder{B: binary.AppendUvarint(nil, 70000)}
	if d.Uint16(); !d.Bad {
		t.Error("70000 read as a uint16")
	}
}
