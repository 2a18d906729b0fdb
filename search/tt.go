package search

import "github.com/dchess/dchess/internal/chess/board"

// Bound says how a stored score relates to the true value.
type bound uint8

const (
	boundNone  bound = iota // empty slot
	boundExact              // alpha < score < beta
	boundLower              // failed high: the true value is at least score
	boundUpper              // failed low: the true value is at most score
)

// ttEntry is 16 bytes, so a two-slot bucket fills half a cache line.
type ttEntry struct {
	key   uint64
	move  board.Move
	score int16
	depth int8
	bound bound
	age   uint8
}

// ttBucket holds a depth-preferred slot (0) and an always-replace slot (1):
// deep results survive while fresh shallow ones still find room.
type ttBucket [2]ttEntry

// transpositionTable is a fixed-size Zobrist-keyed cache of search results.
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
	return transpositionTable{buckets: make([]ttBucket, size), mask: size - 1}
}

func (t *transpositionTable) clear() {
	clear(t.buckets)
	t.age = 0
}

func (t *transpositionTable) probe(key uint64) (ttEntry, bool) {
	b := &t.buckets[key&t.mask]
	for i := range b {
		if b[i].bound != boundNone && b[i].key == key {
			return b[i], true
		}
	}
	return ttEntry{}, false
}

func (t *transpositionTable) store(key uint64, move board.Move, score, depth, ply int, bd bound) {
	b := &t.buckets[key&t.mask]
	e := ttEntry{key: key, move: move, score: int16(scoreToTT(score, ply)), depth: int8(depth), bound: bd, age: t.age}
	for i := range b {
		if b[i].bound != boundNone && b[i].key == key {
			// Same position: keep a known best move when this result has none.
			if e.move == board.NullMove {
				e.move = b[i].move
			}
			if i == 0 && int(b[0].depth) > depth && b[0].age == t.age {
				// A deeper result from this search stays; the fresh one goes to slot 1.
				b[1] = e
				return
			}
			b[i] = e
			return
		}
	}
	if b[0].bound == boundNone || int(b[0].depth) <= depth || b[0].age != t.age {
		b[1] = b[0]
		b[0] = e
		return
	}
	b[1] = e
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
