package deepchess

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/dchess/dchess/dataset/encode"
	"github.com/dchess/dchess/internal/chess/board"
	"github.com/dchess/dchess/models/dcw"
	"github.com/dchess/dchess/models/nn/nntest"
	"github.com/dchess/dchess/search"
)

func TestPackMatchesBits(t *testing.T) {
	want := make([]float32, encode.BitsSize)
	got := make([]float32, encode.BitsSize)
	for _, b := range nntest.RandomBoards(200, 5) {
		encode.Bits(b, want)
		p := Pack(b)
		p.Unpack(got)
		if !slices.Equal(got, want) {
			t.Fatalf("%s: packed bits differ from encode.Bits", b.FEN())
		}
	}
}

func TestMirrorMatchesMirroredBoard(t *testing.T) {
	for _, b := range append(nntest.RandomBoards(100, 9), board.New()) {
		m, err := board.FromFEN(search.MirrorFEN(b.FEN()))
		if err != nil {
			t.Fatal(err)
		}
		p := Pack(b)
		if p.Mirror() != Pack(m) {
			t.Fatalf("%s: Mirror differs from packing the mirrored board", b.FEN())
		}
		if mm := p.Mirror(); mm.Mirror() != p {
			t.Fatalf("%s: mirroring twice is not the identity", b.FEN())
		}
	}
}

// weightsFile makes a weights file from a model's architecture and params.
func weightsFile(m interface {
	Family() string
	Arch() ([]byte, error)
}, params []dcw.Tensor) (*dcw.File, error) {
	arch, err := m.Arch()
	if err != nil {
		return nil, err
	}
	return &dcw.File{Family: m.Family(), Arch: arch, Tensors: params}, nil
}

func smallSiamese(t testing.TB) (*Siamese, []dcw.Tensor) {
	t.Helper()
	m, err := NewSiamese(SiameseConfig{Tower: []int{24, 12}, Head: []int{16, 8}, Activation: "relu"})
	if err != nil {
		t.Fatal(err)
	}
	params := m.InitParams(3)
	// Non-zero biases, so a bias dropped by the Go forward pass would show.
	rng := rand.New(rand.NewPCG(1, 2))
	for _, p := range params {
		if len(p.Shape) == 1 {
			for i := range p.Data {
				p.Data[i] = float32(rng.NormFloat64() * 0.1)
			}
		}
	}
	return m, params
}

// graphLogits runs the Gorgonia comparator on pairs of boards.
func graphLogits(t *testing.T, m *Siamese, params []dcw.Tensor, as, bs []*board.Board) []float32 {
	t.Helper()
	g := G.NewGraph()
	n := len(as)
	input := func(name string, boards []*board.Board) *G.Node {
		data := make([]float32, n*InputSize)
		for i, b := range boards {
			encode.Bits(b, data[i*InputSize:])
		}
		return G.NewMatrix(g, tensor.Float32, G.WithShape(n, InputSize), G.WithName(name),
			G.WithValue(tensor.New(tensor.WithShape(n, InputSize), tensor.WithBacking(data))))
	}
	logits, learnables, err := m.Build(g, input("a", as), input("b", bs), params)
	if err != nil {
		t.Fatal(err)
	}
	if len(learnables) != len(params) {
		t.Fatalf("%d learnables for %d parameters", len(learnables), len(params))
	}
	for i, l := range learnables {
		if l.Name() != params[i].Name {
			t.Fatalf("learnable %d is %s, parameter %s", i, l.Name(), params[i].Name)
		}
	}
	vm := G.NewTapeMachine(g)
	defer vm.Close()
	if err := vm.RunAll(); err != nil {
		t.Fatal(err)
	}
	return append([]float32(nil), logits.Value().Data().([]float32)...)
}

func TestComparatorMatchesGraph(t *testing.T) {
	m, params := smallSiamese(t)
	f, err := weightsFile(m, params)
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewComparator(f)
	if err != nil {
		t.Fatal(err)
	}
	boards := nntest.RandomBoards(40, 13)
	as, bs := boards[:20], boards[20:]
	want := graphLogits(t, m, params, as, bs)
	for i := range as {
		z0, z1 := c.logits(c.See(as[i]), c.See(bs[i]))
		if math.Abs(float64(z0-want[2*i])) > 1e-4 || math.Abs(float64(z1-want[2*i+1])) > 1e-4 {
			t.Fatalf("pair %d: Go logits %v %v, graph %v %v", i, z0, z1, want[2*i], want[2*i+1])
		}
		p := c.Compare(as[i], bs[i])
		if wantP := 1 / (1 + math.Exp(float64(want[2*i+1]-want[2*i]))); math.Abs(p-wantP) > 1e-4 {
			t.Fatalf("pair %d: Compare %v, softmax of the graph %v", i, p, wantP)
		}
	}
	// A cache of one entry recomputes nearly everything and must agree.
	tiny, _ := NewComparator(f)
	tiny.projLimit = 1
	for i := range as {
		if a, b := c.Compare(as[i], bs[i]), tiny.Compare(as[i], bs[i]); a != b {
			t.Fatalf("pair %d: %v with the cache, %v with a one-entry cache", i, a, b)
		}
	}
	emb, cmps := tiny.Stats()
	if cmps != int64(len(as)) || emb < int64(len(as)) {
		t.Fatalf("stats: %d embeddings, %d comparisons", emb, cmps)
	}
	// Packed positions without the caches, as eval --data scores pairs.
	for i := range as {
		pa, pb := Pack(as[i]), Pack(bs[i])
		if a, b := c.Compare(as[i], bs[i]), tiny.ComparePacked(&pa, &pb); a != b {
			t.Fatalf("pair %d: Compare %v, ComparePacked %v", i, a, b)
		}
	}
	// The draw is weighed against the mirror, as the search's fallback does.
	key := c.See(as[0])
	mirror, _ := board.FromFEN(search.MirrorFEN(as[0].FEN()))
	if got, want := c.CompareDraw(key), c.Compare(as[0], mirror); math.Abs(got-want) > 1e-6 {
		t.Fatalf("CompareDraw %v, against the mirrored board %v", got, want)
	}
	var _ search.SeenComparator = c
}

func TestInitFromAutoencoder(t *testing.T) {
	ae, err := NewAutoencoder(AutoencoderConfig{Layers: []int{24, 12}, Activation: "relu"})
	if err != nil {
		t.Fatal(err)
	}
	aeParams := ae.InitParams(4)
	f, err := weightsFile(ae, aeParams)
	if err != nil {
		t.Fatal(err)
	}
	path := t.TempDir() + "/ae.dcw"
	if err := dcw.Write(path, f); err != nil {
		t.Fatal(err)
	}
	read, cfg, err := ReadAutoencoder(path)
	if err != nil {
		t.Fatal(err)
	}
	m, _ := smallSiamese(t)
	params, err := m.InitFrom(read, cfg, 5)
	if err != nil {
		t.Fatal(err)
	}
	enc0, _ := read.Tensor("enc0.w", InputSize, 24)
	if !slices.Equal(params[0].Data, enc0) || params[0].Name != "enc0.w" {
		t.Fatal("the towers do not start from the autoencoder's encoder")
	}
	if len(params) != len(m.InitParams(5)) {
		t.Fatal("InitFrom and InitParams give different tensors")
	}
	other, _ := NewSiamese(SiameseConfig{Tower: []int{24, 10}, Head: []int{8}, Activation: "relu"})
	if _, err := other.InitFrom(read, cfg, 5); err == nil {
		t.Fatal("a tower that differs from the autoencoder was accepted")
	}
	if _, err := NewComparator(f); err == nil {
		t.Fatal("autoencoder weights loaded as a comparator")
	}
}
