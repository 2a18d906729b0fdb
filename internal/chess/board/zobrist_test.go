package board

import (
	"math/rand/v2"
	"testing"
)

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

// TestKeyAfterIsTheKeyOfMostMoves: KeyAfter is the key Make gives for
// every move that changes no castling right and has no en-passant file on
// either side of it (it is allowed to miss those), which in games from the
// perft positions is nearly every move.
func TestKeyAfterIsTheKeyOfMostMoves(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	exact, moves := 0, 0
	for _, fen := range []string{StartFEN,
		"r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
		"rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
		"8/P6k/8/8/8/8/8/K7 w - - 0 1",
	} {
		for game := 0; game < 20; game++ {
			b := mustFEN(t, fen)
			for ply := 0; ply < 80; ply++ {
				legal := b.LegalMoves()
				if len(legal) == 0 {
					break
				}
				for _, m := range legal {
					want, epBefore, castle := b.KeyAfter(m), b.epCapturable(), b.castle
					b.Make(m)
					simple := !epBefore && !b.epCapturable() && b.castle == castle
					if b.Key() == want {
						exact++
					} else if simple {
						t.Fatalf("%s: KeyAfter(%s) = %#x, Make gives %#x", b.FEN(), UCI(m), want, b.Key())
					}
					moves++
					b.Unmake()
				}
				b.Make(legal[rng.IntN(len(legal))])
			}
		}
	}
	if exact < moves*9/10 {
		t.Errorf("KeyAfter was the key of %d of %d moves", exact, moves)
	}
}
