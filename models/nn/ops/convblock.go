// Package ops holds custom Gorgonia operations for the model families'
// training graphs, where Gorgonia's generic building blocks are slow.
//
// ConvBlock is a whole convolution block, conv + bias → ReLU → max-pool, as
// one forward op and one gradient op. Gorgonia's own Conv2d, bias
// broadcast, Rectify and MaxPool2D cost a CNN step several transposes,
// allocations and generic strided loops. Here the feature maps stay
// position-major (NHWC) between blocks, so no transposes are needed; the
// block keeps its buffers from step to step; the convolution is one
// register-tiled product and the pooling vector blends (AVX2 + FMA assembly
// on amd64, plain Go elsewhere); the backward pass starts from the pooled
// values ReLU kept, skipping the zeros pooling and ReLU leave in the
// gradient; and the work is split by samples over the available cores,
// with the gradient sums taken in a fixed order so results do not depend
// on how many cores ran them.
package ops

import (
	"fmt"
	"hash"
	"hash/fnv"
	"sync/atomic"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// Layout is how a 4-D feature map lies in memory.
type Layout int

const (
	// BatchMajor is batch × channels × height × width (NCHW): the graph's
	// input, and, flattened per sample, what a dense layer after the block
	// reads.
	BatchMajor Layout = iota
	// PositionMajor is batch × height × width × channels (NHWC), the layout
	// between blocks: each cell's channels are one run, which is what the
	// next block's im2col copies.
	PositionMajor
)

// ConvBlockSpec describes one block: a square convolution with stride 1
// and zero padding, bias, ReLU, then an optional max-pool.
type ConvBlockSpec struct {
	Kernel, Pad int
	// Pool is the max-pool window (0 or 1: no pooling), PoolStride its stride.
	Pool, PoolStride int
	// In is x's layout; Out the result's.
	In, Out Layout
	// Flatten makes the result a batch × (filters·height·width) matrix, the
	// input of a dense layer; it needs Out == BatchMajor.
	Flatten bool
	// InputGrad asks for x's gradient. Leave it false when x is the graph's
	// input: nothing needs that gradient and it costs as much as the weights'.
	InputGrad bool
}

// ConvBlock adds maxpool(ReLU(conv(x, w) + b)) to x's graph. x is 4-D in
// spec.In's layout, w is filters × channels × kernel × kernel and b has
// one value per filter. The result is 4-D in spec.Out's layout (or a matrix
// with spec.Flatten) and is differentiable with respect to w, b and, with
// spec.InputGrad, x.
//
// The block keeps state between its forward and backward ops (the im2col
// matrix and the pool's argmax), so like a Gorgonia TapeMachine a graph
// using it runs one pass at a time.
func ConvBlock(x, w, b *G.Node, spec ConvBlockSpec) (*G.Node, error) {
	blk, err := newConvBlock(x.Shape(), w.Shape(), b.Shape(), spec)
	if err != nil {
		return nil, err
	}
	return G.ApplyOp(&forwardOp{blk}, x, w, b)
}

// blockIDs numbers blocks so that no two ops hash alike: Gorgonia merges
// nodes whose ops hash the same and whose children are the same.
var blockIDs atomic.Uint64

// chunkSamples is how many samples one task of a block's work covers: the
// unit the batch is split into over the cores, and the unit whose weight
// gradients are summed in a fixed order.
const chunkSamples = 16

// convBlock is the geometry and the buffers one block's ops share. The
// forward op fills cols, rows and argmax; the gradient op reads them.
type convBlock struct {
	opTraits
	coreShare
	id   uint64
	spec ConvBlockSpec
	geometry
	inShape, wShape, outShape tensor.Shape

	cols   []float32   // positions × paddedPatch
	wt     []float32   // patch × paddedFilters, the weights as convolve multiplies them
	rows   []float32   // filters × k × k × gradCell, the weights as backward adds them (InputGrad)
	zeros  []float32   // paddedPatch zeros
	dzT    []float32   // filterRows × positions, the gradient map at z (denseWeightGrad)
	bias   []float32   // paddedFilters: the bias, zeros after it
	z      []float32   // positions × paddedFilters, conv + bias before ReLU
	cells  []int32     // conv cell × paddedFilters: the cell of each entry of a sample's z
	argmax []int32     // batch × pooled cell × paddedFilters, see poolForward
	dwSum  []float32   // filters × paddedPatch, the weights' gradient in cols' order
	dwPart [][]float32 // per chunk: its share of dwSum
	work   []scratch   // per worker

	// The values the ops return, kept so a step allocates nothing.
	out, dw, db, dx *tensor.Dense
}

// scratch is one worker's temporary space.
type scratch struct {
	rowMax []float32 // the pool's row maxima: convH × poolW × paddedFilters
	rowArg []int32   // and their cells
	maxima []float32 // one sample's pool maxima: pooled cells × paddedFilters
	grid   []float32 // one sample's input with its zero border, for im2col
	dxGrid []float32 // the same for the input gradient in backward
}

func newConvBlock(xs, ws, bs tensor.Shape, spec ConvBlockSpec) (*convBlock, error) {
	if len(xs) != 4 || len(ws) != 4 || bs.TotalSize() != ws[0] || len(bs) != 1 {
		return nil, fmt.Errorf("conv block: x %v, w %v and b %v must be 4-D, 4-D and one value per filter", xs, ws, bs)
	}
	if spec.Kernel < 1 || spec.Pad < 0 || ws[2] != spec.Kernel || ws[3] != spec.Kernel {
		return nil, fmt.Errorf("conv block: kernel %d, pad %d do not fit weights %v", spec.Kernel, spec.Pad, ws)
	}
	if spec.Flatten && spec.Out != BatchMajor {
		return nil, fmt.Errorf("conv block: only a batch-major result can be flattened")
	}
	g := geometry{kernel: spec.Kernel, pad: spec.Pad, filters: ws[0], in: spec.In, out: spec.Out, pool: 1, poolStride: 1}
	if spec.In == PositionMajor {
		g.batch, g.height, g.width, g.channels = xs[0], xs[1], xs[2], xs[3]
	} else {
		g.batch, g.channels, g.height, g.width = xs[0], xs[1], xs[2], xs[3]
	}
	g.paddedFilters = roundUp(g.filters, tile)
	// One more column than the patch, set to 1 in every row of cols: the
	// weight gradient's sums then also sum the bias gradient.
	g.paddedPatch = roundUp(g.patch()+1, tile)
	g.gradCell = roundUp(g.channels, 8)
	g.filterRows = roundUp(g.filters, 4)
	g.chunk = chunkSamples
	if ws[1] != g.channels {
		return nil, fmt.Errorf("conv block: weights %v for %d input channels", ws, g.channels)
	}
	g.convH, g.convW = g.height+2*g.pad-g.kernel+1, g.width+2*g.pad-g.kernel+1
	if spec.Pool > 1 {
		if spec.PoolStride < 1 {
			return nil, fmt.Errorf("conv block: pool stride must be >= 1")
		}
		g.pool, g.poolStride = spec.Pool, spec.PoolStride
	}
	if g.convH < g.pool || g.convW < g.pool {
		return nil, fmt.Errorf("conv block: kernel %d, pad %d and pool %d do not fit a %d×%d map", g.kernel, g.pad, g.pool, g.height, g.width)
	}
	g.poolH, g.poolW = (g.convH-g.pool)/g.poolStride+1, (g.convW-g.pool)/g.poolStride+1
	blk := &convBlock{id: blockIDs.Add(1), spec: spec, geometry: g, inShape: xs.Clone(), wShape: ws.Clone()}
	switch {
	case spec.Flatten:
		blk.outShape = tensor.Shape{g.batch, g.filters * g.poolH * g.poolW}
	case spec.Out == PositionMajor:
		blk.outShape = tensor.Shape{g.batch, g.poolH, g.poolW, g.filters}
	default:
		blk.outShape = tensor.Shape{g.batch, g.filters, g.poolH, g.poolW}
	}
	return blk, nil
}

// allocate makes the buffers on the first run, so building a graph costs
// no memory until it runs.
func (blk *convBlock) allocate() {
	if blk.out != nil {
		return
	}
	n, pp, fp := blk.positions(), blk.paddedPatch, blk.paddedFilters
	blk.cols = make([]float32, n*pp)
	for i := blk.patch(); i < len(blk.cols); i += pp {
		blk.cols[i] = 1 // im2col never writes past the patch
	}
	blk.wt = make([]float32, blk.patch()*fp)
	blk.bias = make([]float32, fp)
	blk.z = make([]float32, n*fp)
	blk.cells = make([]int32, blk.convPlane()*fp)
	for i := range blk.cells {
		blk.cells[i] = int32(i / fp)
	}
	blk.argmax = make([]int32, blk.batch*blk.pooledPlane()*fp)
	blk.zeros = make([]float32, pp)
	if blk.denseWeightGrad() {
		blk.dzT = make([]float32, blk.filterRows*n)
	}
	blk.dwSum = make([]float32, blk.filters*pp)
	for range blk.chunks() {
		blk.dwPart = append(blk.dwPart, make([]float32, blk.filterRows*pp))
	}
	blk.out = dense(make([]float32, blk.outputSize()), blk.outShape)
	blk.dw = dense(make([]float32, blk.filters*blk.patch()), blk.wShape)
	blk.db = dense(make([]float32, blk.filters), tensor.Shape{blk.filters})
	if blk.spec.InputGrad {
		blk.rows = make([]float32, blk.filters*blk.kernel*blk.kernel*blk.gradCell)
		blk.dx = dense(make([]float32, blk.inputSize()), blk.inShape)
	}
}

// forChunks runs task on every chunk of the batch, spread over the cores,
// each worker with its own scratch. Tasks write disjoint parts of the
// buffers.
func (blk *convBlock) forChunks(task func(s *scratch, chunk, b0, b1 int)) {
	chunks := blk.chunks()
	for len(blk.work) < blk.taskWorkers(chunks) {
		s := scratch{
			rowMax: make([]float32, blk.convH*blk.poolW*blk.paddedFilters),
			rowArg: make([]int32, blk.convH*blk.poolW*blk.paddedFilters),
			maxima: make([]float32, blk.pooledPlane()*blk.paddedFilters),
			grid:   make([]float32, blk.gridSize()),
		}
		if blk.spec.InputGrad {
			s.dxGrid = make([]float32, blk.gradGridSize())
		}
		blk.work = append(blk.work, s)
	}
	blk.forTasks(chunks, func(w, c int) {
		b0, b1 := blk.samples(c)
		task(&blk.work[w], c, b0, b1)
	})
}

// sumParamGrads sums the chunks' weight and bias gradients in chunk order,
// so the result does not depend on how many cores computed them, and
// stores them in dw, in w's (filter, channel, ky, kx) order, and db.
func (blk *convBlock) sumParamGrads(dw, db []float32) {
	copy(blk.dwSum, blk.dwPart[0])
	for _, part := range blk.dwPart[1:] {
		for i, v := range part[:len(blk.dwSum)] {
			blk.dwSum[i] += v
		}
	}
	k, c, pp := blk.kernel, blk.channels, blk.paddedPatch
	for f := 0; f < blk.filters; f++ {
		row := blk.dwSum[f*pp:][:pp]
		for ch := 0; ch < c; ch++ {
			for ky := 0; ky < k; ky++ {
				for kx := 0; kx < k; kx++ {
					dw[((f*c+ch)*k+ky)*k+kx] = row[(ky*k+kx)*c+ch]
				}
			}
		}
		db[f] = row[blk.patch()] // the ones column
	}
}

func dense(data []float32, shape tensor.Shape) *tensor.Dense {
	return tensor.New(tensor.WithShape(shape.Clone()...), tensor.WithBacking(data))
}

// reuse hands out one of the block's values again. A later op may have
// reshaped it in place (Gorgonia's unsafe ops do), so its shape is reset.
func reuse(t *tensor.Dense, shape tensor.Shape) (*tensor.Dense, error) {
	if !t.Shape().Eq(shape) {
		if err := t.Reshape(shape...); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// float32s returns v's data, checking its size.
func float32s(v G.Value, size int, what string) ([]float32, error) {
	t, ok := v.(tensor.Tensor)
	if !ok {
		return nil, fmt.Errorf("conv block: %s is a %T, not a tensor", what, v)
	}
	data, ok := t.Data().([]float32)
	if !ok || len(data) != size {
		return nil, fmt.Errorf("conv block: %s must be %d float32 values, got %v of %v", what, size, t.Shape(), t.Dtype())
	}
	return data, nil
}

func tensorType(dims int) *G.TensorType {
	return &G.TensorType{Dims: dims, Of: hm.TypeVariable('a')}
}

// forwardOp is the block's forward pass: x, w, b → pooled maps.
type forwardOp struct{ *convBlock }

func (op *forwardOp) Arity() int { return 3 }
func (op *forwardOp) Type() hm.Type {
	return hm.NewFnType(tensorType(4), tensorType(4), tensorType(1), tensorType(op.outShape.Dims()))
}
func (op *forwardOp) InferShape(...G.DimSizer) (tensor.Shape, error) { return op.outShape.Clone(), nil }
func (op *forwardOp) WriteHash(h hash.Hash)                          { fmt.Fprintf(h, "%v", op) }
func (op *forwardOp) Hashcode() uint32                               { return hashOf(op) }
func (op *forwardOp) String() string {
	return fmt.Sprintf("ConvBlock#%d{k%d p%d pool%d/%d}", op.id, op.kernel, op.pad, op.pool, op.poolStride)
}

func (op *forwardOp) Do(inputs ...G.Value) (G.Value, error) {
	if len(inputs) != 3 {
		return nil, fmt.Errorf("conv block: %d inputs, want x, w and b", len(inputs))
	}
	op.allocate()
	x, err := float32s(inputs[0], op.inputSize(), "x")
	if err != nil {
		return nil, err
	}
	w, err := float32s(inputs[1], op.filters*op.patch(), "w")
	if err != nil {
		return nil, err
	}
	b, err := float32s(inputs[2], op.filters, "b")
	if err != nil {
		return nil, err
	}
	transposeWeights(&op.geometry, w, op.wt, op.rows)
	copy(op.bias, b)
	out := op.out.Data().([]float32)
	plane := op.convPlane()
	op.forChunks(func(s *scratch, _, b0, b1 int) {
		im2col(&op.geometry, x, op.cols[b0*plane*op.paddedPatch:], s.grid, b0, b1)
		convolve(&op.geometry, op.cols, op.wt, op.bias, op.z, b0*plane, b1*plane)
		poolForward(&op.geometry, op.z, out, op.argmax, op.cells, s.rowMax, s.rowArg, s.maxima, b0, b1)
	})
	return reuse(op.out, op.outShape)
}

func (op *forwardOp) DiffWRT(int) []bool { return []bool{op.spec.InputGrad, true, true} }

// SymDiff adds the backward pass: one op computes every gradient from the
// output's (see backward) and returns dw; two more hand out db and dx.
func (op *forwardOp) SymDiff(inputs G.Nodes, output, grad *G.Node) (G.Nodes, error) {
	dw, err := G.ApplyOp(&gradOp{op.convBlock, gradW}, output, grad)
	if err != nil {
		return nil, err
	}
	grads := G.Nodes{nil, dw, nil}
	if grads[2], err = G.ApplyOp(&gradOp{op.convBlock, gradB}, dw); err != nil {
		return nil, err
	}
	if op.spec.InputGrad {
		if grads[0], err = G.ApplyOp(&gradOp{op.convBlock, gradX}, dw); err != nil {
			return nil, err
		}
	}
	return grads, nil
}

// gradPart names what a gradOp hands out.
type gradPart int

const (
	gradW gradPart = iota // (output, dOutput) → dw, computing db and dx too
	gradB                 // dw → db
	gradX                 // dw → dx
)

var gradNames = [...]string{gradW: "dw", gradB: "db", gradX: "dx"}

// gradOp is the block's backward pass. It reads what the forward op left
// in the block; its inputs also order it after that op, and db and dx
// after dw.
type gradOp struct {
	*convBlock
	part gradPart
}

func (op *gradOp) Arity() int {
	if op.part == gradW {
		return 2
	}
	return 1
}

func (op *gradOp) Type() hm.Type {
	switch op.part {
	case gradW:
		out := tensorType(op.outShape.Dims())
		return hm.NewFnType(out, out, tensorType(4))
	case gradB:
		return hm.NewFnType(tensorType(4), tensorType(1))
	default:
		return hm.NewFnType(tensorType(4), tensorType(4))
	}
}

func (op *gradOp) InferShape(...G.DimSizer) (tensor.Shape, error) { return op.shape(), nil }

func (op *gradOp) shape() tensor.Shape {
	switch op.part {
	case gradW:
		return op.wShape.Clone()
	case gradB:
		return tensor.Shape{op.filters}
	default:
		return op.inShape.Clone()
	}
}

func (op *gradOp) WriteHash(h hash.Hash) { fmt.Fprintf(h, "%v", op) }
func (op *gradOp) Hashcode() uint32      { return hashOf(op) }
func (op *gradOp) String() string        { return fmt.Sprintf("ConvBlock#%d.%s", op.id, gradNames[op.part]) }

func (op *gradOp) Do(inputs ...G.Value) (G.Value, error) {
	if len(inputs) != op.Arity() {
		return nil, fmt.Errorf("%v: %d inputs, want %d", op, len(inputs), op.Arity())
	}
	if op.out == nil {
		return nil, fmt.Errorf("%v ran before the block's forward pass", op)
	}
	switch op.part {
	case gradB:
		return reuse(op.db, op.shape()) // filled by the dw op, this op's input
	case gradX:
		return reuse(op.dx, op.shape())
	}
	dout, err := float32s(inputs[1], op.outputSize(), "the output's gradient")
	if err != nil {
		return nil, err
	}
	var dx []float32
	if op.dx != nil {
		dx = op.dx.Data().([]float32)
	}
	op.forChunks(func(s *scratch, c, b0, b1 int) {
		backward(&op.geometry, dout, op.argmax, op.cols, op.rows, op.dzT, op.dwPart[c], op.zeros, dx, s.dxGrid, b0, b1)
	})
	op.sumParamGrads(op.dw.Data().([]float32), op.db.Data().([]float32))
	return reuse(op.dw, op.shape())
}

// opTraits answers three of Gorgonia's Op questions the same way for every
// op here: each returns a fresh value in buffers it owns, calls no external
// code and overwrites none of its inputs.
type opTraits struct{}

func (opTraits) ReturnsPtr() bool     { return false }
func (opTraits) CallsExtern() bool    { return false }
func (opTraits) OverwritesInput() int { return -1 }

type hashWriter interface{ WriteHash(hash.Hash) }

func hashOf(op hashWriter) uint32 {
	h := fnv.New32a()
	op.WriteHash(h)
	return h.Sum32()
}
