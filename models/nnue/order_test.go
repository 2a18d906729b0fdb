package nnue

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/dchess/dchess/models/dcw"
	"github.com/dchess/dchess/search"
)

// TestUnitOrderKeepsScores checks the load-time order of the accumulator's
// units on the shipped network: it is a permutation, every integer sum of
// the first layer and every score stays as it was in the trained order, on
// the bench positions' moves, and it makes more chunks of four bytes 0 for
// the sparse product to skip (what it made of each network shipped:
// docs/results/2026-11-26-nnue-node-speed-sparse.md).
func TestUnitOrderKeepsScores(t *testing.T) {
	f, err := dcw.Read(filepath.Join("..", "shipped", "nnue.dcw"))
	if err != nil {
		t.Fatal(err)
	}
	zeroA, zeroB, chunks := compareOrders(t, f)
	t.Logf("chunks of four bytes all 0: %.1f %% in the trained order, %.1f %% in the new", 100*float64(zeroA)/float64(chunks), 100*float64(zeroB)/float64(chunks))
	if zeroB < zeroA*3/2 {
		t.Errorf("the new order leaves %d of %d chunks 0, the trained %d: want half as many again", zeroB, chunks, zeroA)
	}
}

// TestUnitOrderKeepsPairwiseScores is TestUnitOrderKeepsScores for a small
// pairwise network, whose units move in pairs.
func TestUnitOrderKeepsPairwiseScores(t *testing.T) {
	c := smallConfigs()["pairwise"]
	m := newModel(t, c)
	_, _, params := train(t, m, m.InitParams(3), encodeBatch(t, m, materialSet(256, 3)), 150, 0.01)
	compareOrders(t, weightsFile(t, m, params))
}

// compareOrders checks that the load-time order of f's units is a
// permutation that keeps every integer sum of the first layer and every
// score on the bench positions' moves, and returns how many chunks of
// four bytes were 0 in the trained order and in the new, of how many.
func compareOrders(t *testing.T, f *dcw.File) (zeroA, zeroB, chunks int) {
	t.Helper()
	cfg, w, err := readWeights(f)
	if err != nil {
		t.Fatal(err)
	}
	trained, err := quantize(cfg, w)
	if err != nil {
		t.Fatal(err)
	}
	perm := trained.zeroGroups()
	units := make([]int, cfg.perView())
	for u := range units {
		units[u] = u
	}
	if !slices.Equal(slices.Sorted(slices.Values(perm)), units) {
		t.Fatalf("the order is not a permutation of the %d units: %v", len(units), perm)
	}
	if slices.IsSorted(perm) {
		t.Fatalf("the order is the trained one: the test compares nothing")
	}
	ordered, err := NewNet(f)
	if err != nil {
		t.Fatal(err)
	}
	zeroChunks := func(bytes []uint8) (n int) {
		for c := 0; c < len(bytes); c += 4 {
			if bytes[c]|bytes[c+1]|bytes[c+2]|bytes[c+3] == 0 {
				n++
			}
		}
		return n
	}
	a, b := NewEvaluator(trained), NewEvaluator(ordered)
	inputs := 2 * cfg.perView()
	for _, fen := range search.BenchPositions {
		bd := mustFEN(t, fen)
		a.Root(bd)
		b.Root(bd)
		for _, m := range bd.LegalMoves() {
			a.MakeMove(bd, m)
			b.MakeMove(bd, m)
			bd.Make(m)
			if sa, sb := a.Evaluate(bd), b.Evaluate(bd); sa != sb || !slices.Equal(a.scratch.sums, b.scratch.sums) {
				t.Fatalf("%s after %v: %d cp and sums %v in the trained order, %d cp and %v in the new", fen, m, sa, a.scratch.sums, sb, b.scratch.sums)
			}
			zeroA += zeroChunks(a.scratch.bytes[:inputs])
			zeroB += zeroChunks(b.scratch.bytes[:inputs])
			chunks += inputs / 4
			bd.Unmake()
			a.Unmake()
			b.Unmake()
		}
	}
	return zeroA, zeroB, chunks
}
