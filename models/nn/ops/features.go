package ops

import (
	"fmt"
	"hash"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// FeatureTransformer is NNUE's first layer on sparse binary features: for
// each row of active and each of its perspectives, the sum of the rows of
// weights (features × width) picked by the perspective's active features,
// plus bias (1 × width), clipped to [0, 1] when clipped is set. The result
// is batch × perspectives·width, the perspectives side by side in the
// order they come in active.
//
// active is batch × perspectives·slots float32 values (the training loop's
// buffers are float32): slots values per perspective, each a feature index
// plus one, 0 for an empty slot. So a zeroed row, which is what the loop
// pads a short batch with, has no features and costs nothing.
//
// It is the product of a batch × features 0/1 matrix and weights without
// the product: the forward pass costs active features × width, not
// features × width, and the gradient adds each output row's gradient into
// only the weight rows of its features. The clip is fused in, so its
// gradient mask needs no pass of its own. Like the other ops here it keeps
// its buffers from step to step, so a graph using it runs one pass at a time.
func FeatureTransformer(weights, bias, active *G.Node, perspectives int, clipped bool) (*G.Node, error) {
	ws, bs, as := weights.Shape(), bias.Shape(), active.Shape()
	switch {
	case len(ws) != 2 || ws[0] < 1 || ws[1] < 1:
		return nil, fmt.Errorf("feature transformer: weights %v must be a features × width matrix", ws)
	case bs.TotalSize() != ws[1]:
		return nil, fmt.Errorf("feature transformer: bias %v does not match width %d", bs, ws[1])
	case perspectives < 1 || len(as) != 2 || as[1]%perspectives != 0:
		return nil, fmt.Errorf("feature transformer: active %v is not batch × %d perspectives of slots", as, perspectives)
	}
	f := &featureTransformer{id: tokenOpIDs.Add(1), features: ws[0], width: ws[1], batch: as[0],
		perspectives: perspectives, slots: as[1] / perspectives, clipped: clipped}
	return G.ApplyOp(&featureForwardOp{f}, weights, bias, active)
}

type featureTransformer struct {
	opTraits
	coreShare
	id                     uint64
	features, width, batch int
	perspectives, slots    int
	clipped                bool
	out, dweights, dbias   *tensor.Dense
	masked                 []float32 // the output's gradient through the clip
	// rowLists holds each task worker's weight rows of a perspective
	// (forwardOn); start, fill, uses and allRows index the batch rows each
	// feature is active in, and zeros starts their sums (sumGradients).
	rowLists                         [][]int32
	start, fill, uses, allRows       []int32
	zeros                            []float32
	outShape, weightShape, biasShape tensor.Shape
}

func (f *featureTransformer) allocate() {
	if f.out != nil {
		return
	}
	f.outShape = tensor.Shape{f.batch, f.perspectives * f.width}
	f.weightShape, f.biasShape = tensor.Shape{f.features, f.width}, tensor.Shape{1, f.width}
	f.out = dense(make([]float32, f.batch*f.perspectives*f.width), f.outShape)
	f.dweights = dense(make([]float32, f.features*f.width), f.weightShape)
	f.dbias = dense(make([]float32, f.width), f.biasShape)
	f.masked = make([]float32, f.batch*f.perspectives*f.width)
}

// featureRows is how many rows of the batch one forward task sums.
const featureRows = 32

// forward writes every row's accumulators into out.
func (f *featureTransformer) forward(w, b, active, out []float32) {
	f.forwardOn(w, b, active, out, useAVX512 && f.width%256 == 0)
}

// forwardOn is forward; with sums, each 256 columns of an accumulator are
// summed in AVX-512 registers (featureSum256) instead of row by row in
// memory: the same additions in the same order, so the same bits.
func (f *featureTransformer) forwardOn(w, b, active, out []float32, sums bool) {
	n, tasks := f.width, (f.batch+featureRows-1)/featureRows
	for len(f.rowLists) < f.taskWorkers(tasks) {
		f.rowLists = append(f.rowLists, make([]int32, max(f.slots, 1)))
	}
	f.forTasks(tasks, func(worker, task int) {
		idx := f.rowLists[worker]
		for r := task * featureRows; r < min((task+1)*featureRows, f.batch); r++ {
			for p := 0; p < f.perspectives; p++ {
				acc := out[(r*f.perspectives+p)*n:][:n]
				slots := active[(r*f.perspectives+p)*f.slots:][:f.slots]
				count, ok := 0, false
				if sums {
					count, ok = f.featureRows(slots, idx)
				}
				if ok {
					for c0 := 0; c0 < n; c0 += 256 {
						featureSum256(&acc[c0], &b[c0], &w[c0], n, &idx[0], count)
					}
				} else {
					copy(acc, b)
					for _, v := range slots {
						if v != 0 {
							addRow(acc, w[(int(v)-1)*n:][:n])
						}
					}
				}
				if f.clipped {
					clip01(acc, useVecAsm)
				}
			}
		}
	})
}

// featureRows lists the weight rows of a perspective's active slots in
// idx, in slot order, and says how many; false when a slot names no row
// of the weights (the Go loop then fails on it as it always did).
func (f *featureTransformer) featureRows(slots []float32, idx []int32) (int, bool) {
	count := 0
	for _, v := range slots {
		if v == 0 {
			continue
		}
		row, ok := f.weightRow(v)
		if !ok {
			return 0, false
		}
		idx[count] = int32(row)
		count++
	}
	return count, true
}

// weightRow is the row of the weights an active slot's value names (the
// feature index plus one); false when it names none.
func (f *featureTransformer) weightRow(v float32) (int, bool) {
	row := int(v) - 1
	return row, row >= 0 && row < f.features && float32(row+1) == v
}

// backward adds the output's gradient dout into the weight rows of the
// active features and into the bias. The columns are split between the
// workers, so no two write the same value and each value is summed in row
// order whatever the number of cores.
func (f *featureTransformer) backward(active, out, dout []float32) {
	f.backwardOn(active, out, dout, useAVX512 && f.width%256 == 0)
}

// backwardOn is backward; with sums, each weight row's gradient is summed
// in AVX-512 registers over the rows of the batch that use it
// (featureSum256 over an index of those rows, in batch order), and the
// bias's over every row: the same additions in the same order as adding
// each row's gradient into the weight rows in memory, so the same bits.
func (f *featureTransformer) backwardOn(active, out, dout []float32, sums bool) {
	g := dout
	if f.clipped {
		g = f.masked
		clipGrad(g, out, dout, useVecAsm)
	}
	if sums && f.sumGradients(active, g) {
		return
	}
	n := f.width
	dw, db := f.dweights.Data().([]float32), f.dbias.Data().([]float32)
	band := n
	if bands := f.taskWorkers(n / 64); bands > 1 {
		band = roundUp((n+bands-1)/bands, 8)
	}
	f.forTasks((n+band-1)/band, func(_, task int) {
		c0, c1 := task*band, min((task+1)*band, n)
		for row := 0; row < f.features; row++ {
			clear(dw[row*n+c0 : row*n+c1])
		}
		clear(db[c0:c1])
		for rp := 0; rp < f.batch*f.perspectives; rp++ {
			grad := g[rp*n+c0 : rp*n+c1]
			addRow(db[c0:c1], grad)
			for _, v := range active[rp*f.slots:][:f.slots] {
				if v != 0 {
					addRow(dw[(int(v)-1)*n+c0:(int(v)-1)*n+c1], grad)
				}
			}
		}
	})
}

// sumGradients writes the weights' and the bias's gradients from g with
// featureSum256 and says whether it could: false, with nothing written,
// when a slot names no row of the weights.
func (f *featureTransformer) sumGradients(active, g []float32) bool {
	n, rowsIn := f.width, f.batch*f.perspectives
	if f.start == nil {
		f.start, f.fill = make([]int32, f.features+1), make([]int32, f.features)
		f.uses, f.allRows = make([]int32, max(rowsIn*f.slots, 1)), make([]int32, max(rowsIn, 1))
		for i := range f.allRows {
			f.allRows[i] = int32(i)
		}
		f.zeros = make([]float32, 256)
	}
	// The batch rows each feature is active in, in batch order (a counting
	// sort): feature k's are uses[start[k]:start[k+1]].
	clear(f.start)
	for _, v := range active[:rowsIn*f.slots] {
		if v == 0 {
			continue
		}
		row, ok := f.weightRow(v)
		if !ok {
			return false
		}
		f.start[row+1]++
	}
	for k := 1; k <= f.features; k++ {
		f.start[k] += f.start[k-1]
	}
	copy(f.fill, f.start[:f.features])
	for rp := 0; rp < rowsIn; rp++ {
		for _, v := range active[rp*f.slots:][:f.slots] {
			if v != 0 {
				k := int(v) - 1
				f.uses[f.fill[k]] = int32(rp)
				f.fill[k]++
			}
		}
	}
	dw, db := f.dweights.Data().([]float32), f.dbias.Data().([]float32)
	const featuresPerTask = 64
	f.forTasks((f.features+featuresPerTask-1)/featuresPerTask, func(_, task int) {
		for k := task * featuresPerTask; k < min((task+1)*featuresPerTask, f.features); k++ {
			rows := f.uses[f.start[k]:f.start[k+1]]
			first := &f.allRows[0] // not read when the feature is in no row
			if len(rows) > 0 {
				first = &rows[0]
			}
			for c0 := 0; c0 < n; c0 += 256 {
				featureSum256(&dw[k*n+c0], &f.zeros[0], &g[c0], n, first, len(rows))
			}
		}
	})
	for c0 := 0; c0 < n; c0 += 256 {
		featureSum256(&db[c0], &f.zeros[0], &g[c0], n, &f.allRows[0], rowsIn)
	}
	return true
}

// addRow adds x to y, with the vector kernel when the length allows.
func addRow(y, x []float32) {
	if len(y)%8 == 0 {
		axpyRuns(1, len(y), 1, x, 0, y, 0)
		return
	}
	x = x[:len(y)]
	for i, v := range x {
		y[i] += v
	}
}

type featureForwardOp struct{ *featureTransformer }

func (op *featureForwardOp) Arity() int { return 3 }
func (op *featureForwardOp) Type() hm.Type {
	return hm.NewFnType(tensorType(2), tensorType(2), hm.TypeVariable('b'), tensorType(2))
}
func (op *featureForwardOp) InferShape(...G.DimSizer) (tensor.Shape, error) {
	return tensor.Shape{op.batch, op.perspectives * op.width}, nil
}
func (op *featureForwardOp) WriteHash(h hash.Hash) { fmt.Fprintf(h, "%v", op) }
func (op *featureForwardOp) Hashcode() uint32      { return hashOf(op) }
func (op *featureForwardOp) String() string {
	return fmt.Sprintf("FeatureTransformer#%d{%d×%d, %d×%d slots, clip %t}", op.id, op.features, op.width,
		op.perspectives, op.slots, op.clipped)
}

func (op *featureForwardOp) Do(inputs ...G.Value) (G.Value, error) {
	if len(inputs) != 3 {
		return nil, fmt.Errorf("feature transformer: %d inputs, want weights, bias and active", len(inputs))
	}
	op.allocate()
	w, err := float32s(inputs[0], op.features*op.width, "feature weights")
	if err != nil {
		return nil, err
	}
	b, err := float32s(inputs[1], op.width, "feature bias")
	if err != nil {
		return nil, err
	}
	active, err := activeFeatures(inputs[2], op.batch*op.perspectives*op.slots, op.features)
	if err != nil {
		return nil, err
	}
	op.forward(w, b, active, op.out.Data().([]float32))
	return reuse(op.out, op.outShape)
}

// activeFeatures reads the active slots: 0 or a feature index plus one.
func activeFeatures(v G.Value, n, features int) ([]float32, error) {
	data, err := float32s(v, n, "active features")
	if err != nil {
		return nil, err
	}
	for i, x := range data {
		if !(x >= 0 && x <= float32(features) && x == float32(int(x))) {
			return nil, fmt.Errorf("active features[%d] = %g is not 0 or a feature index plus one (at most %d)", i, x, features)
		}
	}
	return data, nil
}

func (op *featureForwardOp) DiffWRT(int) []bool { return []bool{true, true, false} }

// SymDiff adds the backward pass: one op computes both gradients and hands
// out the weights'; a second hands out the bias's, after the first.
func (op *featureForwardOp) SymDiff(inputs G.Nodes, output, grad *G.Node) (G.Nodes, error) {
	dw, err := G.ApplyOp(&featureGradOp{op.featureTransformer, false}, inputs[2], output, grad)
	if err != nil {
		return nil, err
	}
	db, err := G.ApplyOp(&featureGradOp{op.featureTransformer, true}, dw)
	return G.Nodes{dw, db, nil}, err
}

// featureGradOp hands out the weights' gradient (computing both from
// active, the output and its gradient) or, given the first, the bias's.
type featureGradOp struct {
	*featureTransformer
	bias bool
}

func (op *featureGradOp) Arity() int {
	if op.bias {
		return 1
	}
	return 3
}
func (op *featureGradOp) Type() hm.Type {
	if op.bias {
		return hm.NewFnType(tensorType(2), tensorType(2))
	}
	return hm.NewFnType(hm.TypeVariable('b'), tensorType(2), tensorType(2), tensorType(2))
}
func (op *featureGradOp) InferShape(...G.DimSizer) (tensor.Shape, error) {
	if op.bias {
		return tensor.Shape{1, op.width}, nil
	}
	return tensor.Shape{op.features, op.width}, nil
}
func (op *featureGradOp) WriteHash(h hash.Hash) { fmt.Fprintf(h, "%v", op) }
func (op *featureGradOp) Hashcode() uint32      { return hashOf(op) }
func (op *featureGradOp) String() string {
	if op.bias {
		return fmt.Sprintf("FeatureTransformer#%d.dbias", op.id)
	}
	return fmt.Sprintf("FeatureTransformer#%d.dweights", op.id)
}

func (op *featureGradOp) Do(inputs ...G.Value) (G.Value, error) {
	if len(inputs) != op.Arity() {
		return nil, fmt.Errorf("%v: %d inputs, want %d", op, len(inputs), op.Arity())
	}
	if op.out == nil {
		return nil, fmt.Errorf("%v ran before the forward pass", op)
	}
	if op.bias {
		return reuse(op.dbias, op.biasShape)
	}
	active, err := activeFeatures(inputs[0], op.batch*op.perspectives*op.slots, op.features)
	if err != nil {
		return nil, err
	}
	size := op.batch * op.perspectives * op.width
	out, err := float32s(inputs[1], size, "the output")
	if err != nil {
		return nil, err
	}
	dout, err := float32s(inputs[2], size, "the output's gradient")
	if err != nil {
		return nil, err
	}
	op.backward(active, out, dout)
	return reuse(op.dweights, op.weightShape)
}
