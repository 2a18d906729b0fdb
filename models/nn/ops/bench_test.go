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
// the whole batch on one core, to see where a training step's conv time
// goes.
func BenchmarkKernels(b *testing.B) {
	for i, blk := range thesisBlocks(b) {
		blk.allocate()
		g := &blk.geometry
		rng := rand.New(rand.NewPCG(1, uint64(i)))
		x := randomFloat32s(rng, g.inputSize())
		w := randomFloat32s(rng, g.filters*g.patch())
		bias := randomFloat32s(rng, g.filters)
		dout := randomFloat32s(rng, g.outputSize())
		out := blk.out.Data().([]float32)
		dx := make([]float32, g.inputSize())
		n := g.positions()
		blk.forChunks(func(*scratch, int, int, int) {}) // makes the scratch
		plane := g.convPlane()
		// Each kernel runs chunk by chunk, as the ops run it (on one core
		// with -cpu 1).
		chunked := func(kernel func(s *scratch, c, b0, b1 int)) func() {
			return func() { blk.forChunks(kernel) }
		}
		transposeWeights(g, w, blk.wt)
		if blk.spec.InputGrad {
			flipWeights(&blk.back, w, blk.backWt)
		}
		copy(blk.bias, bias)
		im2col(g, x, blk.cols, blk.work[0].grid, 0, g.batch)
		convolve(g, blk.cols, blk.wt, blk.bias, blk.z, 0, n)
		poolForward(g, blk.z, out, blk.argmax, blk.cells, blk.work[0].rowMax, blk.work[0].rowArg, blk.work[0].maxima, 0, g.batch)
		layer := []string{"conv0/", "conv1/"}[i]
		for _, k := range []struct {
			name string
			run  func()
		}{
			{"im2col", chunked(func(s *scratch, _, b0, b1 int) { im2col(g, x, blk.cols[b0*plane*g.paddedPatch:], s.grid, b0, b1) })},
			{"convolve", chunked(func(_ *scratch, _, b0, b1 int) { convolve(g, blk.cols, blk.wt, blk.bias, blk.z, b0*plane, b1*plane) })},
			{"pool", chunked(func(s *scratch, _, b0, b1 int) {
				poolForward(g, blk.z, out, blk.argmax, blk.cells, s.rowMax, s.rowArg, s.maxima, b0, b1)
			})},
			{"poolBackward", chunked(func(_ *scratch, _, b0, b1 int) {
				poolBackward(g, dout, blk.argmax, blk.dz, blk.dzT, b0, b1)
			})},
			{"paramGrads", chunked(func(_ *scratch, c, b0, b1 int) {
				paramGrads(g, blk.dzT, blk.cols, blk.dwPart[c], blk.zeros, b0*plane, b1*plane)
			})},
			{"inputGrad", chunked(func(s *scratch, _, b0, b1 int) {
				inputGrad(&blk.back, blk.backWt, blk.dz, dx, s.backCols, s.backGrid, s.backOut, blk.zeros, b0, b1)
			})},
		} {
			if k.name == "inputGrad" && !blk.spec.InputGrad {
				continue // the graph's input needs no gradient
			}
			b.Run(layer+k.name, func(b *testing.B) {
				for b.Loop() {
					k.run()
				}
			})
		}
	}
}

// BenchmarkProducts compares mulAdd with Gorgonia's BLAS (G.WhichBLAS:
// gonum's pure Go, or OpenBLAS with -tags openblas) on the thesis second
// block's three products for one chunk of samples: the convolution, the
// weight gradient and the input gradient.
func BenchmarkProducts(b *testing.B) {
	blk := thesisBlocks(b)[1]
	blk.allocate()
	g := &blk.geometry
	back := g.backward()
	rows := g.chunk * g.convPlane()
	rng := rand.New(rand.NewPCG(2, 2))
	for _, p := range []struct {
		name          string
		m, n, k       int
		lda, ldb, ldc int
	}{
		{"forward", rows, g.paddedFilters, g.patch(), g.paddedPatch, g.paddedFilters, g.paddedFilters},
		{"weights", g.filterRows, g.paddedPatch, rows, g.positions(), g.paddedPatch, g.paddedPatch},
		{"input", rows, back.paddedFilters, back.patch(), back.paddedPatch, back.paddedFilters, back.paddedFilters},
	} {
		a := randomFloat32s(rng, (p.m-1)*p.lda+p.k)
		bm := randomFloat32s(rng, p.k*p.ldb)
		c := make([]float32, p.m*p.ldc)
		zeros := make([]float32, p.n)
		b.Run(p.name+"/mulAdd", func(b *testing.B) {
			for b.Loop() {
				mulAdd(p.m, p.n, p.k, a, p.lda, bm, p.ldb, c, p.ldc, zeros)
			}
		})
		b.Run(p.name+"/"+nn.BLAS, func(b *testing.B) {
			for b.Loop() {
				G.WhichBLAS().Sgemm(blas.NoTrans, blas.NoTrans, p.m, p.n, p.k, 1, a, p.lda, bm, p.ldb, 0, c, p.ldc)
			}
		})
	}
}
