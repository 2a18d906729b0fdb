package ops

import (
	"math/rand/v2"
	"runtime"
	"runtime/metrics"
	"slices"
	"testing"

	G "gorgonia.org/gorgonia"
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

// goroutinesCreated is how many goroutines the process has started.
func goroutinesCreated() uint64 {
	s := []metrics.Sample{{Name: "/sched/goroutines-created:goroutines"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// TestLimitCoresKeepsOpsOnOneGoroutine: at four cores every op that splits
// its work over the cores starts goroutines for it; limited to one core
// (each graph's share when pipeline/train runs as many workers as cores)
// it runs on the machine's goroutine alone, to the same output.
func TestLimitCoresKeepsOpsOnOneGoroutine(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	runtime.GC() // the collector starts its workers for four cores now, not while counting
	rng := rand.New(rand.NewPCG(3, 4))
	type built struct {
		out *G.Node
		vm  G.VM
	}
	cases := []struct {
		name  string
		build func() built
	}{
		{"dense stack", func() built {
			c := stackCase{"wide", 130, []int{300, 200, 1}, ActReLU, true}
			x, w, b := stackInputs(c, rng)
			sg := newStackGraph(t, c, x, w, b, rng)
			return built{sg.out, sg.vm}
		}},
		{"conv block", func() built {
			c := blockCases[len(blockCases)-1] // three chunks of samples
			x, w, b := caseInputs(c, rng)
			bg := newBlockGraph(t, c, x, w, b, rng)
			return built{bg.out, bg.vm}
		}},
		{"attention", func() built {
			c := attentionCase{"sequences", 4, 9, 2, 8}
			ag := newAttentionGraph(t, c, attentionInputs(c, rng), rng)
			return built{ag.out, ag.vm}
		}},
		{"layer norm", func() built {
			rows, d := 3*layerNormRows, 8
			lg := newLayerNormGraph(t, layerNormInputs(rng, rows, d), rows, d, rng)
			return built{lg.out, lg.vm}
		}},
		{"feature transformer", func() built {
			c := featureCase{"wide", 3 * featureRows, 12, 256, 2, 4, false}
			w, b, active := featureInputs(c, rng)
			g := G.NewGraph()
			wn, _, out := featureGraph(t, g, c, w, b, active)
			vm, _ := weightedSumGraph(t, g, wn, out, rng)
			return built{out, vm}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := c.build()
			defer b.vm.Close()
			run := func() (uint64, []float32) {
				b.vm.Reset()
				before := goroutinesCreated()
				if err := b.vm.RunAll(); err != nil {
					t.Fatal(err)
				}
				return goroutinesCreated() - before, slices.Clone(b.out.Value().Data().([]float32))
			}
			run() // the first run allocates the op's buffers
			all, want := run()
			LimitCores(b.out.Graph(), 1)
			limited, got := run()
			// The machine itself starts one goroutine a run (TapeMachine.RunAll).
			if all <= 1 {
				t.Fatalf("%d goroutines a run at four cores: the case is too small to split", all)
			}
			if limited != 1 {
				t.Errorf("%d goroutines a run limited to one core, want the machine's one", limited)
			}
			if !slices.Equal(got, want) {
				t.Error("the output limited to one core differs from the output on four")
			}
		})
	}
}
