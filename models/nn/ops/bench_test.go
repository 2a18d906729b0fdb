package ops

import (
	"math/rand/v2"
	"testing"

	"gorgonia.org/tensor"

	// Gorgonia's BLAS as training sets it up (OpenBLAS with -tags openblas).
	_ "github.com/dchess/dchess/models/nn"
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
		forward := func() {
			transposeWeights(g, w, blk.wt, blk.wRows)
			im2col(g, x, blk.cols, 0, g.batch)
			convolve(g, blk.cols, blk.wt, bias, blk.z, 0, n)
			poolForward(g, blk.z, out, blk.maxima, blk.rowMax[0], 0, g.batch)
		}
		forward()
		poolBackward(g, dout, blk.maxima, blk.z, blk.dz, 0, g.batch)
		layer := []string{"conv0/", "conv1/"}[i]
		for _, k := range []struct {
			name string
			run  func()
		}{
			{"im2col", func() { im2col(g, x, blk.cols, 0, g.batch) }},
			{"convolve", func() { convolve(g, blk.cols, blk.wt, bias, blk.z, 0, n) }},
			{"pool", func() { poolForward(g, blk.z, out, blk.maxima, blk.rowMax[0], 0, g.batch) }},
			{"poolBackward", func() { poolBackward(g, dout, blk.maxima, blk.z, blk.dz, 0, g.batch) }},
			{"paramGrads", func() { paramGrads(g, blk.dz, blk.cols, blk.dwPart[0], 0, n) }},
			{"inputGrad", func() { inputGrad(g, blk.wRows, blk.dz, dx, blk.patchGrad[0], 0, g.batch) }},
		} {
			b.Run(layer+k.name, func(b *testing.B) {
				for b.Loop() {
					k.run()
				}
			})
		}
	}
}
