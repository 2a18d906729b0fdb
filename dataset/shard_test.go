package dataset

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"hash/crc32"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestMoveCodes(t *testing.T) {
	for _, m := range []string{"a1a2", "h8h1", "e7e8q", "b2a1n", "g7g8b", "c2c1r"} {
		code, ok := encodeMove(m)
		if !ok || code == moveEscape {
			t.Fatalf("%s has no compact code", m)
		}
		if back, ok := decodeMove(code); !ok || back != m {
			t.Errorf("%s came back as %q", m, back)
		}
	}
	for _, m := range []string{"", "0000", "E2E4", "e2e4x", "e9e4", "i2i4", "e2e4Q", "e7e8k", "O-O"} {
		if _, ok := encodeMove(m); ok {
			t.Errorf("%q got a compact code but would not round-trip", m)
		}
	}
}

// damagedDataset writes a small dataset and returns it with the path of
// its second shard, for the damage tests to corrupt.
func damagedDataset(t *testing.T) (string, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "ds")
	writeDataset(t, dir, WriteOptions{Shard: 100}, sampleRecords(300, 10))
	return dir, filepath.Join(dir, "shard-00001.rec")
}

// expectDamage checks that Scan and Verify both fail naming shard.
func expectDamage(t *testing.T, dir, shard, says string) {
	t.Helper()
	d, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	scanned := 0
	err = d.Scan(context.Background(), AllSplits, func(*Record) error { scanned++; return nil })
	var se *ShardError
	if !errors.As(err, &se) || se.File != shard || !strings.Contains(err.Error(), shard) || !strings.Contains(err.Error(), says) {
		t.Errorf("Scan of a damaged shard: %v (want a ShardError for %s saying %q)", err, shard, says)
	}
	if scanned < 100 || scanned >= 300 {
		t.Errorf("Scan delivered %d records; want the first shard's 100 and then stop in the damaged one", scanned)
	}
	err = d.Verify(context.Background())
	if !errors.As(err, &se) || se.File != shard || !strings.Contains(err.Error(), shard) {
		t.Errorf("Verify of a damaged shard: %v (want a ShardError for %s)", err, shard)
	}
	// Only the damaged shard is reported.
	if strings.Contains(err.Error(), "shard-00000") || strings.Contains(err.Error(), "shard-00002") {
		t.Errorf("Verify blamed a healthy shard: %v", err)
	}
}

func TestTruncatedShardMidRecord(t *testing.T) {
	dir, shard := damagedDataset(t)
	st, _ := os.Stat(shard)
	if err := os.Truncate(shard, st.Size()-7); err != nil {
		t.Fatal(err)
	}
	expectDamage(t, dir, shard, "truncated")
}

func TestTruncatedShardAtRecordBoundary(t *testing.T) {
	dir, shard := damagedDataset(t)
	// Cut exactly after record 49 so every remaining frame is valid: only
	// the record count can tell.
	data, _ := os.ReadFile(shard)
	fr, err := newFrameReader(shard, bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	var r Record
	for i := 0; i < 50; i++ {
		if err := fr.next(&r); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(shard, data[:fr.offset], 0o644); err != nil {
		t.Fatal(err)
	}
	expectDamage(t, dir, shard, "truncated: 50 records, the manifest lists 100")
}

func TestBitFlipsAreDetected(t *testing.T) {
	dir, shard := damagedDataset(t)
	orig, _ := os.ReadFile(shard)
	// Flip one bit at many places: header, length prefixes, payloads and
	// checksums. Every single flip must be caught by Scan (not only Verify,
	// whose SHA-256 would catch anything).
	for pos := 0; pos < len(orig); pos += 97 {
		for _, bit := range []byte{0x01, 0x80} {
			data := append([]byte(nil), orig...)
			data[pos] ^= bit
			if err := os.WriteFile(shard, data, 0o644); err != nil {
				t.Fatal(err)
			}
			d, _ := Open(dir)
			err := d.Scan(context.Background(), AllSplits, func(*Record) error { return nil })
			var se *ShardError
			if !errors.As(err, &se) || se.File != shard {
				t.Fatalf("flipping bit %#x of byte %d: Scan returned %v", bit, pos, err)
			}
		}
	}
	data := append([]byte(nil), orig...)
	data[len(data)/2] ^= 0x10
	os.WriteFile(shard, data, 0o644)
	expectDamage(t, dir, shard, "checksum mismatch")
}

func TestVerifyChecksSHA256AndMissingShard(t *testing.T) {
	dir, shard := damagedDataset(t)
	// Change one FEN character and fix that frame's checksum: every frame
	// checks out and the size is unchanged, so only the SHA-256 can tell.
	data, _ := os.ReadFile(shard)
	at := bytes.Index(data, []byte("rnbqkbnr"))
	data[at] = 'R'
	size, n := binary.Uvarint(data[len(shardMagic):])
	payload := data[len(shardMagic)+n : len(shardMagic)+n+int(size)]
	binary.LittleEndian.PutUint32(data[len(shardMagic)+n+int(size):], crc32.Checksum(payload, castagnoli))
	os.WriteFile(shard, data, 0o644)
	d, _ := Open(dir)
	err := d.Verify(context.Background())
	if err == nil || !strings.Contains(err.Error(), shard) || !strings.Contains(err.Error(), "SHA-256") {
		t.Errorf("Verify of a swapped shard: %v", err)
	}
	os.Remove(shard)
	err = d.Verify(context.Background())
	if err == nil || !strings.Contains(err.Error(), shard) {
		t.Errorf("Verify with a missing shard: %v", err)
	}
}

func TestDecodeRejectsTrailingAndUnknownFlags(t *testing.T) {
	r := sampleRecords(4, 4)[3]
	payload := appendRecord(nil, r, r.Key)
	var d payloadDecoder
	var got Record
	if err := d.decodeRecord(payload, &got); err != nil || !reflect.DeepEqual(&got, r) {
		t.Fatalf("decode: %v\n got %+v\nwant %+v", err, got, r)
	}
	if err := d.decodeRecord(append(payload, 0), &got); err == nil {
		t.Error("trailing byte accepted")
	}
	bad := append([]byte(nil), payload...)
	bad[0] |= 0x40
	if err := d.decodeRecord(bad, &got); err == nil {
		t.Error("unknown flag accepted")
	}
}

// Records without a clock or notes are encoded byte for byte as before
// those fields existed: the digest is of the payloads the code wrote then.
func TestPayloadsWithoutTheNewFieldsAreUnchanged(t *testing.T) {
	var all []byte
	for _, r := range sampleRecords(60, 7) {
		all = appendRecord(all, r, r.Key)
	}
	sum := sha256.Sum256(all)
	if got := hex.EncodeToString(sum[:]); got != "1bb478712e2ca7731f0d63a6d9b277c360be30cecb346f422a952fd3421a713d" || len(all) != 6521 {
		t.Errorf("payloads of records without clock or notes changed: %d bytes, sha256 %s", len(all), got)
	}
}

func TestClockAndNotesRoundTrip(t *testing.T) {
	var d payloadDecoder
	for i, r := range sampleRecords(6, 3) {
		r.ClockMS = uint32(i*60_000 + 1)
		if i%2 == 0 {
			r.Notes = `bm Qg6; id "WAC.001";`
		}
		if i == 5 {
			r.ClockMS = 0
		}
		payload := appendRecord(nil, r, r.Key)
		var got Record
		if err := d.decodeRecord(payload, &got); err != nil || !reflect.DeepEqual(&got, r) {
			t.Fatalf("record %d: %v\n got %+v\nwant %+v", i, err, got, *r)
		}
		// A record read into a variable that held a clock and notes
		// does not keep them.
		plain := sampleRecords(1, 1)[0]
		if err := d.decodeRecord(appendRecord(nil, plain, plain.Key), &got); err != nil || got.ClockMS != 0 || got.Notes != "" {
			t.Fatalf("a plain record decoded over record %d: %v, clock %d, notes %q", i, err, got.ClockMS, got.Notes)
		}
	}
	// A flag whose field is empty cannot come from the encoder.
	r := sampleRecords(1, 1)[0]
	r.Notes = "x"
	payload := appendRecord(nil, r, r.Key)
	var got Record
	if err := d.decodeRecord(payload[:len(payload)-1], &got); err == nil {
		t.Error("notes cut short accepted")
	}
	payload[len(payload)-2] = 0 // the notes' length
	if err := d.decodeRecord(payload[:len(payload)-1], &got); err == nil {
		t.Error("empty notes under the notes flag accepted")
	}
}

// A dataset takes format version 3 only when a stored record has a clock
// or notes; older readers refuse it as newer instead of calling it damaged.
func TestClockOrNotesRaiseTheFormatVersion(t *testing.T) {
	for _, tc := range []struct {
		name string
		set  func(*Record)
		want int
	}{
		{"plain", func(*Record) {}, baseFormatVersion},
		{"clock", func(r *Record) { r.ClockMS = 180_000 }, 3},
		{"notes", func(r *Record) { r.Notes = `id "x";` }, 3},
	} {
		dir := filepath.Join(t.TempDir(), tc.name)
		recs := sampleRecords(20, 5)
		tc.set(recs[7])
		writeDataset(t, dir, WriteOptions{}, recs)
		d, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		if v := d.Manifest().FormatVersion; v != tc.want {
			t.Errorf("%s: format version %d, want %d", tc.name, v, tc.want)
		}
		got := scanAll(t, d, AllSplits)
		if !reflect.DeepEqual(got[7], recs[7]) {
			t.Errorf("%s: read back %+v, want %+v", tc.name, got[7], recs[7])
		}
	}
}

// FuzzDecodeRecord: no input makes the decoder panic or over-allocate, and
// whatever decodes re-encodes to the same bytes.
func FuzzDecodeRecord(f *testing.F) {
	for _, r := range sampleRecords(30, 7) {
		f.Add(appendRecord(nil, r, r.Key))
	}
	for _, r := range sampleRecords(4, 2) {
		r.ClockMS, r.Notes = 61_000, `am Rd6; id "WAC.274";`
		f.Add(appendRecord(nil, r, r.Key))
	}
	f.Add([]byte{})
	f.Add([]byte{0, 0xff, 0xff, 0xff, 0xff, 0x0f})
	f.Fuzz(func(t *testing.T, payload []byte) {
		var d payloadDecoder
		var r Record
		if err := d.decodeRecord(payload, &r); err != nil {
			return
		}
		if again := appendRecord(nil, &r, r.Key); !bytes.Equal(again, payload) {
			// Non-canonical varints decode fine but re-encode shorter;
			// the decoded record must still be stable. Compared as bytes,
			// since a NaN win probability is not DeepEqual to itself.
			var r2 Record
			if err := d.decodeRecord(again, &r2); err != nil || !bytes.Equal(appendRecord(nil, &r2, r2.Key), again) {
				t.Fatalf("re-encoding changed the record: %v", err)
			}
		}
	})
}

// A jsonl export names the clock and notes only for records that have them.
func TestJSONHasClockAndNotesOnlyWhenSet(t *testing.T) {
	r := sampleRecords(1, 1)[0]
	plain, _ := json.Marshal(RecordToJSON(r, Train))
	if bytes.Contains(plain, []byte("clock_ms")) || bytes.Contains(plain, []byte("notes")) {
		t.Errorf("plain record exported as %s", plain)
	}
	r.ClockMS, r.Notes = 179_000, `id "x";`
	full, _ := json.Marshal(RecordToJSON(r, Train))
	if !bytes.Contains(full, []byte(`"clock_ms":179000,"notes":"id \"x\";"`)) {
		t.Errorf("record with clock and notes exported as %s", full)
	}
}
