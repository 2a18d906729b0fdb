package ops

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// refBlock is the block written out in float64 the slow, obvious way:
// x is batch-major, as is the result.
func refBlock(g geometry, x, w, b []float64) []float64 {
	out := make([]float64, g.outputSize())
	conv := func(n, f, oy, ox int) float64 {
		s := b[f]
		for c := 0; c < g.channels; c++ {
			for ky := 0; ky < g.kernel; ky++ {
				for kx := 0; kx < g.kernel; kx++ {
					iy, ix := oy+ky-g.pad, ox+kx-g.pad
					if iy >= 0 && iy < g.height && ix >= 0 && ix < g.width {
						s += w[((f*g.channels+c)*g.kernel+ky)*g.kernel+kx] * x[((n*g.channels+c)*g.height+iy)*g.width+ix]
					}
				}
			}
		}
		return math.Max(s, 0)
	}
	for n := 0; n < g.batch; n++ {
		for f := 0; f < g.filters; f++ {
			for py := 0; py < g.poolH; py++ {
				for px := 0; px < g.poolW; px++ {
					m := math.Inf(-1)
					for dy := 0; dy < g.pool; dy++ {
						for dx := 0; dx < g.pool; dx++ {
							m = math.Max(m, conv(n, f, py*g.poolStride+dy, px*g.poolStride+dx))
						}
					}
					out[((n*g.filters+f)*g.poolH+py)*g.poolW+px] = m
				}
			}
		}
	}
	return out
}

// relayout copies a batch-major map (batch × channels × plane) into l.
func relayout(src []float64, l Layout, batch, channels, plane int) []float64 {
	dst := make([]float64, len(src))
	ss, cs, ps := strides(l, channels, plane)
	for n := 0; n < batch; n++ {
		for c := 0; c < channels; c++ {
			for p := 0; p < plane; p++ {
				dst[n*ss+c*cs+p*ps] = src[(n*channels+c)*plane+p]
			}
		}
	}
	return dst
}

func toFloat32(v []float64) []float32 {
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(x)
	}
	return out
}

func randoms(rng *rand.Rand, n int, scale float64) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = scale * (2*rng.Float64() - 1)
	}
	return v
}

type blockCase struct {
	name                  string
	batch, channels, size int
	filters, kernel, pad  int
	pool, poolStride      int
	in, out               Layout
	flatten               bool
}

var blockCases = []blockCase{
	{name: "thesis-first", batch: 3, channels: 1, size: 8, filters: 4, kernel: 3, pad: 1, pool: 3, poolStride: 1, in: BatchMajor, out: PositionMajor},
	{name: "thesis-second", batch: 3, channels: 3, size: 6, filters: 2, kernel: 3, pad: 1, pool: 2, poolStride: 2, in: PositionMajor, out: BatchMajor, flatten: true},
	{name: "planes-nopool", batch: 2, channels: 4, size: 5, filters: 3, kernel: 3, pad: 0, in: BatchMajor, out: BatchMajor},
	{name: "kernel2-pool2/1", batch: 2, channels: 2, size: 5, filters: 3, kernel: 2, pad: 1, pool: 2, poolStride: 1, in: PositionMajor, out: PositionMajor},
	// Three chunks of samples, the last one short, and two tiles of filters.
	{name: "chunks-and-tiles", batch: 2*chunkSamples + 5, channels: 2, size: 5, filters: tile + 1, kernel: 3, pad: 1, pool: 2, poolStride: 1, in: PositionMajor, out: BatchMajor},
}

func (c blockCase) spec(inputGrad bool) ConvBlockSpec {
	return ConvBlockSpec{Kernel: c.kernel, Pad: c.pad, Pool: c.pool, PoolStride: c.poolStride,
		In: c.in, Out: c.out, Flatten: c.flatten, InputGrad: inputGrad}
}

func (c blockCase) xShape() []int {
	if c.in == PositionMajor {
		return []int{c.batch, c.size, c.size, c.channels}
	}
	return []int{c.batch, c.channels, c.size, c.size}
}

// blockGraph is loss = sum(r ⊙ ConvBlock(x, w, b)) with x, w, b
// learnable, r a fixed random weighting, and the loss's gradients.
type blockGraph struct {
	x, w, b, out *G.Node
	r            []float64 // batch-major
	geom         geometry
	vm           G.VM
}

// newBlockGraph builds the case's graph on batch-major x, laid out as the
// case says.
func newBlockGraph(t *testing.T, c blockCase, x, w, b []float64, rng *rand.Rand) *blockGraph {
	t.Helper()
	g := G.NewGraph()
	xs := c.xShape()
	xn := G.NewTensor(g, tensor.Float32, 4, G.WithShape(xs...), G.WithName("x"),
		G.WithValue(tensor.New(tensor.WithShape(xs...), tensor.WithBacking(toFloat32(relayout(x, c.in, c.batch, c.channels, c.size*c.size))))))
	ws := []int{c.filters, c.channels, c.kernel, c.kernel}
	wn := G.NewTensor(g, tensor.Float32, 4, G.WithShape(ws...), G.WithName("w"),
		G.WithValue(tensor.New(tensor.WithShape(ws...), tensor.WithBacking(toFloat32(w)))))
	bn := G.NewVector(g, tensor.Float32, G.WithShape(c.filters), G.WithName("b"),
		G.WithValue(tensor.New(tensor.WithShape(c.filters), tensor.WithBacking(toFloat32(b)))))
	out, err := ConvBlock(xn, wn, bn, c.spec(true))
	if err != nil {
		t.Fatal(err)
	}
	geom := out.Op().(*forwardOp).geometry
	r := randoms(rng, geom.outputSize(), 1)
	rn := G.NewTensor(g, tensor.Float32, out.Dims(), G.WithShape(out.Shape()...), G.WithName("r"),
		G.WithValue(tensor.New(tensor.WithShape(out.Shape()...), tensor.WithBacking(toFloat32(relayout(r, c.out, c.batch, c.filters, geom.pooledPlane()))))))
	prod, err := G.HadamardProd(out, rn)
	if err != nil {
		t.Fatal(err)
	}
	loss, err := G.Sum(prod)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := G.Grad(loss, xn, wn, bn); err != nil {
		t.Fatal(err)
	}
	return &blockGraph{x: xn, w: wn, b: bn, out: out, r: r, geom: geom, vm: G.NewTapeMachine(g, G.BindDualValues(xn, wn, bn))}
}

func (bg *blockGraph) run(t *testing.T) {
	t.Helper()
	bg.vm.Reset()
	if err := bg.vm.RunAll(); err != nil {
		t.Fatal(err)
	}
}

func gradOf(t *testing.T, n *G.Node) []float32 {
	t.Helper()
	g, err := n.Grad()
	if err != nil {
		t.Fatal(err)
	}
	return append([]float32(nil), g.Data().([]float32)...)
}

// caseInputs draws x, w and b for a case: continuous values, so no two
// pooled candidates tie and no conv output sits on ReLU's kink.
func caseInputs(c blockCase, rng *rand.Rand) (x, w, b []float64) {
	fanIn := float64(c.channels * c.kernel * c.kernel)
	return randoms(rng, c.batch*c.channels*c.size*c.size, 1),
		randoms(rng, c.filters*c.channels*c.kernel*c.kernel, 1/math.Sqrt(fanIn)),
		randoms(rng, c.filters, 0.2)
}

// forEachKernelSet runs test with the assembly kernels (where the CPU has
// them) and with the plain-Go ones.
func forEachKernelSet(t *testing.T, test func(t *testing.T)) {
	for _, asm := range []bool{true, false} {
		if asm && !useAsm {
			continue
		}
		t.Run(map[bool]string{true: "asm", false: "go"}[asm], func(t *testing.T) {
			defer func(saved bool) { useAsm = saved }(useAsm)
			useAsm = asm
			test(t)
		})
	}
}

func TestConvBlockForwardMatchesReference(t *testing.T) {
	forEachKernelSet(t, testConvBlockForwardMatchesReference)
}

func testConvBlockForwardMatchesReference(t *testing.T) {
	for i, c := range blockCases {
		t.Run(c.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(i), 1))
			x, w, b := caseInputs(c, rng)
			bg := newBlockGraph(t, c, x, w, b, rng)
			defer bg.vm.Close()
			want := relayout(refBlock(bg.geom, x, w, b), c.out, c.batch, c.filters, bg.geom.pooledPlane())
			for run := 0; run < 2; run++ { // the second run reuses the block's buffers
				bg.run(t)
				got := bg.out.Value().Data().([]float32)
				if len(got) != len(want) || !bg.out.Shape().Eq(bg.out.Value().Shape()) {
					t.Fatalf("output %v of %d values, want %v of %d", bg.out.Value().Shape(), len(got), bg.out.Shape(), len(want))
				}
				for j := range want {
					if math.Abs(float64(got[j])-want[j]) > 1e-5 {
						t.Fatalf("run %d, output %d: %g, want %g", run, j, got[j], want[j])
					}
				}
			}
		})
	}
}

// TestConvBlockGradientsMatchFiniteDifferences checks dx, dw and db of
// every case against central differences of the float64 reference.
func TestConvBlockGradientsMatchFiniteDifferences(t *testing.T) {
	forEachKernelSet(t, testConvBlockGradientsMatchFiniteDifferences)
}

func testConvBlockGradientsMatchFiniteDifferences(t *testing.T) {
	for i, c := range blockCases {
		t.Run(c.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(i), 2))
			x, w, b := caseInputs(c, rng)
			bg := newBlockGraph(t, c, x, w, b, rng)
			defer bg.vm.Close()
			bg.run(t)
			loss := func() float64 {
				var s float64
				for j, v := range refBlock(bg.geom, x, w, b) {
					s += bg.r[j] * v
				}
				return s
			}
			dx := gradOf(t, bg.x)
			// x's gradient comes back in the case's input layout.
			dxBatchMajor := make([]float32, len(dx))
			plane := c.size * c.size
			ss, cs, ps := strides(c.in, c.channels, plane)
			for n := 0; n < c.batch; n++ {
				for ch := 0; ch < c.channels; ch++ {
					for p := 0; p < plane; p++ {
						dxBatchMajor[(n*c.channels+ch)*plane+p] = dx[n*ss+ch*cs+p*ps]
					}
				}
			}
			for _, p := range []struct {
				name   string
				values []float64
				grad   []float32
			}{{"x", x, dxBatchMajor}, {"w", w, gradOf(t, bg.w)}, {"b", b, gradOf(t, bg.b)}} {
				checkFiniteDifferences(t, p.name, p.values, p.grad, loss)
			}
		})
	}
}

// checkFiniteDifferences compares grad, the gradient of loss at values,
// with central differences: everywhere, or at 60 random places for large
// parameters, where the reference's cost would add up.
func checkFiniteDifferences(t *testing.T, name string, values []float64, grad []float32, loss func() float64) {
	t.Helper()
	const h = 1e-6 // small, so that a step rarely crosses a kink of ReLU or max
	if len(grad) != len(values) {
		t.Fatalf("d%s has %d values, want %d", name, len(grad), len(values))
	}
	places := make([]int, len(values))
	for j := range places {
		places[j] = j
	}
	if len(places) > 60 {
		rng := rand.New(rand.NewPCG(uint64(len(values)), 9))
		rng.Shuffle(len(places), func(i, j int) { places[i], places[j] = places[j], places[i] })
		places = places[:60]
	}
	var nonzero int
	for _, j := range places {
		v := values[j]
		values[j] = v + h
		up := loss()
		values[j] = v - h
		down := loss()
		values[j] = v
		want := (up - down) / (2 * h)
		if math.Abs(float64(grad[j])-want) > 1e-4+1e-3*math.Abs(want) {
			t.Fatalf("d%s[%d] = %g, finite differences %g", name, j, grad[j], want)
		}
		if want != 0 {
			nonzero++
		}
	}
	if nonzero == 0 {
		t.Fatalf("d%s is zero everywhere: the check checked nothing", name)
	}
}

// TestConvBlocksChained runs the thesis's two blocks one after the other,
// the first on the graph's input without an input gradient, and checks the
// first block's weight gradient, which flows through the second block's
// dx, against finite differences.
func TestConvBlocksChained(t *testing.T) {
	first, second := blockCases[0], blockCases[1]
	second.batch, second.channels = first.batch, first.filters
	rng := rand.New(rand.NewPCG(7, 7))
	x, w1, b1 := caseInputs(first, rng)
	_, w2, b2 := caseInputs(second, rng)
	g := G.NewGraph()
	param := func(name string, v []float64, shape ...int) *G.Node {
		return G.NewTensor(g, tensor.Float32, len(shape), G.WithShape(shape...), G.WithName(name),
			G.WithValue(tensor.New(tensor.WithShape(shape...), tensor.WithBacking(toFloat32(v)))))
	}
	xn := param("x", x, first.xShape()...)
	w1n := param("w1", w1, first.filters, first.channels, first.kernel, first.kernel)
	b1n := param("b1", b1, first.filters)
	w2n := param("w2", w2, second.filters, second.channels, second.kernel, second.kernel)
	b2n := param("b2", b2, second.filters)
	h, err := ConvBlock(xn, w1n, b1n, first.spec(false))
	if err != nil {
		t.Fatal(err)
	}
	g1 := h.Op().(*forwardOp).geometry
	out, err := ConvBlock(h, w2n, b2n, second.spec(true))
	if err != nil {
		t.Fatal(err)
	}
	g2 := out.Op().(*forwardOp).geometry
	r := randoms(rng, g2.outputSize(), 1)
	prod, err := G.HadamardProd(out, param("r", r, out.Shape()...))
	if err != nil {
		t.Fatal(err)
	}
	loss, err := G.Sum(prod)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := G.Grad(loss, w1n, b1n, w2n, b2n); err != nil {
		t.Fatal(err)
	}
	vm := G.NewTapeMachine(g, G.BindDualValues(w1n, b1n, w2n, b2n))
	defer vm.Close()
	if err := vm.RunAll(); err != nil {
		t.Fatal(err)
	}
	refLoss := func() float64 {
		var s float64
		for j, v := range refBlock(g2, refBlock(g1, x, w1, b1), w2, b2) {
			s += r[j] * v
		}
		return s
	}
	checkFiniteDifferences(t, "w1", w1, gradOf(t, w1n), refLoss)
	checkFiniteDifferences(t, "b1", b1, gradOf(t, b1n), refLoss)
}

func TestConvBlockRejectsBadShapes(t *testing.T) {
	g := G.NewGraph()
	x := G.NewTensor(g, tensor.Float32, 4, G.WithShape(2, 1, 8, 8), G.WithName("x"))
	for _, tc := range []struct {
		w, b []int
		spec ConvBlockSpec
	}{
		{[]int{4, 2, 3, 3}, []int{4}, ConvBlockSpec{Kernel: 3, Pad: 1}},                         // channels
		{[]int{4, 1, 3, 3}, []int{3}, ConvBlockSpec{Kernel: 3, Pad: 1}},                         // bias size
		{[]int{4, 1, 3, 3}, []int{4}, ConvBlockSpec{Kernel: 5, Pad: 1}},                         // kernel
		{[]int{4, 1, 3, 3}, []int{4}, ConvBlockSpec{Kernel: 3, Pad: 0, Pool: 7, PoolStride: 1}}, // pool
		{[]int{4, 1, 3, 3}, []int{4}, ConvBlockSpec{Kernel: 3, Out: PositionMajor, Flatten: true}},
	} {
		w := G.NewTensor(g, tensor.Float32, 4, G.WithShape(tc.w...), G.WithName(fmt.Sprint("w", tc.w, tc.spec)))
		b := G.NewVector(g, tensor.Float32, G.WithShape(tc.b...), G.WithName(fmt.Sprint("b", tc.b, tc.spec)))
		if _, err := ConvBlock(x, w, b, tc.spec); err == nil {
			t.Errorf("w %v, b %v, %+v accepted", tc.w, tc.b, tc.spec)
		}
	}
}

// TestConvBlockSameOnAnyCores checks that the output and the gradients are
// bit for bit the same whether one core or several ran the chunks: the
// training loop's resume promise needs it.
func TestConvBlockSameOnAnyCores(t *testing.T) {
	c := blockCases[len(blockCases)-1]
	sameOnAnyCores(t, "output, dx, dw, db", func(t *testing.T) [][]float32 {
		rng := rand.New(rand.NewPCG(5, 5))
		x, w, b := caseInputs(c, rng)
		bg := newBlockGraph(t, c, x, w, b, rng)
		defer bg.vm.Close()
		bg.run(t)
		return [][]float32{slices.Clone(bg.out.Value().Data().([]float32)),
			gradOf(t, bg.x), gradOf(t, bg.w), gradOf(t, bg.b)}
	})
}
