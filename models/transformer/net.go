package transformer

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"

	"github.com/dchess/dchess/dataset/encode"
	"github.com/dchess/dchess/models/dcw"
)

// gemm is gonum's float32 matrix product, the one Gorgonia trains with.
var gemm gonum.Implementation

// Net is the transformer in plain Go, for play. Forward reuses the Net's
// buffers, so a Net is not safe for concurrent use: Clone one per goroutine.
type Net struct {
	arch Arch
	w    map[string][]float32
	// scratch, one row per position
	x, n, q, k, v, o, att, hid, scores []float32
}

// NewNet builds a Net of architecture arch from f's tensors; the family's
// own config, in f.Arch, is the family's to read (arch comes from it).
func NewNet(arch Arch, f *dcw.File) (*Net, error) {
	if err := arch.Validate(f.Family); err != nil {
		return nil, err
	}
	n := &Net{arch: arch, w: map[string][]float32{}}
	for _, p := range arch.paramShapes() {
		data, err := f.Tensor(p.name, p.shape...)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.Family, err)
		}
		n.w[p.name] = data
	}
	if arch.ActionSquares {
		// Fold the part rows into a copy of the move table once, so a
		// forward pass reads one row per move as without them.
		d, parts := arch.Dim, n.w["embed.action.parts"]
		table := append([]float32(nil), n.w["embed.action"]...)
		for a := 0; a < encode.ActionVocab; a++ {
			row := table[a*d : (a+1)*d]
			for _, r := range encode.ActionPartRows(a) {
				for j, v := range parts[r*d : (r+1)*d] {
					row[j] += v
				}
			}
		}
		n.w["embed.action"] = table
	}
	n.allocate()
	return n, nil
}

func (n *Net) allocate() {
	L, d := n.arch.SeqLen(), n.arch.Dim
	n.x = make([]float32, L*d)
	n.n = make([]float32, L*d)
	n.q = make([]float32, L*d/n.arch.Heads)
	n.k = make([]float32, len(n.q))
	n.v = make([]float32, len(n.q))
	n.o = make([]float32, L*d)
	n.att = make([]float32, L*d)
	n.hid = make([]float32, L*n.arch.MLP)
	n.scores = make([]float32, L*L)
}

// Arch returns the network's architecture.
func (n *Net) Arch() Arch { return n.arch }

// Clone returns a Net sharing the weights with its own buffers.
func (n *Net) Clone() *Net {
	c := &Net{arch: n.arch, w: n.w}
	c.allocate()
	return c
}

// matmul writes a (rows × in) · w (in × out) + bias into out (rows × out,
// row stride ldo), bias nil for none.
func matmul(out []float32, ldo int, a []float32, rows, in int, w []float32, out0 int, bias []float32) {
	if bias != nil {
		for r := 0; r < rows; r++ {
			copy(out[r*ldo:r*ldo+out0], bias)
		}
	}
	beta := float32(0)
	if bias != nil {
		beta = 1
	}
	gemm.Sgemm(blas.NoTrans, blas.NoTrans, rows, out0, in, 1, a, in, w, out0, beta, out, ldo)
}

// layerNorm writes the normalised rows of x into out.
func layerNorm(out, x []float32, rows, d int, gain, bias []float32) {
	for r := 0; r < rows; r++ {
		row, o := x[r*d:(r+1)*d], out[r*d:(r+1)*d]
		var mean, variance float64
		for _, v := range row {
			mean += float64(v)
		}
		mean /= float64(d)
		for _, v := range row {
			variance += (float64(v) - mean) * (float64(v) - mean)
		}
		inv := 1 / math.Sqrt(variance/float64(d)+layerNormEps)
		for i, v := range row {
			o[i] = float32((float64(v)-mean)*inv)*gain[i] + bias[i]
		}
	}
}

// hidden runs the blocks on the input tokens (state words or MaskState in
// the state slots, action words or MaskAction in the action slots) and
// leaves the final normalised rows in n.n.
func (n *Net) hidden(in []int16) {
	c := n.arch
	L, d, dk, ss := c.SeqLen(), c.Dim, c.Dim/c.Heads, c.StateSlots()
	es, ea, pos := n.w["embed.state"], n.w["embed.action"], n.w["embed.pos"]
	for i := 0; i < L; i++ {
		row := n.x[i*d : (i+1)*d]
		var e []float32
		if i < ss {
			e = es[int(in[i])*d:]
		} else {
			e = ea[int(in[i])*d:]
		}
		p := pos[i*d:]
		for j := range row {
			row[j] = e[j] + p[j]
		}
	}
	scale := float32(1 / math.Sqrt(float64(dk)))
	for l := 0; l < c.Layers; l++ {
		p := fmt.Sprintf("block%d.", l)
		layerNorm(n.n, n.x, L, d, n.w[p+"ln1.g"], n.w[p+"ln1.b"])
		for hd := 0; hd < c.Heads; hd++ {
			hp := fmt.Sprintf("%shead%d.", p, hd)
			matmul(n.q, dk, n.n, L, d, n.w[hp+"q"], dk, nil)
			matmul(n.k, dk, n.n, L, d, n.w[hp+"k"], dk, nil)
			matmul(n.v, dk, n.n, L, d, n.w[hp+"v"], dk, nil)
			gemm.Sgemm(blas.NoTrans, blas.Trans, L, L, dk, scale, n.q, dk, n.k, dk, 0, n.scores, L)
			for r := 0; r < L; r++ {
				softmax(n.scores[r*L : (r+1)*L])
			}
			// This head's output fills its dk columns of the concatenation.
			gemm.Sgemm(blas.NoTrans, blas.NoTrans, L, dk, L, 1, n.scores, L, n.v, dk, 0, n.o[hd*dk:], d)
		}
		matmul(n.att, d, n.o, L, d, n.w[p+"attn.w"], d, n.w[p+"attn.b"])
		for i, v := range n.att {
			n.x[i] += v
		}
		layerNorm(n.n, n.x, L, d, n.w[p+"ln2.g"], n.w[p+"ln2.b"])
		matmul(n.hid, c.MLP, n.n, L, d, n.w[p+"mlp.in.w"], c.MLP, n.w[p+"mlp.in.b"])
		for i, v := range n.hid {
			if v < 0 {
				n.hid[i] = 0
			}
		}
		matmul(n.att, d, n.hid, L, c.MLP, n.w[p+"mlp.out.w"], d, n.w[p+"mlp.out.b"])
		for i, v := range n.att {
			n.x[i] += v
		}
	}
	layerNorm(n.n, n.x, L, d, n.w["ln.g"], n.w["ln.b"])
}

// softmax replaces v by its softmax.
func softmax(v []float32) {
	m := v[0]
	for _, x := range v {
		m = max(m, x)
	}
	var sum float64
	for i, x := range v {
		e := math.Exp(float64(x - m))
		v[i] = float32(e)
		sum += e
	}
	for i := range v {
		v[i] = float32(float64(v[i]) / sum)
	}
}

// logSoftmax replaces v by its log-softmax.
func logSoftmax(v []float32) {
	m := v[0]
	for _, x := range v {
		m = max(m, x)
	}
	var sum float64
	for _, x := range v {
		sum += math.Exp(float64(x - m))
	}
	ls := float32(math.Log(sum)) + m
	for i := range v {
		v[i] -= ls
	}
}

// Forward runs the network on the input tokens and writes the
// log-probabilities of each slot listed in slots into out[i] (StateVocab
// values for a state slot, ActionVocab for an action slot).
func (n *Net) Forward(in []int16, slots []int, out [][]float32) {
	n.hidden(in)
	d, ss := n.arch.Dim, n.arch.StateSlots()
	for i, slot := range slots {
		row := n.n[slot*d : (slot+1)*d]
		if slot < ss {
			matmul(out[i], encode.StateVocab, row, 1, d, n.w["head.state.w"], encode.StateVocab, n.w["head.state.b"])
			logSoftmax(out[i][:encode.StateVocab])
		} else {
			matmul(out[i], encode.ActionVocab, row, 1, d, n.w["head.action.w"], encode.ActionVocab, n.w["head.action.b"])
			logSoftmax(out[i][:encode.ActionVocab])
		}
	}
}
