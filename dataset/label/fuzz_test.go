package label

import (
	"bytes"
	"errors"
	"hash/crc32"
	"io"
	"testing"

	"github.com/dchess/dchess/dataset"
)

// FuzzJournalReader: no journal bytes panic the reader or make it allocate
// past its entry bound; it reads entries until a clean end or a bad one,
// each valid entry re-encodes to the bytes it was read from, and Offset
// counts exactly the bytes of the entries read (a rerun cuts a damaged tail
// there).
func FuzzJournalReader(f *testing.F) {
	good := []entry{
		{Index: 0, Key: 0x1234, Label: dataset.Label{Status: dataset.LabelOK, CP: 31, WinProb: 0.53, BestMove: "e2e4", PV: []string{"e2e4", "e7e5"}, Depth: 8, Nodes: 9000}},
		{Index: 7, Key: 99, Label: dataset.Label{Status: dataset.LabelOK, Mate: -3, BestMove: "a1a2", Depth: 12,
			MultiPV: []dataset.PVLine{{CP: 5, PV: []string{"g1f3"}}}}},
		{Index: 8, Label: dataset.Label{Status: dataset.LabelFailed, Error: "engine crashed"}},
	}
	var all []byte
	for i := range good {
		all = appendEntry(all, &good[i])
	}
	f.Add(all)
	f.Add(all[:len(all)-3])
	f.Add([]byte{entryMagic, 0xff, 0xff, 0xff, 0xff, 0x0f})
	f.Add(fuzzFrame([]byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 9}))
	f.Fuzz(func(t *testing.T, data []byte) {
		jr := newJournalReader(bytes.NewReader(data))
		var read []byte
		for {
			var e entry
			err := jr.next(&e)
			if err != nil {
				if err != io.EOF && !errors.Is(err, errBadEntry) {
					t.Fatalf("unexpected error %v", err)
				}
				break
			}
			read = appendEntry(read, &e)
			if int64(len(read)) > jr.Offset {
				t.Fatalf("entries re-encode to %d bytes, more than the %d read", len(read), jr.Offset)
			}
		}
		if jr.Offset > int64(len(data)) {
			t.Fatalf("offset %d past the %d bytes", jr.Offset, len(data))
		}
		// Varints may be written longer than needed, so re-encoding can
		// only shorten what was read; its entries must read back the same.
		again := newJournalReader(bytes.NewReader(read))
		for again.Offset < int64(len(read)) {
			var e entry
			if err := again.next(&e); err != nil {
				t.Fatalf("a re-encoded entry does not read: %v", err)
			}
		}
	})
}

// fuzzFrame frames payload as appendEntry does, with a valid checksum, so
// the fuzzer reaches decodeEntry.
func fuzzFrame(payload []byte) []byte {
	b := append([]byte{entryMagic}, byte(len(payload)))
	b = append(b, payload...)
	sum := crc32.Checksum(payload, castagnoli)
	return append(b, byte(sum), byte(sum>>8), byte(sum>>16), byte(sum>>24))
}
