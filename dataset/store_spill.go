package dataset

import (
	"bufio"
	"container/heap"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Partition counts: keys are spread over this many files while writing, so
// that each file's distinct keys fit the in-memory set at Close.
const (
	keyPartitions  = 256
	gamePartitions = 64
	// splitFanout is how many sub-partitions an overfull partition is split into.
	splitFanout = 16
	splitBits   = 4
)

// maxSetKeys bounds the distinct keys held in memory at once; the set's
// table has twice as many 8-byte slots, so 16 MB.
const maxSetKeys = 1 << 20

// mix64 is the splitmix64 finalizer: a bijection that spreads FNV keys and
// game IDs evenly over partitions and split buckets.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// keySpill writes (key, sequence) pairs into hash partitions on disk, each
// partition in the order the pairs were added. Processing one partition at a
// time finds first occurrences and repeats with memory bounded by maxSetKeys.
type keySpill struct {
	dir string
	// setSlots sizes the in-memory set (2*maxSetKeys); tests lower it to
	// force partitions to split.
	setSlots int
	bufSize  int
	// Partition files and their buffers are created on first use, so a
	// small dataset does not pay for hundreds of files.
	files []*os.File
	bufs  []*bufio.Writer
	pairs []int64
	pair  [16]byte
}

func newKeySpill(dir string, partitions, bufSize int) (*keySpill, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	return &keySpill{dir: dir, setSlots: 2 * maxSetKeys, bufSize: bufSize, files: make([]*os.File, partitions),
		bufs: make([]*bufio.Writer, partitions), pairs: make([]int64, partitions)}, nil
}

func (s *keySpill) partitionPath(p int) string {
	return filepath.Join(s.dir, fmt.Sprintf("part-%03d", p))
}

func (s *keySpill) partitionOf(key uint64) int {
	return int(mix64(key) >> 32 % uint64(len(s.files)))
}

func (s *keySpill) add(key, seq uint64) error {
	p := s.partitionOf(key)
	if s.files[p] == nil {
		if s.pairs[p] != 0 {
			return errors.New("dedupe: pair added after the spill was read")
		}
		f, err := os.Create(s.partitionPath(p))
		if err != nil {
			return err
		}
		s.files[p], s.bufs[p] = f, bufio.NewWriterSize(f, s.bufSize)
	}
	binary.LittleEndian.PutUint64(s.pair[:8], key)
	binary.LittleEndian.PutUint64(s.pair[8:], seq)
	s.pairs[p]++
	_, err := s.bufs[p].Write(s.pair[:])
	return err
}

// finishWriting flushes and closes the partition files.
func (s *keySpill) finishWriting() error {
	var first error
	for i, f := range s.files {
		if f == nil {
			continue
		}
		err := s.bufs[i].Flush()
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil && first == nil {
			first = err
		}
		s.files[i], s.bufs[i] = nil, nil
	}
	return first
}

func (s *keySpill) close() {
	for _, f := range s.files {
		if f != nil {
			f.Close()
		}
	}
	os.RemoveAll(s.dir)
}

// partitionVisitor sees each partition's pairs in added order.
type partitionVisitor interface {
	begin() error
	// repeat receives the sequence number of a pair whose key came earlier.
	repeat(seq uint64) error
	// abandon drops what begin and repeat produced: the partition had too
	// many distinct keys and is visited again as sub-partitions.
	abandon() error
	// end is called when a partition is done; set holds its distinct keys.
	end(set *keySet) error
	// splitDone is called after all sub-partitions of a split partition are
	// done; it lets the drop writer merge their files into one, so the
	// final merge never has more files open than there are partitions.
	splitStart() int
	splitDone(mark int) error
}

// visit processes every partition with set, splitting a partition whose
// distinct keys do not fit into sub-partitions by further hash bits.
func (s *keySpill) visit(set *keySet, v partitionVisitor) error {
	if err := s.finishWriting(); err != nil {
		return err
	}
	for i, pairs := range s.pairs {
		if pairs == 0 {
			continue
		}
		if err := visitPartition(s.partitionPath(i), pairs, 0, set, v); err != nil {
			return err
		}
	}
	return nil
}

func visitPartition(path string, pairs int64, level int, set *keySet, v partitionVisitor) error {
	fits, err := tryPartition(path, pairs, set, v)
	if err != nil || fits {
		return err
	}
	// Too many distinct keys: split by the next hash bits below the ones
	// that chose the partition. Each level divides the distinct keys by
	// about splitFanout, and a group left with one key always fits.
	shift := 32 - splitBits*(level+1)
	if shift < 0 {
		return errors.New("dedupe: cannot split a partition further")
	}
	subPaths, subPairs, err := splitPartition(path, shift)
	if err != nil {
		return err
	}
	mark := v.splitStart()
	for i, sub := range subPaths {
		if err := visitPartition(sub, subPairs[i], level+1, set, v); err != nil {
			return err
		}
		os.Remove(sub)
	}
	return v.splitDone(mark)
}

// tryPartition streams one partition file; it returns false, having
// abandoned its output, when the distinct keys overflow the set.
func tryPartition(path string, pairs int64, set *keySet, v partitionVisitor) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	set.reset(pairs)
	if err := v.begin(); err != nil {
		return false, err
	}
	br := bufio.NewReaderSize(f, 64<<10)
	var pair [16]byte
	for {
		if _, err := io.ReadFull(br, pair[:]); err == io.EOF {
			break
		} else if err != nil {
			return false, fmt.Errorf("dedupe partition %s: %w", path, err)
		}
		added, ok := set.add(binary.LittleEndian.Uint64(pair[:8]))
		if !ok {
			return false, v.abandon()
		}
		if !added {
			if err := v.repeat(binary.LittleEndian.Uint64(pair[8:])); err != nil {
				return false, err
			}
		}
	}
	return true, v.end(set)
}

func splitPartition(path string, shift int) ([]string, []int64, error) {
	in, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer in.Close()
	paths := make([]string, splitFanout)
	counts := make([]int64, splitFanout)
	files := make([]*os.File, splitFanout)
	bufs := make([]*bufio.Writer, splitFanout)
	closeAll := func() {
		for _, f := range files {
			if f != nil {
				f.Close()
			}
		}
	}
	for i := range files {
		paths[i] = fmt.Sprintf("%s.%x", path, i)
		if files[i], err = os.Create(paths[i]); err != nil {
			closeAll()
			return nil, nil, err
		}
		bufs[i] = bufio.NewWriterSize(files[i], 16<<10)
	}
	br := bufio.NewReaderSize(in, 64<<10)
	var pair [16]byte
	for {
		if _, err := io.ReadFull(br, pair[:]); err == io.EOF {
			break
		} else if err != nil {
			closeAll()
			return nil, nil, err
		}
		sub := mix64(binary.LittleEndian.Uint64(pair[:8])) >> uint(shift) % splitFanout
		counts[sub]++
		if _, err := bufs[sub].Write(pair[:]); err != nil {
			closeAll()
			return nil, nil, err
		}
	}
	for i, f := range files {
		err := bufs[i].Flush()
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		files[i] = nil
		if err != nil {
			closeAll()
			return nil, nil, err
		}
	}
	return paths, counts, nil
}

// countDistinct returns the number of distinct keys added, calling onFirst
// (when not nil) once for each, and removes the spill.
func (s *keySpill) countDistinct(onFirst func(key uint64)) (int64, error) {
	c := &distinctCounter{onFirst: onFirst}
	err := s.visit(newKeySet(s.setSlots), c)
	s.close()
	return c.n, err
}

type distinctCounter struct {
	n       int64
	onFirst func(uint64)
}

func (c *distinctCounter) begin() error        { return nil }
func (c *distinctCounter) repeat(uint64) error { return nil }
func (c *distinctCounter) abandon() error      { return nil }
func (c *distinctCounter) splitStart() int     { return 0 }
func (c *distinctCounter) splitDone(int) error { return nil }
func (c *distinctCounter) end(set *keySet) error {
	c.n += int64(set.len())
	if c.onFirst != nil {
		set.each(c.onFirst)
	}
	return nil
}

// duplicates finds every pair whose key was added before and returns their
// sequence numbers in increasing order, merged from files it writes in dropDir.
func (s *keySpill) duplicates(dropDir string) (*seqMerger, error) {
	if err := os.MkdirAll(dropDir, 0o755); err != nil {
		return nil, err
	}
	d := &dropWriter{dir: dropDir}
	err := s.visit(newKeySet(s.setSlots), d)
	s.close()
	if err != nil {
		d.abandon()
		return nil, err
	}
	return openSeqMerger(d.paths)
}

// dropWriter writes each partition's repeats to its own file. Pairs within a
// partition come in added order, so each file is sorted by sequence number.
type dropWriter struct {
	dir     string
	created int
	paths   []string
	file    *os.File
	buf     *bufio.Writer
	word    [8]byte
}

func (d *dropWriter) begin() error { return nil }

func (d *dropWriter) repeat(seq uint64) error {
	if d.file == nil {
		// The first repeat of a partition opens its file; partitions
		// without repeats leave none.
		path := d.newPath()
		f, err := os.Create(path)
		if err != nil {
			return err
		}
		d.paths = append(d.paths, path)
		d.file = f
		if d.buf == nil {
			d.buf = bufio.NewWriterSize(f, 16<<10)
		} else {
			d.buf.Reset(f)
		}
	}
	binary.LittleEndian.PutUint64(d.word[:], seq)
	_, err := d.buf.Write(d.word[:])
	return err
}

func (d *dropWriter) abandon() error {
	if d.file == nil {
		return nil
	}
	d.file.Close()
	d.file = nil
	path := d.paths[len(d.paths)-1]
	d.paths = d.paths[:len(d.paths)-1]
	return os.Remove(path)
}

func (d *dropWriter) end(*keySet) error {
	if d.file == nil {
		return nil
	}
	err := d.buf.Flush()
	if cerr := d.file.Close(); err == nil {
		err = cerr
	}
	d.file = nil
	return err
}

// newPath names a new drop file; names are never reused, so a merged file
// cannot collide with one of the files it is merged from.
func (d *dropWriter) newPath() string {
	d.created++
	return filepath.Join(d.dir, fmt.Sprintf("drops-%06d", d.created))
}

func (d *dropWriter) splitStart() int { return len(d.paths) }

// splitDone merges the drop files written since mark into one sorted file.
func (d *dropWriter) splitDone(mark int) error {
	parts := d.paths[mark:]
	if len(parts) <= 1 {
		return nil
	}
	merger, err := openSeqMerger(parts)
	if err != nil {
		return err
	}
	defer merger.close()
	path := d.newPath()
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 16<<10)
	var word [8]byte
	for {
		seq, err := merger.next()
		if err != nil {
			f.Close()
			return err
		}
		if seq == noMoreSeq {
			break
		}
		binary.LittleEndian.PutUint64(word[:], seq)
		if _, err := bw.Write(word[:]); err != nil {
			f.Close()
			return err
		}
	}
	err = bw.Flush()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	for _, p := range parts {
		os.Remove(p)
	}
	d.paths = append(d.paths[:mark], path)
	return nil
}

// seqMerger yields the union of sorted files of sequence numbers in
// increasing order, reading each file through a small buffer.
type seqMerger struct {
	heap seqHeap
}

type seqSource struct {
	file *os.File
	buf  *bufio.Reader
	head uint64
}

type seqHeap []*seqSource

func (h seqHeap) Len() int           { return len(h) }
func (h seqHeap) Less(i, j int) bool { return h[i].head < h[j].head }
func (h seqHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *seqHeap) Push(x any)        { *h = append(*h, x.(*seqSource)) }
func (h *seqHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// noMoreSeq is what seqMerger.next returns once every file is exhausted; no
// real sequence number reaches it.
const noMoreSeq = ^uint64(0)

func openSeqMerger(paths []string) (*seqMerger, error) {
	m := &seqMerger{}
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			m.close()
			return nil, err
		}
		src := &seqSource{file: f, buf: bufio.NewReaderSize(f, 4<<10)}
		ok, err := src.advance()
		if err != nil {
			f.Close()
			m.close()
			return nil, err
		}
		if ok {
			m.heap = append(m.heap, src)
		} else {
			f.Close()
		}
	}
	heap.Init(&m.heap)
	return m, nil
}

func (s *seqSource) advance() (bool, error) {
	var b [8]byte
	if _, err := io.ReadFull(s.buf, b[:]); err == io.EOF {
		return false, nil
	} else if err != nil {
		return false, fmt.Errorf("dedupe drops %s: %w", s.file.Name(), err)
	}
	s.head = binary.LittleEndian.Uint64(b[:])
	return true, nil
}

// next returns the smallest sequence number not yet returned, or noMoreSeq.
func (m *seqMerger) next() (uint64, error) {
	if len(m.heap) == 0 {
		return noMoreSeq, nil
	}
	top := m.heap[0]
	v := top.head
	ok, err := top.advance()
	if err != nil {
		return 0, err
	}
	if ok {
		heap.Fix(&m.heap, 0)
	} else {
		top.file.Close()
		heap.Pop(&m.heap)
	}
	return v, nil
}

func (m *seqMerger) close() {
	for _, s := range m.heap {
		s.file.Close()
	}
	m.heap = nil
}

// keySet is an open-addressing hash set of uint64 keys with a fixed table
// allocated once and reused for every partition, so its memory is bounded
// by maxSetKeys whatever the dataset size.
type keySet struct {
	table   []uint64 // 0 marks an empty slot; key 0 is tracked by hasZero
	mask    uint64
	n       int
	hasZero bool
}

func newKeySet(slots int) *keySet { return &keySet{table: make([]uint64, slots)} }

// reset empties the set, sizing the used part of the table for up to
// expected keys so small partitions do not clear the whole table.
func (s *keySet) reset(expected int64) {
	size := min(16, len(s.table))
	for int64(size) < 2*expected && size < len(s.table) {
		size *= 2
	}
	s.mask = uint64(size - 1)
	clear(s.table[:size])
	s.n = 0
	s.hasZero = false
}

// add inserts key; added is false when it was already present, ok is false
// when the set is full (more than half the table used).
func (s *keySet) add(key uint64) (added, ok bool) {
	if key == 0 {
		if s.hasZero {
			return false, true
		}
		s.hasZero = true
		s.n++
		return true, true
	}
	i := mix64(key) & s.mask
	for {
		switch s.table[i] {
		case key:
			return false, true
		case 0:
			if uint64(s.n+1) > (s.mask+1)/2 {
				return false, false
			}
			s.table[i] = key
			s.n++
			return true, true
		}
		i = (i + 1) & s.mask
	}
}

func (s *keySet) len() int { return s.n }

func (s *keySet) each(fn func(uint64)) {
	if s.hasZero {
		fn(0)
	}
	for _, k := range s.table[:s.mask+1] {
		if k != 0 {
			fn(k)
		}
	}
}
