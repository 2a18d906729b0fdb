// Command nnuewiden writes a pairwise nnue network k times as wide as a
// trained one, for timing the player at N = 512 or 1024 where no such
// network has been trained:
//
//	go run ./scripts/bench/nnuewiden -in models/shipped/nnue.dcw -k 2 -o /tmp/nnue-512.dcw
//
// Each unit of the feature transformer becomes k units with its weights
// and bias, each weight times 1 + noise·g (g standard normal, one draw a
// weight), and each first-layer weight that reads a product is split
// between the k copies. With -noise 0 the wide network scores as the
// narrow one; with the default 0.5 its units clip apart as trained units
// do, so the first layer's zero chunks come near a trained network's
// (docs/results/2026-12-04-nnue-quantised-hidden.md compares them with
// the N = 512 network trained on 2026-11-27). Later layers are copied.
//
// -hidden H keeps the first H units of the first dense layer alone (and
// their weights in the next layer): a network for timing a narrower
// first layer, whose scores are no trained network's.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"

	"github.com/dchess/dchess/models/dcw"
	"github.com/dchess/dchess/models/nnue"
)

func main() {
	in := flag.String("in", "models/shipped/nnue.dcw", "the network to widen (pairwise)")
	k := flag.Int("k", 2, "how many times as wide")
	noise := flag.Float64("noise", 0.5, "relative noise on each copied feature weight")
	seed := flag.Uint64("seed", 1, "the noise's seed")
	keep := flag.Int("hidden", 0, "keep this many units of the first dense layer (0: all)")
	out := flag.String("o", "", "the wide network's .dcw")
	flag.Parse()
	if err := run(*in, *out, *k, *noise, *seed, *keep); err != nil {
		fmt.Fprintln(os.Stderr, "nnuewiden:", err)
		os.Exit(1)
	}
}

func run(in, out string, k int, noise float64, seed uint64, keep int) error {
	if out == "" || k < 1 {
		return fmt.Errorf("-o is needed and -k must be at least 1")
	}
	f, err := dcw.Read(in)
	if err != nil {
		return err
	}
	var cfg nnue.Config
	if err := f.DecodeArch(&cfg, nnue.Family); err != nil {
		return err
	}
	if !cfg.Pairwise {
		return fmt.Errorf("%s: only a pairwise network is widened", in)
	}
	n, wide := cfg.Accumulator, cfg.Accumulator*k
	half, wideHalf := n/2, wide/2
	ftw, err := f.Tensor("ft.w", nnue.Features, n)
	if err != nil {
		return err
	}
	ftb, err := f.Tensor("ft.b", n)
	if err != nil {
		return err
	}
	hidden := cfg.Hidden[0]
	fc0w, err := f.Tensor("fc0.w", n, hidden)
	if err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(seed, 1))
	// wideUnit is copy c of unit j: each half of the accumulator holds k
	// copies of the narrow half, so that copy c of unit j is still paired
	// with copy c of unit j + n/2.
	wideUnit := func(c, j int) int { return j/half*wideHalf + c*half + j%half }
	wftw, wftb := make([]float32, nnue.Features*wide), make([]float32, wide)
	for c := range k {
		for j := range n {
			u := wideUnit(c, j)
			wftb[u] = ftb[j] * float32(1+noise*rng.NormFloat64())
			for feat := range nnue.Features {
				wftw[feat*wide+u] = ftw[feat*n+j] * float32(1+noise*rng.NormFloat64())
			}
		}
	}
	// The first layer reads the side to move's half products, then the
	// other side's: input v·half + j becomes v·wideHalf + c·half + j.
	wfc0 := make([]float32, wide*hidden)
	for v := range 2 {
		for c := range k {
			for j := range half {
				for o := range hidden {
					wfc0[(v*wideHalf+c*half+j)*hidden+o] = fc0w[(v*half+j)*hidden+o] / float32(k)
				}
			}
		}
	}
	cfg.Accumulator = wide
	if keep == 0 {
		keep = hidden
	}
	if keep < 1 || keep > hidden {
		return fmt.Errorf("-hidden %d: the first dense layer has %d units", keep, hidden)
	}
	cfg.Hidden[0] = keep
	// next is the layer after the first's width: 1 (the output) or the
	// second hidden layer's.
	next := 1
	if len(cfg.Hidden) > 1 {
		next = cfg.Hidden[1]
	}
	firstCols := func(data []float32, rows, cols int) []float32 {
		out := make([]float32, 0, rows*keep)
		for r := range rows {
			out = append(out, data[r*cols:r*cols+keep]...)
		}
		return out
	}
	arch, err := json.Marshal(cfg)
	if err != nil {
		return err
	}
	w := &dcw.File{Family: nnue.Family, Arch: arch}
	for _, t := range f.Tensors {
		switch t.Name {
		case "ft.w":
			t = dcw.Tensor{Name: t.Name, Shape: []int{nnue.Features, wide}, Data: wftw}
		case "ft.b":
			t = dcw.Tensor{Name: t.Name, Shape: []int{wide}, Data: wftb}
		case "fc0.w":
			t = dcw.Tensor{Name: t.Name, Shape: []int{wide, keep}, Data: firstCols(wfc0, wide, hidden)}
		case "fc0.b":
			t = dcw.Tensor{Name: t.Name, Shape: []int{keep}, Data: t.Data[:keep]}
		case "fc1.w":
			t = dcw.Tensor{Name: t.Name, Shape: []int{keep, next}, Data: t.Data[:keep*next]}
		}
		w.Tensors = append(w.Tensors, t)
	}
	return dcw.Write(out, w)
}
