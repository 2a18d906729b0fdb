package search

import (
	"sync/atomic"
	"unsafe"

	"github.com/dchess/dchess/internal/chess/board"
)

// Bound says how a stored score relates to the true value.
type bound uint8

const (
	boundNone  bound = iota // empty slot
	boundExact              // alpha < score < beta
	boundLower              // failed high: the true value is at least score
	boundUpper              // failed low: the true value is at most score
)

// ttEntry is one stored result, as probe returns it.
type ttEntry struct {
	key   uint64
	move  board.Move
	score int16
	depth int8
	bound bound
	age   uint8
}

// ttSlot holds one entry in two 64-bit words that are each read and
// written atomically: data packs everything but the key, check is the key
// XORed with data. Threads of a parallel search share the table without a
// lock: a slot that one thread reads while another writes it may pair a
// new word with an old one, and then check^data is not the key probed, so
// the torn slot reads as a miss (Hyatt and Mann's lockless hashing). A
// move that still slips through is harmless: the search only compares it
// with the legal moves it generates.
type ttSlot struct {
	check atomic.Uint64
	data  atomic.Uint64
}

// Bit layout of ttSlot.data: move in bits 0-15, score 16-31, depth
// 32-39, bound 40-47, age 48-55. An empty slot is all zero, boundNone.
func packEntry(e ttEntry) uint64 {
	return uint64(e.move) | uint64(uint16(e.score))<<16 | uint64(uint8(e.depth))<<32 |
		uint64(e.bound)<<40 | uint64(e.age)<<48
}

func unpackEntry(key, data uint64) ttEntry {
	return ttEntry{key: key, move: board.Move(data), score: int16(data >> 16), depth: int8(data >> 32),
		bound: bound(data >> 40), age: uint8(data >> 48)}
}

// load reads the slot's words: the entry they hold, keyed by check^data.
func (s *ttSlot) load() (ttEntry, uint64, uint64) {
	data := s.data.Load()
	check := s.check.Load()
	return unpackEntry(check^data, data), check, data
}

func (s *ttSlot) put(check, data uint64) {
	s.data.Store(data)
	s.check.Store(check)
}

// ttBucket holds a depth-preferred slot (0) and an always-replace slot (1):
// deep results survive while fresh shallow ones still find room. 32
// bytes, so two buckets fill a cache line.
type ttBucket [2]ttSlot

// transpositionTable is a fixed-size Zobrist-keyed cache of search
// results. Copies of it share the buckets: that is how the threads of a
// parallel search share one table (each copy carries the search's age).
type transpositionTable struct {
	buckets []ttBucket
	mask    uint64
	age     uint8
}

const bucketBytes = 32

func newTranspositionTable(megabytes int) transpositionTable {
	n := uint64(megabytes) << 20 / bucketBytes
	// A power of two lets the index be a mask; round down to stay within budget.
	size := uint64(1)
	for size*2 <= n {
		size *= 2
	}
	size = max(size, 1024)
	buckets := make([]ttBucket, size)
	adviseHugePages(unsafe.Pointer(&buckets[0]), uintptr(size)*bucketBytes)
	return transpositionTable{buckets: buckets, mask: size - 1}
}

// hashfull is the per-mille of the table the running search filled, as
// UCI's "hashfull": the share of the first 1000 slots (or all, in a
// smaller table) that hold an entry of this search's age.
func (t *transpositionTable) hashfull() int {
	n := min(len(t.buckets), 500)
	used := 0
	for i := range n {
		for j := range t.buckets[i] {
			if e, _, _ := t.buckets[i][j].load(); e.bound != boundNone && e.age == t.age {
				used++
			}
		}
	}
	return used * 1000 / (2 * n)
}

// clear empties the table; no search may be running.
func (t *transpositionTable) clear() {
	clear(t.buckets)
	t.age = 0
}

// ttWrites lists the buckets one thread has filled since the table was
// last emptied (each once: when its store found it empty), so that emptying it after a short search (an eval of
// many positions at a small depth, each a new game) zeroes those buckets
// instead of the whole table, which costs more than the search. Each
// thread keeps its own list: no lock or atomic on the store path. Past
// maxWrites the list gives up and the whole table is cleared.
type ttWrites struct {
	buckets  []uint32
	overflow bool
}

// maxTTWrites bounds a thread's list: beyond an eighth of the buckets,
// clearing them one by one gains little over clearing the table.
func maxTTWrites(t *transpositionTable) int { return len(t.buckets) / 8 }

func (w *ttWrites) note(t *transpositionTable, key uint64) {
	if w.overflow {
		return
	}
	if len(w.buckets) >= maxTTWrites(t) {
		w.overflow, w.buckets = true, w.buckets[:0]
		return
	}
	w.buckets = append(w.buckets, uint32(key&t.mask))
}

// clearWritten empties the table as clear does, zeroing only the buckets
// the threads' lists name when none overflowed, and empties the lists.
func (t *transpositionTable) clearWritten(lists ...*ttWrites) {
	whole := false
	for _, w := range lists {
		whole = whole || w.overflow
	}
	if whole {
		clear(t.buckets)
	} else {
		for _, w := range lists {
			for _, i := range w.buckets {
				t.buckets[i] = ttBucket{}
			}
		}
	}
	for _, w := range lists {
		w.buckets, w.overflow = w.buckets[:0], false
	}
	t.age = 0
}

// prefetch starts bringing key's bucket into the cache: the search calls
// it before making a move, so the probe at the next node does not wait
// for memory (a quarter of the search's time went there).
func (t *transpositionTable) prefetch(key uint64) { prefetchBucket(&t.buckets[key&t.mask]) }

func (t *transpositionTable) probe(key uint64) (ttEntry, bool) {
	b := &t.buckets[key&t.mask]
	for i := range b {
		if e, _, _ := b[i].load(); e.bound != boundNone && e.key == key {
			return e, true
		}
	}
	return ttEntry{}, false
}

// store keeps a result in its bucket and says whether the bucket held
// nothing before (so a thread lists each bucket once, when it first fills).
func (t *transpositionTable) store(key uint64, move board.Move, score, depth, ply int, bd bound) (wasEmpty bool) {
	b := &t.buckets[key&t.mask]
	e := ttEntry{key: key, move: move, score: int16(scoreToTT(score, ply)), depth: int8(depth), bound: bd, age: t.age}
	e0, check0, data0 := b[0].load()
	e1, _, _ := b[1].load()
	wasEmpty = e0.bound == boundNone && e1.bound == boundNone
	for i, old := range [2]ttEntry{e0, e1} {
		if old.bound != boundNone && old.key == key {
			// Same position: keep a known best move when this result has none.
			if e.move == board.NullMove {
				e.move = old.move
			}
			slot := i
			if i == 0 && int(old.depth) > depth && old.age == t.age {
				// A deeper result from this search stays; the fresh one goes to slot 1.
				slot = 1
			}
			data := packEntry(e)
			b[slot].put(key^data, data)
			return wasEmpty
		}
	}
	data := packEntry(e)
	if e0.bound == boundNone || int(e0.depth) <= depth || e0.age != t.age {
		b[1].put(check0, data0)
		b[0].put(key^data, data)
		return wasEmpty
	}
	b[1].put(key^data, data)
	return wasEmpty
}

// cutoff returns the stored score, seen from ply, when its bound settles
// the window (alpha, beta).
func (en ttEntry) cutoff(ply, alpha, beta int) (int, bool) {
	s := scoreFromTT(int(en.score), ply)
	switch {
	case en.bound == boundExact,
		en.bound == boundLower && s >= beta,
		en.bound == boundUpper && s <= alpha:
		return s, true
	}
	return 0, false
}

// boundOf says what a fail-soft result best, searched in the window
// (alpha, beta), tells of the true value.
func boundOf(best, alpha, beta int) bound {
	switch {
	case best >= beta:
		return boundLower
	case best > alpha:
		return boundExact
	}
	return boundUpper
}

// Mate scores are stored relative to the node, not the root, so a mate
// found through one path reads correctly when reached at another ply.
func scoreToTT(score, ply int) int {
	switch {
	case score >= mateBound:
		return score + ply
	case score <= -mateBound:
		return score - ply
	}
	return score
}

func scoreFromTT(score, ply int) int {
	switch {
	case score >= mateBound:
		return score - ply
	case score <= -mateBound:
		return score + ply
	}
	return score
}
