package deepchess

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas/gonum"

	"github.com/dchess/dchess/internal/chess/board"
	"github.com/dchess/dchess/models/dcw"
	"github.com/dchess/dchess/models/nn"
)

// DefaultCacheMB bounds the cache of position projections of a Comparator.
const DefaultCacheMB = 64

// seenLimit is how many remembered positions a Comparator keeps across
// searches before it forgets them all at the start of the next search
// (about 120 bytes each).
const seenLimit = 1 << 19

// mirrorSalt turns a position key into the key its mirror is remembered
// under (see Packed.Mirror).
const mirrorSalt = 0x6d69727266f72ead

// Comparator runs exported siamese weights in plain Go. It implements
// search.SeenComparator: the search shows it each position once (See), and
// comparisons name positions by key. Each position's tower output is
// needed only through the head's first layer, which is linear in the two
// embeddings, so what is cached per position is its share of that layer
// for either side (2 × head[0] values); a comparison then runs only the
// rest of the head. A Comparator is not safe for concurrent use: load one
// per goroutine.
type Comparator struct {
	cfg          SiameseConfig
	tower        []nn.Dense
	joinA, joinB nn.Dense // no bias: joinBias is added once per comparison
	joinBias     []float32
	head         []nn.Dense // the layers after the join, the 2-logit output last

	towerActs [][]float32
	headActs  [][]float32

	seen       map[uint64]Packed
	proj       map[uint64][]float32
	projLimit  int
	embeddings int64
	compares   int64
}

// NewComparator builds a Comparator from a weights file of the siamese family.
func NewComparator(f *dcw.File) (*Comparator, error) {
	var cfg SiameseConfig
	if err := f.DecodeArch(&cfg, SiameseFamily); err != nil {
		return nil, err
	}
	if err := cfg.validateBuilt(); err != nil {
		return nil, err
	}
	c := &Comparator{cfg: cfg}
	widths := cfg.towerWidths()
	for k := 0; k+1 < len(widths); k++ {
		d, err := nn.LoadDense(f, encName(k), widths[k], widths[k+1])
		if err != nil {
			return nil, fmt.Errorf("siamese: %w", err)
		}
		c.tower = append(c.tower, d)
		c.towerActs = append(c.towerActs, make([]float32, d.Out))
	}
	e, h := cfg.Embedding(), append(append([]int(nil), cfg.Head...), 2)
	for _, name := range []string{joinA, joinB} {
		w, err := f.Tensor(name, e, h[0])
		if err != nil {
			return nil, fmt.Errorf("siamese: %w", err)
		}
		d := nn.Dense{W: w, B: make([]float32, h[0]), In: e, Out: h[0]}
		if name == joinA {
			c.joinA = d
		} else {
			c.joinB = d
		}
	}
	var err error
	if c.joinBias, err = f.Tensor(joinBia, h[0]); err != nil {
		return nil, fmt.Errorf("siamese: %w", err)
	}
	c.headActs = [][]float32{make([]float32, h[0])}
	for j := 1; j < len(h); j++ {
		name := headName(j)
		if j == len(h)-1 {
			name = outName
		}
		d, err := nn.LoadDense(f, name, h[j-1], h[j])
		if err != nil {
			return nil, fmt.Errorf("siamese: %w", err)
		}
		c.head = append(c.head, d)
		c.headActs = append(c.headActs, make([]float32, h[j]))
	}
	c.seen = map[uint64]Packed{}
	c.proj = map[uint64][]float32{}
	c.SetCacheMB(DefaultCacheMB)
	return c, nil
}

// Load reads a .dcw file of the siamese family.
func Load(path string) (*Comparator, error) {
	f, err := dcw.Read(path)
	if err != nil {
		return nil, err
	}
	c, err := NewComparator(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// Config returns the architecture the weights were trained with.
func (c *Comparator) Config() SiameseConfig { return c.cfg }

// SetCacheMB bounds the projection cache; when it is full it is emptied
// and refilled, which costs time but never changes a comparison.
func (c *Comparator) SetCacheMB(mb int) {
	perEntry := 8*c.cfg.Head[0] + 64 // two float32 halves plus map overhead
	c.projLimit = max(1, mb<<20/perEntry)
}

// Stats returns how many tower passes (positions embedded) and comparisons
// the Comparator has run.
func (c *Comparator) Stats() (embeddings, comparisons int64) { return c.embeddings, c.compares }

// See remembers b for later comparisons by key and returns its key.
func (c *Comparator) See(b *board.Board) uint64 {
	key := b.Key()
	if _, ok := c.seen[key]; !ok {
		c.seen[key] = Pack(b)
	}
	return key
}

// NewSearch lets the Comparator forget the positions it was shown, which
// it does only when it holds many.
func (c *Comparator) NewSearch() {
	if len(c.seen) > seenLimit {
		clear(c.seen)
		clear(c.proj)
	}
}

// Compare returns the probability that a is better for White than b
// (search.Comparator).
func (c *Comparator) Compare(a, b *board.Board) float64 {
	return c.CompareSeen(c.See(a), c.See(b))
}

// CompareSeen is Compare for two positions already shown to See.
func (c *Comparator) CompareSeen(a, b uint64) float64 {
	z0, z1 := c.logits(a, b)
	return 1 / (1 + math.Exp(float64(z1-z0)))
}

// CompareDraw returns the probability that the position a (already shown to
// See) is better for White than a draw: by symmetry, than its own mirror.
func (c *Comparator) CompareDraw(a uint64) float64 {
	m := a ^ mirrorSalt
	if _, ok := c.seen[m]; !ok {
		p, ok := c.seen[a]
		if !ok {
			panic(fmt.Sprintf("deepchess: position %016x was never shown to See", a))
		}
		c.seen[m] = p.Mirror()
	}
	return c.CompareSeen(a, m)
}

// logits runs the head on the cached projections of a and b.
func (c *Comparator) logits(a, b uint64) (float32, float32) {
	pa := c.projection(a)
	pb := c.projection(b) // may empty the cache; pa stays valid
	return c.runHead(pa, pb)
}

// ComparePacked returns the probability that a is better for White than
// b, bypassing the caches: for pairs seen once, as in scoring a test set.
func (c *Comparator) ComparePacked(a, b *Packed) float64 {
	z0, z1 := c.runHead(c.project(a), c.project(b))
	return 1 / (1 + math.Exp(float64(z1-z0)))
}

// runHead runs the join and head layers on two positions' projections.
func (c *Comparator) runHead(pa, pb []float32) (float32, float32) {
	c.compares++
	n := len(c.joinBias)
	x := c.headActs[0]
	for j := range x {
		x[j] = pa[j] + pb[n+j] + c.joinBias[j]
	}
	nn.Activate(c.cfg.Activation, x)
	for j := range c.head {
		out := c.headActs[j+1]
		forward(&c.head[j], x, out)
		if j < len(c.head)-1 {
			nn.Activate(c.cfg.Activation, out)
		}
		x = out
	}
	return x[0], x[1]
}

// projection returns a position's share of the join layer, as the first
// position (first half) and as the second (second half), computing and
// caching it when needed.
func (c *Comparator) projection(key uint64) []float32 {
	if p, ok := c.proj[key]; ok {
		return p
	}
	packed, ok := c.seen[key]
	if !ok {
		panic(fmt.Sprintf("deepchess: position %016x was never shown to See", key))
	}
	p := c.project(&packed)
	if len(c.proj) >= c.projLimit {
		clear(c.proj)
	}
	c.proj[key] = p
	return p
}

// project embeds a position and returns its share of the join layer as
// the first position (first half) and as the second (second half).
func (c *Comparator) project(packed *Packed) []float32 {
	e := c.embed(packed)
	n := c.joinA.Out
	p := make([]float32, 2*n)
	forward(&c.joinA, e, p[:n])
	forward(&c.joinB, e, p[n:])
	return p
}

// embed runs the tower (Pos2Vec) on a packed position. The first layer
// adds up the weight rows of the set bits, about 30 of 773.
func (c *Comparator) embed(p *Packed) []float32 {
	c.embeddings++
	first := &c.tower[0]
	x := c.towerActs[0]
	copy(x, first.B)
	p.eachBit(func(i int) { blas.Saxpy(first.Out, 1, first.W[i*first.Out:(i+1)*first.Out], 1, x, 1) })
	nn.Activate(c.cfg.Activation, x)
	for k := 1; k < len(c.tower); k++ {
		out := c.towerActs[k]
		forward(&c.tower[k], x, out)
		nn.Activate(c.cfg.Activation, out)
		x = out
	}
	return x
}

// blas has SIMD kernels for the axpy at the heart of a dense layer.
var blas gonum.Implementation

// forward is nn.Dense.Forward with the rows added by gonum's axpy: two to
// five times as fast on these widths (BenchmarkEmbed, BenchmarkCompareCached).
// Zero inputs (ReLU's) are skipped.
func forward(d *nn.Dense, x, out []float32) {
	out = out[:d.Out]
	copy(out, d.B)
	for i, xi := range x[:d.In] {
		if xi != 0 {
			blas.Saxpy(d.Out, xi, d.W[i*d.Out:(i+1)*d.Out], 1, out, 1)
		}
	}
}
