package label

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/dchess/dchess/internal/safefile"

	"github.com/dchess/dchess/dataset"
	"github.com/dchess/dchess/internal/wire"
)

// The journal keeps finished labels while a run is in progress, in the
// folder OUTPUT.partial beside the output dataset:
//
//	settings.json  what the labels depend on; a resume must match it
//	labels.journal entries in completion order, each framed as
//	               0xD7 | uvarint length | payload | CRC32C(payload) LE
//	lock           held (flock) by the run writing the journal
//
// A payload is the record's index in the input, its position key and its
// label (see appendEntry). Entries are appended in small batches; a kill
// can leave a torn last batch, which a resume cuts off.
//
// Entries come in completion order, not input order, but the dispatcher
// never hands out a record Window or more places after the oldest
// unfinished one. So an entry is never preceded by one whose index is
// Window or more larger, in this run or across resumes, and the final merge
// finds each record's label with a look-ahead of Window entries.
const (
	settingsFile = "settings.json"
	journalFile  = "labels.journal"
	lockFile     = "lock"

	entryMagic      = 0xD7
	maxEntryBytes   = 1 << 20
	journalVersion  = 1
	partialSuffix   = ".partial"
	minWindow       = 8192
	windowPerWorker = 512
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// journalSettings are what labels depend on. A journal is only resumed with
// equal settings, so the final dataset never mixes labels of two searches.
type journalSettings struct {
	Version int `json:"version"`
	// InputFingerprint hashes the input manifest's shard checksums: the
	// journal's record indices only mean something for the same input.
	InputFingerprint string `json:"input_fingerprint"`
	InputRecords     int64  `json:"input_records"`
	// Shard is the task ("3/64") of a sharded run: its record indices
	// count only the records that shard owns.
	Shard      string `json:"shard,omitempty"`
	Engine     string `json:"engine"`
	Depth      int    `json:"depth"`
	Nodes      int64  `json:"nodes"`
	MoveTimeMs int64  `json:"movetime_ms"`
	Hash       int    `json:"hash_mb"`
	PV         int    `json:"pv"`
	MultiPV    int    `json:"multipv"`
	// Window is fixed when the journal is created, since the merge relies on
	// every run having dispatched within it.
	Window int64 `json:"window"`
}

// difference names the first setting that differs, as flags a user would type.
func (s journalSettings) difference(now journalSettings) string {
	var diffs []string
	add := func(what string, then, cur any) {
		if fmt.Sprint(then) != fmt.Sprint(cur) {
			diffs = append(diffs, fmt.Sprintf("%s %v then, %v now", what, then, cur))
		}
	}
	if s.InputFingerprint != now.InputFingerprint || s.InputRecords != now.InputRecords {
		diffs = append(diffs, "the input dataset's contents changed")
	}
	add("engine", fmt.Sprintf("%q", s.Engine), fmt.Sprintf("%q", now.Engine))
	add("--shard", fmt.Sprintf("%q", s.Shard), fmt.Sprintf("%q", now.Shard))
	add("--depth", s.Depth, now.Depth)
	add("--nodes", s.Nodes, now.Nodes)
	add("--movetime", s.MoveTimeMs, now.MoveTimeMs)
	add("--hash", s.Hash, now.Hash)
	add("--pv", s.PV, now.PV)
	add("--multipv", s.MultiPV, now.MultiPV)
	if s.Version != now.Version {
		diffs = append(diffs, fmt.Sprintf("journal version %d, this dchess writes %d", s.Version, now.Version))
	}
	return strings.Join(diffs, "; ")
}

// entry is one finished label. The label's Engine is not stored: it is the
// journal's, from settings.
type entry struct {
	Index uint64
	Key   uint64
	Label dataset.Label
}

func appendStrings(b []byte, ss []string) []byte {
	b = binary.AppendUvarint(b, uint64(len(ss)))
	for _, s := range ss {
		b = wire.AppendString(b, s)
	}
	return b
}

// appendEntry appends the framed entry to b.
func appendEntry(b []byte, e *entry) []byte {
	l := &e.Label
	p := binary.AppendUvarint(nil, e.Index)
	p = binary.LittleEndian.AppendUint64(p, e.Key)
	p = append(p, byte(l.Status))
	p = binary.AppendVarint(p, int64(l.Mate))
	p = binary.AppendVarint(p, int64(l.CP))
	p = binary.LittleEndian.AppendUint32(p, math.Float32bits(l.WinProb))
	p = wire.AppendString(p, l.BestMove)
	p = appendStrings(p, l.PV)
	p = binary.AppendUvarint(p, uint64(l.Depth))
	p = binary.AppendUvarint(p, l.Nodes)
	p = binary.AppendUvarint(p, uint64(len(l.MultiPV)))
	for _, line := range l.MultiPV {
		p = binary.AppendVarint(p, int64(line.Mate))
		p = binary.AppendVarint(p, int64(line.CP))
		p = appendStrings(p, line.PV)
	}
	p = wire.AppendString(p, l.Error)
	b = append(b, entryMagic)
	b = binary.AppendUvarint(b, uint64(len(p)))
	b = append(b, p...)
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(p, castagnoli))
}

var errBadEntry = errors.New("malformed journal entry")

// entryDecoder reads a payload (wire.Decoder: the first overrun or bad
// value sets Bad and every later read returns zero).
type entryDecoder struct{ wire.Decoder }

func (d *entryDecoder) strs() []string {
	n := d.Uvarint()
	if n > uint64(len(d.B)) { // each string takes at least one byte
		d.Fail()
		return nil
	}
	if n == 0 {
		return nil
	}
	ss := make([]string, n)
	for i := range ss {
		ss[i] = d.Str()
	}
	return ss
}

func decodeEntry(payload []byte, e *entry) error {
	d := entryDecoder{wire.Decoder{B: payload}}
	e.Index = d.Uvarint()
	e.Key = binary.LittleEndian.Uint64(d.Fixed(8))
	l := dataset.Label{Status: dataset.LabelStatus(d.Byte())}
	l.Mate = d.Int32()
	l.CP = d.Int32()
	l.WinProb = math.Float32frombits(binary.LittleEndian.Uint32(d.Fixed(4)))
	l.BestMove = d.Str()
	l.PV = d.strs()
	depth := d.Uvarint()
	l.Nodes = d.Uvarint()
	lines := d.Uvarint()
	if depth > math.MaxUint16 || lines > uint64(len(d.B)) {
		d.Fail()
	}
	l.Depth = uint16(depth)
	for i := uint64(0); i < lines && !d.Bad; i++ {
		line := dataset.PVLine{Mate: d.Int32(), CP: d.Int32()}
		line.PV = d.strs()
		l.MultiPV = append(l.MultiPV, line)
	}
	l.Error = d.Str()
	if !d.Bad && (len(d.B) != 0 || (l.Status != dataset.LabelOK && l.Status != dataset.LabelFailed)) {
		d.Fail()
	}
	e.Label = l
	if d.Bad {
		return errBadEntry
	}
	return nil
}

// journalReader reads entries in order. Offset is where the next entry
// starts, so a damaged tail can be cut off there.
type journalReader struct {
	r      *bufio.Reader
	Offset int64
}

func newJournalReader(r io.Reader) *journalReader {
	return &journalReader{r: bufio.NewReaderSize(r, 256<<10)}
}

// next returns io.EOF at a clean end and errBadEntry for a torn or damaged
// entry (which a kill in the middle of a write leaves at the end).
func (jr *journalReader) next(e *entry) error {
	magic, err := jr.r.ReadByte()
	if err == io.EOF {
		return io.EOF
	}
	if err != nil {
		return err
	}
	if magic != entryMagic {
		return errBadEntry
	}
	n, err := binary.ReadUvarint(jr.r)
	if err != nil || n > maxEntryBytes {
		return errBadEntry
	}
	buf := make([]byte, n+4)
	if _, err := io.ReadFull(jr.r, buf); err != nil {
		return errBadEntry
	}
	payload := buf[:n]
	if binary.LittleEndian.Uint32(buf[n:]) != crc32.Checksum(payload, castagnoli) {
		return errBadEntry
	}
	if err := decodeEntry(payload, e); err != nil {
		return err
	}
	jr.Offset += 1 + int64(wire.UvarintLen(n)) + int64(n) + 4
	return nil
}

// doneSet records which input indices have a label: all below prefix, plus
// the few above it in sparse. The window keeps sparse small.
type doneSet struct {
	prefix uint64
	sparse map[uint64]bool
}

func (s *doneSet) add(i uint64) {
	if i < s.prefix {
		return
	}
	if s.sparse == nil {
		s.sparse = map[uint64]bool{}
	}
	s.sparse[i] = true
	for s.sparse[s.prefix] {
		delete(s.sparse, s.prefix)
		s.prefix++
	}
}

func (s *doneSet) has(i uint64) bool { return i < s.prefix || s.sparse[i] }

// journal is an open journal folder.
type journal struct {
	dir      string
	settings journalSettings
	file     *os.File
	unlock   func()
	// What earlier runs left: their labels' indices and counts.
	done     doneSet
	resumed  int64
	failed   int64
	truncate int64 // bytes of a torn tail cut off on open
}

// partialDir is the journal folder of an output dataset.
func partialDir(output string) string { return filepath.Clean(output) + partialSuffix }

// openJournal resumes the journal in dir if there is one with the same
// settings, or starts a new one.
func openJournal(dir string, want journalSettings) (*journal, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("journal %s: %w", dir, err)
	}
	unlock, err := safefile.Lock(filepath.Join(dir, lockFile))
	if errors.Is(err, safefile.ErrLocked) {
		return nil, fmt.Errorf("journal %s: another dchess label is writing this journal", dir)
	}
	if err != nil {
		return nil, fmt.Errorf("journal %s: %w", dir, err)
	}
	j := &journal{dir: dir, unlock: unlock}
	if err := j.open(want); err != nil {
		unlock()
		return nil, err
	}
	return j, nil
}

func (j *journal) open(want journalSettings) error {
	settingsPath := filepath.Join(j.dir, settingsFile)
	journalPath := filepath.Join(j.dir, journalFile)
	raw, err := os.ReadFile(settingsPath)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		// A new journal, or one killed before its settings were written
		// (then it cannot hold labels yet, since they are written after).
		if st, err := os.Stat(journalPath); err == nil && st.Size() > 0 {
			return fmt.Errorf("journal %s has labels but no %s; delete the folder to start over", j.dir, settingsFile)
		}
		if err := writeFileAtomic(settingsPath, want); err != nil {
			return fmt.Errorf("journal %s: %w", j.dir, err)
		}
		j.settings = want
	case err != nil:
		return fmt.Errorf("journal %s: %w", j.dir, err)
	default:
		if err := json.Unmarshal(raw, &j.settings); err != nil {
			return fmt.Errorf("journal %s: damaged %s (%v); delete the folder to start over", j.dir, settingsFile, err)
		}
		if diff := j.settings.difference(want); diff != "" {
			return fmt.Errorf("cannot resume: %s was started with other settings (%s); run with the same settings or delete it to start over", j.dir, diff)
		}
	}
	f, err := os.OpenFile(journalPath, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("journal %s: %w", j.dir, err)
	}
	jr := newJournalReader(f)
	var e entry
	for {
		err := jr.next(&e)
		if err == io.EOF {
			break
		}
		if errors.Is(err, errBadEntry) {
			// A torn or damaged tail: keep what precedes it; those labels
			// are computed again.
			st, statErr := f.Stat()
			if statErr != nil {
				f.Close()
				return fmt.Errorf("journal %s: %w", j.dir, statErr)
			}
			j.truncate = st.Size() - jr.Offset
			if err := f.Truncate(jr.Offset); err != nil {
				f.Close()
				return fmt.Errorf("journal %s: cut damaged tail: %w", j.dir, err)
			}
			break
		}
		if err != nil {
			f.Close()
			return fmt.Errorf("journal %s: %w", j.dir, err)
		}
		if j.done.has(e.Index) {
			continue
		}
		j.done.add(e.Index)
		j.resumed++
		if e.Label.Status == dataset.LabelFailed {
			j.failed++
		}
	}
	if _, err := f.Seek(jr.Offset, io.SeekStart); err != nil {
		f.Close()
		return fmt.Errorf("journal %s: %w", j.dir, err)
	}
	j.file = f
	return nil
}

// append writes framed entries and makes them survive a kill of dchess.
func (j *journal) append(framed []byte) error {
	if _, err := j.file.Write(framed); err != nil {
		return fmt.Errorf("journal %s: %w", j.dir, err)
	}
	return nil
}

// sync makes appended entries survive a crash of the machine.
func (j *journal) sync() error { return j.file.Sync() }

func (j *journal) close() error {
	err := j.file.Close()
	j.unlock()
	return err
}

// remove deletes the journal folder once the output dataset is in place.
func (j *journal) remove() error {
	j.close()
	return os.RemoveAll(j.dir)
}

func writeFileAtomic(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return safefile.WriteFile(path, append(data, '\n'))
}

// labelLookup finds the label of input record i while the input is read in
// order, holding only entries within the window ahead.
type labelLookup struct {
	path    string
	window  uint64
	file    *os.File
	reader  *journalReader
	pending map[uint64]entry
	maxSeen uint64
	eof     bool
}

func newLabelLookup(path string, window int64) (*labelLookup, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	return &labelLookup{path: path, window: uint64(window), file: f, reader: newJournalReader(f), pending: map[uint64]entry{}}, nil
}

func (l *labelLookup) close() error { return l.file.Close() }

// find returns the entry for index i. Reading stops once an entry Window
// past i is seen, since i cannot come after it; if the window property were
// ever broken, a full rescan still finds the entry, only slower.
func (l *labelLookup) find(i uint64) (entry, error) {
	for {
		if e, ok := l.pending[i]; ok {
			delete(l.pending, i)
			return e, nil
		}
		if l.eof || (l.maxSeen >= i+l.window) {
			return l.rescan(i)
		}
		var e entry
		err := l.reader.next(&e)
		if err == io.EOF || errors.Is(err, errBadEntry) {
			l.eof = true
			continue
		}
		if err != nil {
			return entry{}, err
		}
		if e.Index < i {
			continue // a duplicate of a label already used
		}
		if _, dup := l.pending[e.Index]; !dup {
			l.pending[e.Index] = e
		}
		l.maxSeen = max(l.maxSeen, e.Index)
	}
}

func (l *labelLookup) rescan(i uint64) (entry, error) {
	f, err := os.Open(l.path)
	if err != nil {
		return entry{}, err
	}
	defer f.Close()
	jr := newJournalReader(f)
	var e entry
	for jr.next(&e) == nil {
		if e.Index == i {
			return e, nil
		}
	}
	return entry{}, fmt.Errorf("journal %s has no label for input record %d", l.path, i)
}
