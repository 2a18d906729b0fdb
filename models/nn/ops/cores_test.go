package ops

import (
	"runtime"
	"slices"
	"testing"
)

// sameOnAnyCores runs an op's graph on one core and on three and fails
// unless every result (the output, then the gradients, in the order run
// returns them and what names) is the same bits: resumed training runs
// must repeat exactly whatever the machine.
func sameOnAnyCores(t *testing.T, what string, run func(t *testing.T) [][]float32) {
	t.Helper()
	var results [2][][]float32
	for i, procs := range []int{1, 3} {
		func() {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			results[i] = run(t)
		}()
	}
	for i, want := range results[0] {
		if !slices.Equal(results[1][i], want) {
			t.Fatalf("result %d (%s) differs between 1 and 3 cores", i, what)
		}
	}
}
