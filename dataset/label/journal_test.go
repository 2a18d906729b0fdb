package label

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/dchess/dchess/dataset"
)

// journalEntries reads every intact entry of the journal in dir.
func journalEntries(t *testing.T, dir string) []entry {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, journalFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	jr := newJournalReader(f)
	var out []entry
	for {
		var e entry
		err := jr.next(&e)
		if err == io.EOF || errors.Is(err, errBadEntry) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, e)
	}
}

func sampleEntry(i uint64) entry {
	return entry{Index: i, Key: 0xfeedface00 + i, Label: dataset.Label{
		Status: dataset.LabelOK, Mate: -3, CP: 0, WinProb: 0, BestMove: "e7e8q", PV: []string{"e7e8q", "h1h2"},
		Depth: 17, Nodes: 123456789, MultiPV: []dataset.PVLine{{CP: -250, PV: []string{"a2a3"}}, {Mate: 2}},
	}}
}

func TestEntryRoundTrip(t *testing.T) {
	failed := entry{Index: 1 << 40, Key: 1, Label: dataset.Label{Status: dataset.LabelFailed, Error: "3 attempts failed"}}
	for _, want := range []entry{sampleEntry(7), failed} {
		framed := appendEntry(nil, &want)
		var got entry
		jr := newJournalReader(strings.NewReader(string(framed)))
		if err := jr.next(&got); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) || jr.Offset != int64(len(framed)) {
			t.Fatalf("got %+v at %d\nwant %+v at %d", got, jr.Offset, want, len(framed))
		}
	}
}

func TestDamagedEntriesAreDetected(t *testing.T) {
	e := sampleEntry(3)
	framed := appendEntry(nil, &e)
	for i := range framed {
		for _, bit := range []byte{1, 0x80} {
			bad := append([]byte(nil), framed...)
			bad[i] ^= bit
			var got entry
			if err := newJournalReader(strings.NewReader(string(bad))).next(&got); err == nil && reflect.DeepEqual(got, e) {
				t.Fatalf("flip of bit %#x in byte %d went unnoticed", bit, i)
			}
		}
	}
	for n := 1; n < len(framed); n++ {
		var got entry
		if err := newJournalReader(strings.NewReader(string(framed[:n]))).next(&got); !errors.Is(err, errBadEntry) {
			t.Fatalf("entry cut at %d bytes: %v", n, err)
		}
	}
}

func TestOpenJournalCutsTornTailAndKeepsLabels(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out.partial")
	settings := journalSettings{Version: journalVersion, Engine: "X", Depth: 8, Window: 16}
	j, err := openJournal(dir, settings)
	if err != nil {
		t.Fatal(err)
	}
	var buf []byte
	for _, i := range []uint64{1, 0, 2, 5} {
		e := sampleEntry(i)
		buf = appendEntry(buf, &e)
	}
	e := sampleEntry(4)
	torn := appendEntry(nil, &e)
	if err := j.append(append(buf, torn[:len(torn)-3]...)); err != nil {
		t.Fatal(err)
	}
	// A second run cannot take the journal while the first holds it.
	if _, err := openJournal(dir, settings); err == nil || !strings.Contains(err.Error(), "another dchess label") {
		t.Fatalf("second open: %v", err)
	}
	j.close()

	j, err = openJournal(dir, settings)
	if err != nil {
		t.Fatal(err)
	}
	defer j.close()
	if j.resumed != 4 || j.truncate != int64(len(torn)-3) {
		t.Fatalf("resumed %d, cut %d bytes", j.resumed, j.truncate)
	}
	for i, want := range []bool{true, true, true, false, false, true, false} {
		if j.done.has(uint64(i)) != want {
			t.Fatalf("done(%d) = %v", i, !want)
		}
	}
	if st, _ := os.Stat(filepath.Join(dir, journalFile)); st.Size() != int64(len(buf)) {
		t.Fatalf("journal is %d bytes after the cut, want %d", st.Size(), len(buf))
	}
	// New entries go after the cut.
	e = sampleEntry(3)
	if err := j.append(appendEntry(nil, &e)); err != nil {
		t.Fatal(err)
	}
	if got := journalEntries(t, dir); len(got) != 5 || got[4].Index != 3 {
		t.Fatalf("entries %+v", got)
	}
}

func TestOpenJournalRefusesOtherSettings(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out.partial")
	then := journalSettings{Version: journalVersion, InputFingerprint: "a", Engine: "Stockfish 15.1", Depth: 8, Hash: 16, PV: 8, MultiPV: 1, Window: 16}
	j, err := openJournal(dir, then)
	if err != nil {
		t.Fatal(err)
	}
	j.close()
	now := then
	now.Depth, now.PV = 10, 4
	now.InputFingerprint = "b"
	_, err = openJournal(dir, now)
	for _, want := range []string{"the input dataset's contents changed", "--depth 8 then, 10 now", "--pv 8 then, 4 now", "delete it to start over"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("got %v, want it to contain %q", err, want)
		}
	}
}

func TestLabelLookupFindsOutOfOrderEntries(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, journalFile)
	// Completion order within a window of 4; 9 was written far too late
	// (which the dispatcher never does) and is found by the rescan.
	var buf []byte
	for _, i := range []uint64{1, 0, 3, 2, 2, 5, 4, 6, 8, 7, 10, 11, 12, 13, 14, 9} {
		e := sampleEntry(i)
		buf = appendEntry(buf, &e)
	}
	if err := os.WriteFile(path, buf, 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := newLabelLookup(path, 4)
	if err != nil {
		t.Fatal(err)
	}
	defer l.close()
	for i := uint64(0); i <= 14; i++ {
		e, err := l.find(i)
		if err != nil || e.Index != i || e.Key != 0xfeedface00+i {
			t.Fatalf("find(%d) = %+v, %v", i, e, err)
		}
		if len(l.pending) > 8 {
			t.Fatalf("holding %d entries", len(l.pending))
		}
	}
	if _, err := l.find(15); err == nil || !strings.Contains(err.Error(), "no label for input record 15") {
		t.Fatalf("find(15): %v", err)
	}
}

func TestDoneSetStaysSmall(t *testing.T) {
	var s doneSet
	for _, i := range []uint64{2, 0, 1, 4, 3, 7} {
		s.add(i)
	}
	if s.prefix != 5 || len(s.sparse) != 1 || !s.has(7) || s.has(6) || !s.has(0) {
		t.Fatalf("%+v", s)
	}
}

func TestPositionTimeoutGrowsWithTheLimit(t *testing.T) {
	if a, b := positionTimeout(8, 0, 0), positionTimeout(20, 0, 0); a >= b || a < 10e9 {
		t.Fatalf("depth 8: %v, depth 20: %v", a, b)
	}
	if a, b := positionTimeout(0, 1000, 0), positionTimeout(0, 10_000_000, 0); a >= b {
		t.Fatalf("nodes: %v, %v", a, b)
	}
	if d := positionTimeout(0, 0, 60e9); d < 120e9 {
		t.Fatalf("movetime 60s: %v", d)
	}
}
