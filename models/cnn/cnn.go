// Package cnn is the thesis's convolutional evaluation network: the board
// as 8×8 planes through convolution → ReLU → max-pool blocks, then fully
// connected layers to one output whose sigmoid is the side to move's win
// probability. Model builds the Gorgonia graph for training; Net runs
// exported weights in plain Go for play.
//
// The thesis names 13 then 10 kernels of 3×3 with pools of 3 and 2 but not
// the padding and strides; on an 8×8 board these fit as: conv pad 1 (8×8),
// pool 3 stride 1 (6×6), conv pad 1 (6×6), pool 2 stride 2 (3×3), so the
// fully connected layer sees 10×3×3 = 90 features.
package cnn

import (
	"fmt"

	cblas "gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"

	"github.com/dchess/dchess/internal/chess/board"
	"github.com/dchess/dchess/models/dcw"
	"github.com/dchess/dchess/models/nn"
)

// Family is the name weights files and configs use for this model.
const Family = "cnn"

// Conv is one block: a square convolution with stride 1 and zero padding,
// ReLU, then an optional max-pool.
type Conv struct {
	// Filters is the number of feature maps the convolution makes.
	Filters int `json:"filters" yaml:"filters"`
	// Kernel is the side of its square kernel.
	Kernel int `json:"kernel" yaml:"kernel"`
	// Pad is the zero padding on each side of the board.
	Pad int `json:"pad" yaml:"pad"`
	// Pool is the max-pool window (0 or 1: no pooling), PoolStride its stride.
	Pool       int `json:"pool" yaml:"pool"`
	PoolStride int `json:"pool_stride" yaml:"pool_stride"`
}

// Config is the architecture: the config file's model section plus the
// input its data section chooses. It is stored in model.dcw.
type Config struct {
	Input nn.Input `json:"input" yaml:"-"` // set from the config's data section
	// Conv lists the convolution blocks, in order, from the input planes
	// to the feature maps the dense layers read.
	Conv []Conv `json:"conv" yaml:"conv"`
	// Hidden lists the widths of dense layers between the flattened feature
	// maps and the output (empty: the features feed the output directly).
	Hidden []int `json:"hidden" yaml:"hidden"`
	// Activation of the dense hidden layers (convolutions always use ReLU).
	Activation string `json:"activation" yaml:"activation"`
}

// DefaultConfig is the thesis network on the 64 signed codes (one plane,
// scaled from [-7, 7] to [-1, 1]).
func DefaultConfig() Config {
	return Config{
		Input: nn.Input{Encoding: nn.EncodingCodes, Min: -7, Max: 7},
		Conv: []Conv{
			{Filters: 13, Kernel: 3, Pad: 1, Pool: 3, PoolStride: 1},
			{Filters: 10, Kernel: 3, Pad: 1, Pool: 2, PoolStride: 2},
		},
		Hidden:     []int{},
		Activation: nn.ActReLU,
	}
}

// shape is a feature map's channels × height × width.
type shape struct{ c, h, w int }

func (s shape) size() int { return s.c * s.h * s.w }

// convShapes returns the feature map shapes after each convolution and
// after each pool, checking that every block fits.
func (c Config) convShapes() (afterConv, afterPool []shape, err error) {
	cur := shape{c.Input.Channels(), 8, 8}
	for i, l := range c.Conv {
		if l.Filters < 1 || l.Kernel < 1 || l.Pad < 0 {
			return nil, nil, fmt.Errorf("cnn: conv %d needs filters and kernel >= 1 and pad >= 0", i)
		}
		conv := shape{l.Filters, cur.h + 2*l.Pad - l.Kernel + 1, cur.w + 2*l.Pad - l.Kernel + 1}
		if conv.h < 1 || conv.w < 1 {
			return nil, nil, fmt.Errorf("cnn: conv %d: kernel %d with pad %d does not fit a %d×%d map", i, l.Kernel, l.Pad, cur.h, cur.w)
		}
		pool := conv
		if l.Pool > 1 {
			if l.PoolStride < 1 {
				return nil, nil, fmt.Errorf("cnn: conv %d: pool_stride must be >= 1", i)
			}
			pool.h = (conv.h-l.Pool)/l.PoolStride + 1
			pool.w = (conv.w-l.Pool)/l.PoolStride + 1
			if conv.h < l.Pool || conv.w < l.Pool {
				return nil, nil, fmt.Errorf("cnn: conv %d: pool %d does not fit a %d×%d map", i, l.Pool, conv.h, conv.w)
			}
		}
		afterConv, afterPool = append(afterConv, conv), append(afterPool, pool)
		cur = pool
	}
	return afterConv, afterPool, nil
}

// features is the flattened size the dense layers see.
func (c Config) features() int {
	_, pools, err := c.convShapes()
	if err != nil || len(pools) == 0 {
		return c.Input.Size()
	}
	return pools[len(pools)-1].size()
}

// Validate reports an architecture that cannot be built.
func (c Config) Validate() error {
	if err := c.Input.Validate(); err != nil {
		return fmt.Errorf("cnn: %w", err)
	}
	if c.Input.Channels() == 0 {
		return fmt.Errorf("cnn: encoding %q is not board-shaped (use codes or planes)", c.Input.Encoding)
	}
	if len(c.Conv) == 0 {
		return fmt.Errorf("cnn: at least one conv layer is needed")
	}
	if _, _, err := c.convShapes(); err != nil {
		return err
	}
	for _, h := range c.Hidden {
		if h < 1 || h > 1<<16 {
			return fmt.Errorf("cnn: hidden layer width %d must be in 1..65536", h)
		}
	}
	if err := nn.ValidActivation(c.Activation); err != nil {
		return fmt.Errorf("cnn: %w", err)
	}
	return nil
}

// Size is the number of weights the config builds and the number of values
// one example's forward pass produces (every convolution's, pool's and
// dense layer's output), from which a trainer bounds its memory before it
// allocates anything. The config must be valid.
func (c Config) Size() (params, values int) {
	convs, pools, _ := c.convShapes()
	in := c.Input.Channels()
	for i, l := range c.Conv {
		params += l.Filters*in*l.Kernel*l.Kernel + l.Filters
		values += convs[i].size()
		if l.Pool > 1 {
			values += pools[i].size()
		}
		in = l.Filters
	}
	widths := c.denseWidths()
	for i := 0; i+1 < len(widths); i++ {
		params += (widths[i] + 1) * widths[i+1]
		values += widths[i+1]
	}
	return params, values
}

// denseWidths returns the dense layers' widths from the features to the output.
func (c Config) denseWidths() []int {
	w := append([]int{c.features()}, c.Hidden...)
	return append(w, 1)
}

func (c Config) denseName(i int) string {
	if i == len(c.Hidden) {
		return "out"
	}
	return fmt.Sprintf("dense%d", i)
}

func convName(i int) string { return fmt.Sprintf("conv%d", i) }

// convLayer holds one block's weights and its buffers for play. At play
// time feature maps are kept position-major (height × width × channels), so
// a convolution is one small matrix product of the image patches (im2col)
// with the filters, run by gonum's assembly dot products.
type convLayer struct {
	spec    Conv
	in      shape
	conv    shape
	pool    shape
	w       []float32 // filters × patch, in the column order forward builds
	b       []float32
	cols    []float32 // conv positions × (in.c × kernel × kernel)
	convOut []float32 // conv positions × filters
	rowMax  []float32 // conv rows × pool columns × filters, the pool's first pass
	poolOut []float32 // pool positions × filters; convOut itself when the block does not pool
}

// Net is the network in plain Go. Forward reuses Net's buffers, so a Net
// is not safe for concurrent use: give each goroutine its own Clone.
type Net struct {
	cfg    Config
	convs  []convLayer
	dense  []nn.Dense
	input  []float32
	flat   []float32 // the last feature map in the graph's channel-major order
	hidden [][]float32
}

// NewNet builds a Net from a weights file of this family.
func NewNet(f *dcw.File) (*Net, error) {
	var cfg Config
	if err := f.DecodeArch(&cfg, Family); err != nil {
		return nil, err
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	convs, pools, _ := cfg.convShapes()
	n := &Net{cfg: cfg}
	in := shape{cfg.Input.Channels(), 8, 8}
	for i, l := range cfg.Conv {
		w, err := f.Tensor(convName(i)+".w", l.Filters, in.c, l.Kernel, l.Kernel)
		if err != nil {
			return nil, fmt.Errorf("cnn: %w", err)
		}
		b, err := f.Tensor(convName(i)+".b", l.Filters)
		if err != nil {
			return nil, fmt.Errorf("cnn: %w", err)
		}
		if i > 0 {
			w = cellMajor(w, l.Filters, in.c, l.Kernel)
		}
		n.convs = append(n.convs, convLayer{spec: l, in: in, conv: convs[i], pool: pools[i], w: w, b: b})
		in = pools[i]
	}
	widths := cfg.denseWidths()
	for i := 0; i+1 < len(widths); i++ {
		d, err := nn.LoadDense(f, cfg.denseName(i), widths[i], widths[i+1])
		if err != nil {
			return nil, fmt.Errorf("cnn: %w", err)
		}
		n.dense = append(n.dense, d)
	}
	n.allocate()
	return n, nil
}

// cellMajor reorders filters from (f, c, ky, kx) to (f, ky, kx, c), the
// column order forward uses for position-major feature maps.
func cellMajor(w []float32, filters, channels, k int) []float32 {
	out := make([]float32, len(w))
	for f := 0; f < filters; f++ {
		for c := 0; c < channels; c++ {
			for ky := 0; ky < k; ky++ {
				for kx := 0; kx < k; kx++ {
					out[((f*k+ky)*k+kx)*channels+c] = w[((f*channels+c)*k+ky)*k+kx]
				}
			}
		}
	}
	return out
}

func (n *Net) allocate() {
	n.input = make([]float32, n.cfg.Input.Size())
	for i := range n.convs {
		l := &n.convs[i]
		l.cols = make([]float32, l.conv.h*l.conv.w*l.in.c*l.spec.Kernel*l.spec.Kernel)
		l.convOut = make([]float32, l.conv.size())
		l.poolOut = l.convOut
		if l.spec.Pool > 1 {
			l.rowMax = make([]float32, l.conv.h*l.pool.w*l.conv.c)
			l.poolOut = make([]float32, l.pool.size())
		}
	}
	n.flat = make([]float32, n.cfg.features())
	n.hidden = make([][]float32, len(n.dense))
	for i, d := range n.dense {
		n.hidden[i] = make([]float32, d.Out)
	}
}

// Config returns the architecture the weights were trained with.
func (n *Net) Config() Config { return n.cfg }

// Clone returns a Net sharing the weights with its own buffers.
func (n *Net) Clone() *Net {
	c := &Net{cfg: n.cfg, convs: append([]convLayer(nil), n.convs...), dense: n.dense}
	c.allocate()
	return c
}

// Logit runs the network on an encoded, scaled input (channels × 8 × 8)
// and returns the output before the sigmoid.
func (n *Net) Logit(x []float32) float32 {
	channelMajor := true // the encodings are plane-major; inner maps are position-major
	for i := range n.convs {
		l := &n.convs[i]
		l.forward(x, channelMajor)
		x, channelMajor = l.poolOut, false
	}
	// Flatten in the graph's order (channel, row, column).
	last := &n.convs[len(n.convs)-1]
	positions := last.pool.h * last.pool.w
	for p := 0; p < positions; p++ {
		for c := 0; c < last.pool.c; c++ {
			n.flat[c*positions+p] = x[p*last.pool.c+c]
		}
	}
	x = n.flat
	lastDense := len(n.dense) - 1
	for i := range n.dense {
		n.dense[i].Forward(x, n.hidden[i])
		if i < lastDense {
			nn.Activate(n.cfg.Activation, n.hidden[i])
		}
		x = n.hidden[i]
	}
	return x[0]
}

var blas = blas32.Implementation()

// forward computes convolution + bias, ReLU and the max-pool of one block.
// x is channel-major (c × h × w) for the first block, position-major after.
func (l *convLayer) forward(x []float32, channelMajor bool) {
	k, pad := l.spec.Kernel, l.spec.Pad
	ih, iw, ic := l.in.h, l.in.w, l.in.c
	oh, ow := l.conv.h, l.conv.w
	// im2col: one row per output position. Padding cells are never written,
	// so they keep the zeros the buffer was allocated with.
	patch := ic * k * k
	if channelMajor {
		// Columns in the trained filters' (c, ky, kx) order.
		for oy := 0; oy < oh; oy++ {
			for ox := 0; ox < ow; ox++ {
				row := l.cols[(oy*ow+ox)*patch : (oy*ow+ox+1)*patch]
				for c := 0; c < ic; c++ {
					plane := x[c*ih*iw : (c+1)*ih*iw]
					for ky := 0; ky < k; ky++ {
						iy := oy + ky - pad
						if iy < 0 || iy >= ih {
							continue
						}
						for kx := 0; kx < k; kx++ {
							if ix := ox + kx - pad; ix >= 0 && ix < iw {
								row[(c*k+ky)*k+kx] = plane[iy*iw+ix]
							}
						}
					}
				}
			}
		}
	} else {
		// Columns in (ky, kx, c) order, so each cell's channels are one copy;
		// NewNet permuted these filters to match.
		for oy := 0; oy < oh; oy++ {
			for ox := 0; ox < ow; ox++ {
				row := l.cols[(oy*ow+ox)*patch : (oy*ow+ox+1)*patch]
				for ky := 0; ky < k; ky++ {
					iy := oy + ky - pad
					if iy < 0 || iy >= ih {
						continue
					}
					for kx := 0; kx < k; kx++ {
						if ix := ox + kx - pad; ix >= 0 && ix < iw {
							copy(row[(ky*k+kx)*ic:(ky*k+kx+1)*ic], x[(iy*iw+ix)*ic:])
						}
					}
				}
			}
		}
	}
	f := l.conv.c
	positions := oh * ow
	for p := 0; p < positions; p++ {
		copy(l.convOut[p*f:(p+1)*f], l.b)
	}
	// convOut (positions × f) += cols (positions × patch) · wᵀ (patch × f)
	blas.Sgemm(cblas.NoTrans, cblas.Trans, positions, f, patch, 1, l.cols, patch, l.w, patch, 1, l.convOut, f)
	if l.spec.Pool <= 1 {
		relu(l.convOut)
		return
	}
	// Max-pool separably (rows, then columns: 2p comparisons per output
	// instead of p²), then ReLU, which commutes with max and so runs on
	// the smaller pooled map.
	size, stride := l.spec.Pool, l.spec.PoolStride
	ph, pw := l.pool.h, l.pool.w
	for y := 0; y < oh; y++ {
		for px := 0; px < pw; px++ {
			out := l.rowMax[(y*pw+px)*f : (y*pw+px+1)*f]
			copy(out, l.convOut[(y*ow+px*stride)*f:])
			for dx := 1; dx < size; dx++ {
				in := l.convOut[(y*ow+px*stride+dx)*f:]
				in = in[:len(out)]
				for c, v := range in {
					out[c] = max(out[c], v)
				}
			}
		}
	}
	for py := 0; py < ph; py++ {
		out := l.poolOut[py*pw*f : (py+1)*pw*f]
		copy(out, l.rowMax[py*stride*pw*f:])
		for dy := 1; dy < size; dy++ {
			in := l.rowMax[(py*stride+dy)*pw*f:]
			in = in[:len(out)]
			for c, v := range in {
				out[c] = max(out[c], v)
			}
		}
	}
	relu(l.poolOut)
}

func relu(v []float32) {
	for i, x := range v {
		v[i] = max(x, 0)
	}
}

// LogitBoard encodes b and runs the network.
func (n *Net) LogitBoard(b *board.Board) float32 {
	n.cfg.Input.Encode(b, n.input)
	return n.Logit(n.input)
}

// Evaluator scores positions with a Net (search.Evaluator); Clone one per goroutine.
type Evaluator = nn.Evaluator[*Net]

// NewEvaluator wraps a Net.
func NewEvaluator(n *Net) *Evaluator { return nn.NewEvaluator(n) }

// Load reads a .dcw file of the cnn family.
func Load(path string) (*Evaluator, error) { return nn.Load(path, NewNet) }
