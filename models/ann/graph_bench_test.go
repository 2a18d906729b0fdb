package ann

import (
	"math/rand/v2"
	"testing"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/dchess/dchess/models/nn"
)

// BenchmarkGraphStep times a forward and backward pass at batch 256 of the
// thesis ANN and configs/ann-wide.yaml's network, built as Build does (the
// DenseStack op) and node by node (nn.DenseStackGraph, how it was built
// before), so the two compare in the same run.
func BenchmarkGraphStep(b *testing.B) {
	wide := DefaultConfig()
	wide.Input = nn.Input{Encoding: nn.EncodingPlanes, Min: -1, Max: 1}
	wide.Hidden = []int{512, 128, 32}
	const batch = 256
	for _, c := range []struct {
		name string
		cfg  Config
	}{{"thesis", DefaultConfig()}, {"wide", wide}} {
		for _, build := range []string{"stack", "nodes"} {
			b.Run(c.name+"/"+build, func(b *testing.B) {
				m, err := NewModel(c.cfg)
				if err != nil {
					b.Fatal(err)
				}
				g := G.NewGraph()
				rng := rand.New(rand.NewPCG(1, 2))
				xs := make([]float32, batch*c.cfg.Input.Size())
				for i := range xs {
					xs[i] = float32(rng.IntN(3) - 1)
				}
				x := G.NewMatrix(g, tensor.Float32, G.WithShape(batch, c.cfg.Input.Size()), G.WithName("x"),
					G.WithValue(tensor.New(tensor.WithShape(batch, c.cfg.Input.Size()), tensor.WithBacking(xs))))
				var out *G.Node
				var learnables []*G.Node
				if build == "stack" {
					out, learnables, err = m.Build(g, x, m.InitParams(1))
				} else {
					out, learnables, err = nn.DenseStackGraph(g, x, m.InitParams(1), c.cfg.widths(), c.cfg.layerName, c.cfg.Activation)
				}
				if err != nil {
					b.Fatal(err)
				}
				loss, err := G.Sum(out)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := G.Grad(loss, learnables...); err != nil {
					b.Fatal(err)
				}
				vm := G.NewTapeMachine(g, G.BindDualValues(learnables...))
				defer vm.Close()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if err := vm.RunAll(); err != nil {
						b.Fatal(err)
					}
					vm.Reset()
				}
				b.ReportMetric(float64(b.N*batch)/b.Elapsed().Seconds(), "samples/s")
			})
		}
	}
}
