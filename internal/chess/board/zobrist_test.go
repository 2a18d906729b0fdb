package board

import "testing"

func TestKeyIsTheSameInEveryRun(t *testing.T) {
	// A constant catches keys that depend on a random seed drawn at start-up.
	if got := New().Key(); got != startKey {
		t.Errorf("start position key %#x, want %#x", got, startKey)
	}
}

func TestKeyDistinguishesWhatTheRuleDoes(t *testing.T) {
	base := mustFEN(t, "r3k2r/8/8/3pP3/8/8/8/R3K2R w KQkq d6 0 2")
	for _, other := range []string{
		"r3k2r/8/8/3pP3/8/8/8/R3K2R w KQkq - 0 2", // no en passant
		"r3k2r/8/8/3pP3/8/8/8/R3K2R w Kkq d6 0 2", // fewer rights
		"r3k2r/8/8/3pP3/8/8/8/R3K2R b KQkq - 0 2", // other side to move
	} {
		if mustFEN(t, other).Key() == base.Key() {
			t.Errorf("%s shares the key of %s", other, base.FEN())
		}
	}
	// Clocks do not matter.
	if mustFEN(t, "r3k2r/8/8/3pP3/8/8/8/R3K2R w KQkq d6 7 30").Key() != base.Key() {
		t.Error("move counters changed the key")
	}
}

const startKey uint64 = 0xdda4a064faf8ead2
