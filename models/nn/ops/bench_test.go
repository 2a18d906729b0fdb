package ops

import (
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	// Gorgonia's BLAS as training sets it up (OpenBLAS with -tags openblas).
	"github.com/dchess/dchess/models/nn"
)

// thesisBlocks are the thesis CNN's two blocks at batch 256
// (configs/cnn.yaml), the shapes BenchmarkTrainStep/cnn in pipeline runs.
func thesisBlocks(b *testing.B) []*convBlock {
	first, err := newConvBlock(tensor.Shape{256, 1, 8, 8}, tensor.Shape{13, 1, 3, 3}, tensor.Shape{13},
		ConvBlockSpec{Kernel: 3, Pad: 1, Pool: 3, PoolStride: 1, In: BatchMajor, Out: PositionMajor})
	if err != nil {
		b.Fatal(err)
	}
	second, err := newConvBlock(tensor.Shape{256, 6, 6, 13}, tensor.Shape{10, 13, 3, 3}, tensor.Shape{10},
		ConvBlockSpec{Kernel: 3, Pad: 1, Pool: 2, PoolStride: 2, In: PositionMajor, Out: BatchMajor, Flatten: true, InputGrad: true})
	if err != nil {
		b.Fatal(err)
	}
	return []*convBlock{first, second}
}

func randomFloat32s(rng *rand.Rand, n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = 2*rng.Float32() - 1
	}
	return v
}

// BenchmarkKernels times each kernel of the thesis blocks on its own over
// the whole batch, chunk by chunk as the ops run them (on one core with
// -cpu 1), to see where a training step's conv time goes.
func BenchmarkKernels(b *testing.B) {
	for i, blk := range thesisBlocks(b) {
		blk.allocate()
		g := &blk.geometry
		rng := rand.New(rand.NewPCG(1, uint64(i)))
		x := randomFloat32s(rng, g.inputSize())
		w := randomFloat32s(rng, g.filters*g.patch())
		dout := randomFloat32s(rng, g.outputSize())
		out := blk.out.Data().([]float32)
		var dx []float32
		if blk.dx != nil {
			dx = blk.dx.Data().([]float32)
		}
		plane := g.convPlane()
		chunked := func(kernel func(s *scratch, c, b0, b1 int)) func() {
			return func() { blk.forChunks(kernel) }
		}
		transposeWeights(g, w, blk.wt, blk.rows)
		copy(blk.bias, randomFloat32s(rng, g.filters))
		steps := []struct {
			name string
			run  func()
		}{
			{"im2col", chunked(func(s *scratch, _, b0, b1 int) { im2col(g, x, blk.cols[b0*plane*g.paddedPatch:], s.grid, b0, b1) })},
			{"convolve", chunked(func(_ *scratch, _, b0, b1 int) { convolve(g, blk.cols, blk.wt, blk.bias, blk.z, b0*plane, b1*plane) })},
			{"pool", chunked(func(s *scratch, _, b0, b1 int) {
				poolForward(g, blk.z, out, blk.argmax, blk.cells, s.rowMax, s.rowArg, s.maxima, b0, b1)
			})},
			{"backward", chunked(func(s *scratch, c, b0, b1 int) {
				backward(g, dout, blk.argmax, blk.cols, blk.rows, blk.dzT, blk.dwPart[c], blk.zeros, dx, s.dxGrid, b0, b1)
			})},
		}
		for _, k := range steps {
			k.run() // each step's inputs are the earlier steps' outputs
		}
		layer := []string{"conv0/", "conv1/"}[i]
		for _, k := range steps {
			b.Run(layer+k.name, func(b *testing.B) {
				for b.Loop() {
					k.run()
				}
			})
		}
	}
}

// BenchmarkProducts compares mulAdd with Gorgonia's BLAS (G.WhichBLAS:
// gonum's pure Go, or OpenBLAS with -tags openblas) on the thesis blocks'
// convolution for one chunk of samples.
func BenchmarkProducts(b *testing.B) {
	for i, blk := range thesisBlocks(b) {
		g := &blk.geometry
		m, n, k := g.chunk*g.convPlane(), g.paddedFilters, g.patch()
		rng := rand.New(rand.NewPCG(2, 2))
		a := randomFloat32s(rng, m*g.paddedPatch)
		w := randomFloat32s(rng, k*n)
		c := make([]float32, m*n)
		bias := make([]float32, n)
		layer := []string{"conv0/", "conv1/"}[i]
		b.Run(layer+"mulAdd", func(b *testing.B) {
			for b.Loop() {
				mulAdd(m, n, k, a, g.paddedPatch, w, n, c, n, bias)
			}
		})
		b.Run(layer+nn.BLAS, func(b *testing.B) {
			for b.Loop() {
				G.WhichBLAS().Sgemm(blas.NoTrans, blas.NoTrans, m, n, k, 1, a, g.paddedPatch, w, n, 0, c, n)
			}
		})
	}
}

// BenchmarkAttention times the attention op's forward and backward passes
// at diffusion-small's size (32 sequences of 284 positions, 2 heads of
// 32) on random q/k/v, as a training step runs them for one block; its
// products are six of seq × seq × dk multiply-adds per sequence and head.
func BenchmarkAttention(b *testing.B) {
	const batch, seq, heads, dk = 32, 284, 2, 32
	g := G.NewGraph()
	rng := rand.New(rand.NewPCG(3, 3))
	rows, d := batch*seq, heads*dk
	qkv := G.NewMatrix(g, tensor.Float32, G.WithShape(rows, 3*d), G.WithName("qkv"),
		G.WithValue(tensor.New(tensor.WithShape(rows, 3*d), tensor.WithBacking(randomFloat32s(rng, rows*3*d)))))
	out, err := Attention(qkv, batch, seq, heads)
	if err != nil {
		b.Fatal(err)
	}
	loss, err := G.Sum(out)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := G.Grad(loss, qkv); err != nil {
		b.Fatal(err)
	}
	vm := G.NewTapeMachine(g, G.BindDualValues(qkv))
	defer vm.Close()
	for b.Loop() {
		if err := vm.RunAll(); err != nil {
			b.Fatal(err)
		}
		vm.Reset()
	}
	b.ReportMetric(float64(12*batch*heads*seq*seq*dk)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOPS")
}

// BenchmarkLayerNorm times the layer norm's forward and backward passes
// on diffusion-small's activations (32 sequences of 284 positions, width
// 64), of which a training step runs five of each.
func BenchmarkLayerNorm(b *testing.B) {
	const rows, d = 32 * 284, 64
	rng := rand.New(rand.NewPCG(4, 4))
	ln := &layerNorm{rows: rows, d: d, eps: 1e-5, shape: tensor.Shape{rows, d}}
	ln.allocate()
	x, dy := randomFloat32s(rng, rows*d), randomFloat32s(rng, rows*d)
	y, dx := ln.out.Data().([]float32), ln.dx.Data().([]float32)
	b.Run("forward", func(b *testing.B) {
		for b.Loop() {
			ln.forRows(func(r0, r1 int) { ln.forward(x, y, r0, r1) })
		}
	})
	b.Run("backward", func(b *testing.B) {
		for b.Loop() {
			ln.forRows(func(r0, r1 int) { ln.backward(y, dy, dx, r0, r1) })
		}
	})
}
