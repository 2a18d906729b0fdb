// Package nn holds what the evaluation model families (ann, cnn) share: the
// input specification (which board encoding, scaled how), the mapping from
// the network's output back to centipawns, weight initialisation, the
// pure-Go dense layer used at play time and the Gorgonia helpers used at
// training time.
package nn

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/dchess/dchess/dataset"
	"github.com/dchess/dchess/dataset/encode"
	"github.com/dchess/dchess/internal/chess/board"
	"github.com/dchess/dchess/models/dcw"
)

// Encodings a model can read.
const (
	EncodingCodes  = "codes"  // the thesis's 64 signed piece codes, one 8×8 plane
	EncodingPlanes = "planes" // 18 planes of 8×8
	EncodingBits   = "bits"   // DeepChess's 773 bits (dense models only)
	// EncodingMaterial is the five piece-count differences (dense models
	// only): with no hidden layer, the material-only baseline.
	EncodingMaterial = "material"
)

// Input says how a position becomes the network's input: an encoding whose
// values are mapped linearly from [Min, Max] onto [-1, 1]. Min -1 and Max 1
// leave values unchanged. The scaling is part of the model: it is stored in
// the weights file and applied at play time exactly as in training.
type Input struct {
	Encoding string  `json:"encoding" yaml:"encoding"`
	Min      float32 `json:"min" yaml:"min"`
	Max      float32 `json:"max" yaml:"max"`
}

// Validate reports an unknown encoding or an empty range.
func (in Input) Validate() error {
	switch in.Encoding {
	case EncodingCodes, EncodingPlanes, EncodingBits, EncodingMaterial:
	default:
		return fmt.Errorf("unknown encoding %q (want codes, planes, bits or material)", in.Encoding)
	}
	if !(in.Max > in.Min) {
		return fmt.Errorf("input range [%g, %g] is empty: max must be above min", in.Min, in.Max)
	}
	return nil
}

// Size is the number of float32s the encoding writes.
func (in Input) Size() int {
	switch in.Encoding {
	case EncodingPlanes:
		return encode.PlanesSize
	case EncodingBits:
		return encode.BitsSize
	case EncodingMaterial:
		return encode.MaterialSize
	}
	return encode.CodesSize
}

// Channels is the number of 8×8 planes of a board-shaped encoding, 0 for
// bits and material.
func (in Input) Channels() int {
	switch in.Encoding {
	case EncodingCodes:
		return 1
	case EncodingPlanes:
		return encode.PlaneCount
	}
	return 0
}

// Encode writes b's scaled encoding into dst (len >= Size) without allocating.
func (in Input) Encode(b *board.Board, dst []float32) {
	switch in.Encoding {
	case EncodingPlanes:
		encode.Planes(b, dst)
	case EncodingBits:
		encode.Bits(b, dst)
	case EncodingMaterial:
		encode.Material(b, dst)
	default:
		encode.Codes(b, dst)
	}
	if in.Min == -1 && in.Max == 1 {
		return
	}
	scale := 2 / (in.Max - in.Min)
	offset := -1 - in.Min*scale
	dst = dst[:in.Size()]
	for i, v := range dst {
		dst[i] = v*scale + offset
	}
}

// EncodeRecord writes a record's scaled input into dst and returns its
// training target, the side to move's win probability. Records without a
// successful label are the caller's to skip.
func (in Input) EncodeRecord(r *dataset.Record, dst []float32) (float32, error) {
	if r.Label == nil || r.Label.Status != dataset.LabelOK {
		return 0, fmt.Errorf("record %q has no usable label", r.FEN)
	}
	b, err := board.FromFEN(r.FEN)
	if err != nil {
		return 0, err
	}
	in.Encode(b, dst)
	return r.Label.WinProb, nil
}

// MaxCentipawns bounds the scores evaluators return, far below the search's
// mate scores, so a saturated network never looks like a forced mate.
const MaxCentipawns = 4000

// Centipawns turns the network's logit (its output before the sigmoid) into
// centipawns for the side to move. The sigmoid of the logit is the win
// probability, and dataset.WinProbability is a logistic of slope
// WinProbCoefficient, so inverting it is a division; working from the logit
// avoids the precision lost near probabilities 0 and 1.
func Centipawns(logit float32) int {
	cp := float64(logit) / dataset.WinProbCoefficient
	switch {
	case cp > MaxCentipawns || math.IsInf(cp, 1):
		return MaxCentipawns
	case cp < -MaxCentipawns || math.IsInf(cp, -1):
		return -MaxCentipawns
	case math.IsNaN(cp):
		return 0
	}
	return int(math.Round(cp))
}

// Sigmoid is the logistic function in float32.
func Sigmoid(z float32) float32 { return float32(1 / (1 + math.Exp(-float64(z)))) }

// Activations for dense layers.
const (
	ActReLU    = "relu"
	ActTanh    = "tanh"
	ActSigmoid = "sigmoid"
)

// ValidActivation reports an unknown activation name.
func ValidActivation(name string) error {
	switch name {
	case ActReLU, ActTanh, ActSigmoid:
		return nil
	}
	return fmt.Errorf("unknown activation %q (want relu, tanh or sigmoid)", name)
}

// Activate applies the named activation in place.
func Activate(name string, v []float32) {
	switch name {
	case ActReLU:
		for i, x := range v {
			if x < 0 {
				v[i] = 0
			}
		}
	case ActTanh:
		for i, x := range v {
			v[i] = float32(math.Tanh(float64(x)))
		}
	case ActSigmoid:
		for i, x := range v {
			v[i] = Sigmoid(x)
		}
	}
}

// Dense is a fully connected layer for play: out = x·W + b, with W stored
// row-major as (In, Out) exactly as the Gorgonia graph holds it.
type Dense struct {
	W       []float32
	B       []float32
	In, Out int
}

// Forward writes x·W + b into out (len Out) without allocating.
func (d *Dense) Forward(x, out []float32) {
	out = out[:d.Out]
	copy(out, d.B)
	w := d.W[:d.In*d.Out]
	for i, xi := range x[:d.In] {
		if xi == 0 {
			continue // sparse inputs (piece codes, planes) are mostly zero
		}
		row := w[i*d.Out : (i+1)*d.Out]
		for j, wij := range row {
			out[j] += xi * wij
		}
	}
}

// LoadDense reads the tensors name.w (in × out) and name.b (out) from f.
func LoadDense(f *dcw.File, name string, in, out int) (Dense, error) {
	w, err := f.Tensor(name+".w", in, out)
	if err != nil {
		return Dense{}, err
	}
	b, err := f.Tensor(name+".b", out)
	if err != nil {
		return Dense{}, err
	}
	return Dense{W: w, B: b, In: in, Out: out}, nil
}

// Uniform fills a new tensor of the given shape with values drawn uniformly
// from [-limit, limit].
func Uniform(rng *rand.Rand, name string, limit float64, shape ...int) dcw.Tensor {
	t := dcw.Tensor{Name: name, Shape: shape}
	t.Data = make([]float32, t.Size())
	for i := range t.Data {
		t.Data[i] = float32((2*rng.Float64() - 1) * limit)
	}
	return t
}

// Zeros returns a new zero tensor of the given shape.
func Zeros(name string, shape ...int) dcw.Tensor {
	t := dcw.Tensor{Name: name, Shape: shape}
	t.Data = make([]float32, t.Size())
	return t
}

// HeLimit is the He-uniform bound for ReLU layers with fanIn inputs.
func HeLimit(fanIn int) float64 { return math.Sqrt(6 / float64(fanIn)) }

// GlorotLimit is the Glorot-uniform bound, for tanh, sigmoid and the output layer.
func GlorotLimit(fanIn, fanOut int) float64 { return math.Sqrt(6 / float64(fanIn+fanOut)) }

// InitLimit picks the initialisation bound suited to an activation.
func InitLimit(activation string, fanIn, fanOut int) float64 {
	if activation == ActReLU {
		return HeLimit(fanIn)
	}
	return GlorotLimit(fanIn, fanOut)
}

// NewRand returns the generator weight initialisation draws from for a seed.
func NewRand(seed int64) *rand.Rand {
	return rand.New(rand.NewPCG(uint64(seed), 0x9e3779b97f4a7c15))
}

// Network is a family's pure-Go forward pass: the logit of the side to
// move's win probability, with scratch buffers owned by the network.
type Network[N any] interface {
	LogitBoard(b *board.Board) float32
	Clone() N
}

// Evaluator scores positions with a Network (search.Evaluator). Like the
// network it is not safe for concurrent use: Clone one per goroutine.
type Evaluator[N Network[N]] struct{ net N }

// NewEvaluator wraps a network.
func NewEvaluator[N Network[N]](n N) *Evaluator[N] { return &Evaluator[N]{net: n} }

// Evaluate returns the side to move's score in centipawns.
func (e *Evaluator[N]) Evaluate(b *board.Board) int { return Centipawns(e.net.LogitBoard(b)) }

// WinProbability returns the network's win probability for the side to move.
func (e *Evaluator[N]) WinProbability(b *board.Board) float32 {
	return Sigmoid(e.net.LogitBoard(b))
}

// Clone returns an Evaluator with its own buffers, for another goroutine.
func (e *Evaluator[N]) Clone() *Evaluator[N] { return &Evaluator[N]{net: e.net.Clone()} }

// Net returns the evaluator's network.
func (e *Evaluator[N]) Net() N { return e.net }

// Load reads a .dcw file and builds a family's network from it with newNet.
func Load[N Network[N]](path string, newNet func(*dcw.File) (N, error)) (*Evaluator[N], error) {
	n, err := dcw.ReadAs(path, newNet)
	if err != nil {
		return nil, err
	}
	return NewEvaluator(n), nil
}
