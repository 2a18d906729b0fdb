package board

import "testing"

// BenchmarkFromFEN parses a middlegame FEN, as every training stream does
// for each record it reads.
func BenchmarkFromFEN(b *testing.B) {
	const fen = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
	for b.Loop() {
		if _, err := FromFEN(fen); err != nil {
			b.Fatal(err)
		}
	}
}
