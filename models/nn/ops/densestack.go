package ops

import (
	"fmt"
	"hash"
	"math"
	"sync"
	"sync/atomic"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// Dense stack activations (the names models/nn uses).
const (
	ActReLU    = "relu"
	ActTanh    = "tanh"
	ActSigmoid = "sigmoid"
	// ActClippedReLU is min(max(x, 0), 1), NNUE's activation.
	ActClippedReLU = "crelu"
)

// DenseStack adds a whole stack of fully connected layers to x's graph as
// one forward op and one gradient op: layer i is h·ws[i] + bs[i], followed
// by the activation on every layer but the last. x is batch × in, ws[i] is
// in_i × out_i and bs[i] is 1 × out_i. The result is differentiable with
// respect to every w and b (not x: the stack is meant to sit on the
// graph's input; DenseStackInner is the same stack differentiable with
// respect to x too).
//
// Built from Gorgonia's Mul, BroadcastAdd and activations, a small network
// like the thesis ANN spends most of its step in per-node overhead (a
// fresh tensor and a generic loop per node and gradient); here each layer
// is one register-tiled product into buffers kept from step to step. Like
// ConvBlock the ops share state, so a graph using it runs one pass at a
// time. Wide layers' products are split over the cores by rows of the
// result; every value is one sum in a fixed order, so the results are the
// same on every run and any number of cores.
func DenseStack(x *G.Node, ws, bs []*G.Node, activation string) (*G.Node, error) {
	return denseStackOp(x, ws, bs, activation, false)
}

// DenseStackInner is DenseStack differentiable with respect to x as well,
// for a stack inside a network (a transformer's projections and MLP); x's
// gradient costs one more product per step.
func DenseStackInner(x *G.Node, ws, bs []*G.Node, activation string) (*G.Node, error) {
	return denseStackOp(x, ws, bs, activation, true)
}

func denseStackOp(x *G.Node, ws, bs []*G.Node, activation string, inputGrad bool) (*G.Node, error) {
	if len(ws) == 0 || len(ws) != len(bs) {
		return nil, fmt.Errorf("dense stack: %d weights and %d biases", len(ws), len(bs))
	}
	switch activation {
	case ActReLU, ActTanh, ActSigmoid, ActClippedReLU:
	default:
		if len(ws) > 1 {
			return nil, fmt.Errorf("dense stack: unknown activation %q", activation)
		}
	}
	xs := x.Shape()
	if len(xs) != 2 {
		return nil, fmt.Errorf("dense stack: x %v must be a matrix", xs)
	}
	st := &denseStack{id: stackIDs.Add(1), act: activation, batch: xs[0], widths: []int{xs[1]}, inputGrad: inputGrad}
	for i := range ws {
		wsh, bsh := ws[i].Shape(), bs[i].Shape()
		in := st.widths[i]
		if len(wsh) != 2 || wsh[0] != in || len(bsh) != 2 || bsh[0] != 1 || bsh[1] != wsh[1] {
			return nil, fmt.Errorf("dense stack: layer %d: w %v and b %v do not fit %d inputs", i, wsh, bsh, in)
		}
		st.widths = append(st.widths, wsh[1])
	}
	inputs := G.Nodes{x}
	for i := range ws {
		inputs = append(inputs, ws[i], bs[i])
	}
	return G.ApplyOp(&stackForwardOp{st}, inputs...)
}

var stackIDs atomic.Uint64

// denseStack is the layers' geometry and the buffers the ops share.
// Row strides are the widths rounded up to the tile, which mulAdd needs;
// padding columns hold zeros (or, in hidden outputs, values never read).
type denseStack struct {
	opTraits
	coreShare
	id     uint64
	act    string
	batch  int
	widths []int // input, then every layer's output
	// inputGrad: the backward pass computes x's gradient too.
	inputGrad bool

	w     [][]float32 // per layer: in × pad(out), the weights padded
	wT    [][]float32 // per layer after the first (and the first with inputGrad): out × pad(in), for the input gradient
	b     [][]float32 // per layer: pad(out)
	h     [][]float32 // per layer: batch × pad(out), its output after the activation
	dz    [][]float32 // per layer: batch × pad(out), the gradient at its pre-activation
	dwPad []float32   // in × pad(out), a weight gradient before it is unpadded
	dxPad []float32   // batch × pad(in), x's gradient before it is unpadded
	zeros []float32
	// unpaddedOut: the output's width is a multiple of the tile, so the
	// last layer writes the output tensor and its gradient is read in
	// place; unpaddedIn: the same for x's gradient. A transformer's
	// batch × seq rows made these copies a tenth of its step.
	unpaddedOut, unpaddedIn bool

	// The values the ops return, kept so a step allocates nothing.
	out, dx *tensor.Dense
	dw, db  []*tensor.Dense
}

func (st *denseStack) layers() int      { return len(st.widths) - 1 }
func (st *denseStack) padded(i int) int { return roundUp(st.widths[i], tile) }

func (st *denseStack) allocate() {
	if st.out != nil {
		return
	}
	n, widest, L := st.batch, 0, st.layers()
	st.unpaddedOut = st.padded(L) == st.widths[L]
	st.unpaddedIn = st.padded(0) == st.widths[0]
	out := make([]float32, n*st.widths[L])
	st.out = dense(out, st.outShape())
	for i := 0; i < L; i++ {
		in, out, po := st.widths[i], st.widths[i+1], st.padded(i+1)
		widest = max(widest, in*po)
		st.w = append(st.w, make([]float32, in*po))
		var wT []float32
		if i > 0 || st.inputGrad {
			wT = make([]float32, out*st.padded(i))
		}
		st.wT = append(st.wT, wT)
		st.b = append(st.b, make([]float32, po))
		var h, dz []float32
		if i < L-1 || !st.unpaddedOut {
			h, dz = make([]float32, n*po), make([]float32, n*po)
		}
		st.h = append(st.h, h)
		st.dz = append(st.dz, dz)
		st.dw = append(st.dw, dense(make([]float32, in*out), tensor.Shape{in, out}))
		st.db = append(st.db, dense(make([]float32, out), tensor.Shape{1, out}))
	}
	if st.unpaddedOut {
		st.h[L-1] = out // the last layer's output is not read by the backward pass
	}
	st.dwPad = make([]float32, widest)
	st.zeros = make([]float32, roundUp(maxWidth(st.widths), tile))
	if st.inputGrad {
		dx := make([]float32, n*st.widths[0])
		st.dxPad = dx
		if !st.unpaddedIn {
			st.dxPad = make([]float32, n*st.padded(0))
		}
		st.dx = dense(dx, tensor.Shape{n, st.widths[0]})
	}
}

func maxWidth(widths []int) int {
	m := 0
	for _, w := range widths {
		m = max(m, w)
	}
	return m
}

func (st *denseStack) outShape() tensor.Shape { return tensor.Shape{st.batch, st.widths[st.layers()]} }

// forward runs the layers on x with the weights and biases given.
func (st *denseStack) forward(x []float32, w, b [][]float32) {
	in, lda := x, st.widths[0]
	for i := 0; i < st.layers(); i++ {
		k, out, po := st.widths[i], st.widths[i+1], st.padded(i+1)
		for r := 0; r < k; r++ {
			copy(st.w[i][r*po:][:out], w[i][r*out:][:out])
		}
		copy(st.b[i], b[i])
		if i > 0 || st.inputGrad {
			pi := st.padded(i)
			for r := 0; r < k; r++ {
				for c := 0; c < out; c++ {
					st.wT[i][c*pi+r] = w[i][r*out+c]
				}
			}
		}
		h := st.h[i]
		st.parallelMulAdd(st.batch, po, k, in, lda, st.w[i], po, h, po, st.b[i])
		if i+1 < st.layers() {
			for r := 0; r < st.batch; r++ {
				activate(st.act, h[r*po:][:out])
			}
		}
		in, lda = h, po
	}
	if st.unpaddedOut {
		return // written in place
	}
	last, po := st.widths[st.layers()], st.padded(st.layers())
	dst := st.out.Data().([]float32)
	for r := 0; r < st.batch; r++ {
		copy(dst[r*last:][:last], st.h[st.layers()-1][r*po:][:last])
	}
}

// backward computes every weight and bias gradient from the output's
// gradient dout and the forward pass's activations on x.
func (st *denseStack) backward(x, dout []float32) {
	n, L := st.batch, st.layers()
	last, po := st.widths[L], st.padded(L)
	if !st.unpaddedOut {
		dz := st.dz[L-1]
		for r := 0; r < n; r++ {
			copy(dz[r*po:][:last], dout[r*last:][:last])
		}
	}
	for i := L - 1; i >= 0; i-- {
		in, out, po := st.widths[i], st.widths[i+1], st.padded(i+1)
		dz := st.dz[i]
		if i == L-1 && st.unpaddedOut {
			dz = dout // read only: the layers below write their own dz
		}
		// The weight gradient, the layer input's transpose times dz.
		src, lda := x, in
		if i > 0 {
			src, lda = st.h[i-1], st.padded(i)
		}
		st.parallelMulAddT(in, po, n, src, lda, dz, po, st.dwPad, po, st.zeros)
		dw := st.dw[i].Data().([]float32)
		for r := 0; r < in; r++ {
			copy(dw[r*out:][:out], st.dwPad[r*po:][:out])
		}
		db := st.db[i].Data().([]float32)
		clear(db)
		for r := 0; r < n; r++ {
			for c, v := range dz[r*po:][:out] {
				db[c] += v
			}
		}
		pi := st.padded(i)
		if i == 0 {
			if st.inputGrad {
				st.parallelMulAdd(n, pi, out, dz, po, st.wT[0], pi, st.dxPad, pi, st.zeros)
				if !st.unpaddedIn {
					copyRows(n, in, st.dxPad, pi, st.dx.Data().([]float32), in)
				}
			}
			break
		}
		// The gradient at the previous layer's output, then through its activation.
		prev := st.dz[i-1]
		st.parallelMulAdd(n, pi, out, dz, po, st.wT[i], pi, prev, pi, st.zeros)
		h := st.h[i-1]
		for r := 0; r < n; r++ {
			activationGrad(st.act, h[r*pi:][:in], prev[r*pi:][:in])
		}
	}
}

// parallelWork is the product size (multiply-adds) from which
// parallelMulAdd splits a product over the cores: wide layers such as
// ann-wide's 1152 → 512 gain, the thesis's 64-wide ones would only pay
// the goroutines.
const parallelWork = 1 << 22

// parallelMulAdd is mulAdd with c's rows split into bands over the
// stack's cores. Every value of c is still one sum in the same order,
// so the result does not depend on the number of cores.
func (st *denseStack) parallelMulAdd(m, n, k int, a []float32, lda int, b []float32, ldb int, c []float32, ldc int, init []float32) {
	st.inBands(m, n, k, func(r0, rows int) {
		mulAdd(rows, n, k, a[r0*lda:], lda, b, ldb, c[r0*ldc:], ldc, init)
	})
}

// parallelMulAddT is mulAddT split the same way: a is k × m.
func (st *denseStack) parallelMulAddT(m, n, k int, a []float32, lda int, b []float32, ldb int, c []float32, ldc int, init []float32) {
	st.inBands(m, n, k, func(r0, rows int) {
		mulAddT(rows, n, k, a[r0:], lda, b, ldb, c[r0*ldc:], ldc, init)
	})
}

// inBands runs product(r0, rows) over bands of the m rows of an m × n × k
// product, one per core of the stack's share, or once over all rows for a
// small product.
func (st *denseStack) inBands(m, n, k int, product func(r0, rows int)) {
	workers := min(st.cores(), m/16)
	if workers <= 1 || m*n*k < parallelWork {
		product(0, m)
		return
	}
	band := roundUp((m+workers-1)/workers, 4)
	var wg sync.WaitGroup
	for r0 := 0; r0 < m; r0 += band {
		rows := min(band, m-r0)
		wg.Go(func() { product(r0, rows) })
	}
	wg.Wait()
}

// transpose writes the rows × cols matrix src (row stride lds) into dst as
// cols × rows (row stride ldd): with the vector kernels, 8 × 8 blocks in
// registers, then the rows and columns past them as below.
func transpose(rows, cols int, src []float32, lds int, dst []float32, ldd int) {
	transposeOn(rows, cols, src, lds, dst, ldd, useVecAsm)
}

// transposeOn is transpose, its 8 × 8 blocks in assembly with asm.
func transposeOn(rows, cols int, src []float32, lds int, dst []float32, ldd int, asm bool) {
	if asm && rows >= 8 && cols >= 8 {
		r8, c8 := rows&^7, cols&^7
		// The last block's rows must be in the slices, as Go's indexing
		// would check.
		_, _ = src[(r8-1)*lds+c8-1], dst[(c8-1)*ldd+r8-1]
		for r0 := 0; r0 < r8; r0 += 8 {
			for c0 := 0; c0 < c8; c0 += 8 {
				transpose8x8(&src[r0*lds+c0], lds, &dst[c0*ldd+r0], ldd)
			}
		}
		if rows > r8 {
			transposeBlocks(rows-r8, cols, src[r8*lds:], lds, dst[r8:], ldd)
		}
		if cols > c8 {
			transposeBlocks(r8, cols-c8, src[c8:], lds, dst[c8*ldd:], ldd)
		}
		return
	}
	transposeBlocks(rows, cols, src, lds, dst, ldd)
}

// transposeBlocks is transpose in Go, a block of 16 rows at a time, so
// that both sides stay in a few cache lines.
func transposeBlocks(rows, cols int, src []float32, lds int, dst []float32, ldd int) {
	const block = 16
	for r0 := 0; r0 < rows; r0 += block {
		r1 := min(r0+block, rows)
		for c := 0; c < cols; c++ {
			out := dst[c*ldd+r0 : c*ldd+r1]
			for j := range out {
				out[j] = src[(r0+j)*lds+c]
			}
		}
	}
}

// activate applies the activation to v in place.
func activate(act string, v []float32) {
	activateOn(act, v, useVecAsm)
}

// activateOn is activate, the ReLUs' multiples of 8 in assembly with asm
// (the same bits but a NaN's payload, TestActivationKernelsAgree).
func activateOn(act string, v []float32, asm bool) {
	switch act {
	case ActReLU:
		done := vecHead(len(v), asm)
		if done > 0 {
			relu8(done, &v[0])
		}
		for i, x := range v[done:] {
			v[done+i] = max(x, 0)
		}
	case ActTanh:
		for i, x := range v {
			v[i] = float32(math.Tanh(float64(x)))
		}
	case ActSigmoid:
		for i, x := range v {
			v[i] = float32(1 / (1 + math.Exp(-float64(x))))
		}
	case ActClippedReLU:
		clip01(v, asm)
	}
}

// activationGrad multiplies the gradient g by the activation's derivative,
// written in terms of its output h.
func activationGrad(act string, h, g []float32) {
	activationGradOn(act, h, g, useVecAsm)
}

// activationGradOn is activationGrad, the ReLUs' multiples of 8 in
// assembly with asm (the same bits, TestActivationKernelsAgree).
func activationGradOn(act string, h, g []float32, asm bool) {
	g = g[:len(h)] // checked before the assembly writes it
	done := 0
	if act == ActReLU || act == ActClippedReLU {
		done = vecHead(len(h), asm)
	}
	if done > 0 {
		if act == ActReLU {
			reluGrad8(done, &h[0], &g[0])
		} else {
			clippedGrad8(done, &h[0], &g[0])
		}
	}
	h, g = h[done:], g[done:]
	switch act {
	case ActReLU:
		// h is ReLU's output, never negative, so its bits are zero exactly
		// where it is zero: a mask without branches, which ReLU's random
		// pattern of zeros would mispredict half the time.
		for i, y := range h {
			mask := uint32(int32(-math.Float32bits(y)) >> 31)
			g[i] = math.Float32frombits(math.Float32bits(g[i]) & mask)
		}
	case ActTanh:
		for i, y := range h {
			g[i] *= 1 - y*y
		}
	case ActSigmoid:
		for i, y := range h {
			g[i] *= y * (1 - y)
		}
	case ActClippedReLU:
		for i, y := range h {
			if y <= 0 || y >= 1 {
				g[i] = 0
			}
		}
	}
}

// stackForwardOp is the stack's forward pass: x, w0, b0, w1, b1, ... → output.
type stackForwardOp struct{ *denseStack }

func (op *stackForwardOp) Arity() int { return 1 + 2*op.layers() }
func (op *stackForwardOp) Type() hm.Type {
	ts := make([]hm.Type, 0, op.Arity()+1)
	for range op.Arity() + 1 {
		ts = append(ts, tensorType(2))
	}
	return hm.NewFnType(ts...)
}
func (op *stackForwardOp) InferShape(...G.DimSizer) (tensor.Shape, error) { return op.outShape(), nil }
func (op *stackForwardOp) WriteHash(h hash.Hash)                          { fmt.Fprintf(h, "%v", op) }
func (op *stackForwardOp) Hashcode() uint32                               { return hashOf(op) }
func (op *stackForwardOp) String() string {
	return fmt.Sprintf("DenseStack#%d%v", op.id, op.widths)
}

func (op *stackForwardOp) Do(inputs ...G.Value) (G.Value, error) {
	x, w, b, err := op.values(inputs)
	if err != nil {
		return nil, err
	}
	op.allocate()
	op.forward(x, w, b)
	return reuse(op.out, op.outShape())
}

// values checks the op's inputs and returns their data.
func (st *denseStack) values(inputs []G.Value) (x []float32, w, b [][]float32, err error) {
	if len(inputs) != 1+2*st.layers() {
		return nil, nil, nil, fmt.Errorf("dense stack: %d inputs, want x and %d weights and biases", len(inputs), 2*st.layers())
	}
	if x, err = float32s(inputs[0], st.batch*st.widths[0], "x"); err != nil {
		return nil, nil, nil, err
	}
	for i := 0; i < st.layers(); i++ {
		wi, err := float32s(inputs[1+2*i], st.widths[i]*st.widths[i+1], fmt.Sprintf("w%d", i))
		if err != nil {
			return nil, nil, nil, err
		}
		bi, err := float32s(inputs[2+2*i], st.widths[i+1], fmt.Sprintf("b%d", i))
		if err != nil {
			return nil, nil, nil, err
		}
		w, b = append(w, wi), append(b, bi)
	}
	return x, w, b, nil
}

func (op *stackForwardOp) DiffWRT(n int) []bool {
	d := make([]bool, n)
	for i := 1; i < n; i++ {
		d[i] = true
	}
	d[0] = op.inputGrad
	return d
}

// SymDiff adds the backward pass: one op computes every gradient from x
// and the output's gradient and returns w0's; one op per other parameter
// hands out its gradient, which orders it after the first.
func (op *stackForwardOp) SymDiff(inputs G.Nodes, output, grad *G.Node) (G.Nodes, error) {
	grads := make(G.Nodes, len(inputs))
	first, err := G.ApplyOp(&stackGradOp{op.denseStack, 0}, inputs[0], output, grad)
	if err != nil {
		return nil, err
	}
	grads[1] = first
	for p := 2; p < len(inputs); p++ {
		if grads[p], err = G.ApplyOp(&stackGradOp{op.denseStack, p - 1}, first); err != nil {
			return nil, err
		}
	}
	if op.inputGrad {
		if grads[0], err = G.ApplyOp(&stackGradOp{op.denseStack, gradInput}, first); err != nil {
			return nil, err
		}
	}
	return grads, nil
}

// gradInput is the stackGradOp param that hands out x's gradient.
const gradInput = -1

// stackGradOp hands out the gradient of parameter param (w0, b0, w1, ...,
// or x for gradInput); param 0 computes them all.
type stackGradOp struct {
	*denseStack
	param int
}

func (op *stackGradOp) Arity() int {
	if op.param == 0 {
		return 3 // x, the output (ordering it after the forward op), its gradient
	}
	return 1
}
func (op *stackGradOp) Type() hm.Type {
	ts := make([]hm.Type, 0, op.Arity()+1)
	for range op.Arity() + 1 {
		ts = append(ts, tensorType(2))
	}
	return hm.NewFnType(ts...)
}
func (op *stackGradOp) InferShape(...G.DimSizer) (tensor.Shape, error) { return op.shape(), nil }
func (op *stackGradOp) shape() tensor.Shape {
	if op.param == gradInput {
		return tensor.Shape{op.batch, op.widths[0]}
	}
	i := op.param / 2
	if op.param%2 == 0 {
		return tensor.Shape{op.widths[i], op.widths[i+1]}
	}
	return tensor.Shape{1, op.widths[i+1]}
}
func (op *stackGradOp) WriteHash(h hash.Hash) { fmt.Fprintf(h, "%v", op) }
func (op *stackGradOp) Hashcode() uint32      { return hashOf(op) }
func (op *stackGradOp) String() string {
	if op.param == gradInput {
		return fmt.Sprintf("DenseStack#%d.dx", op.id)
	}
	kind := "w"
	if op.param%2 == 1 {
		kind = "b"
	}
	return fmt.Sprintf("DenseStack#%d.d%s%d", op.id, kind, op.param/2)
}

func (op *stackGradOp) Do(inputs ...G.Value) (G.Value, error) {
	if len(inputs) != op.Arity() {
		return nil, fmt.Errorf("%v: %d inputs, want %d", op, len(inputs), op.Arity())
	}
	if op.out == nil {
		return nil, fmt.Errorf("%v ran before the stack's forward pass", op)
	}
	if op.param == gradInput {
		return reuse(op.dx, op.shape())
	}
	i := op.param / 2
	if op.param%2 == 1 {
		return reuse(op.db[i], op.shape())
	}
	if op.param == 0 {
		x, err := float32s(inputs[0], op.batch*op.widths[0], "x")
		if err != nil {
			return nil, err
		}
		dout, err := float32s(inputs[2], op.batch*op.widths[op.layers()], "the output's gradient")
		if err != nil {
			return nil, err
		}
		op.backward(x, dout)
	}
	return reuse(op.dw[i], op.shape())
}
