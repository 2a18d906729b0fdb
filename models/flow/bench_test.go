package flow

import (
	"testing"

	"github.com/dchess/dchess/internal/chess/board"
	"github.com/dchess/dchess/models/dcw"
)

// BenchmarkDecode is one move of the default-size model (random weights)
// in its default 20 steps, from the start position, per source and sampler.
func BenchmarkDecode(b *testing.B) {
	for _, source := range []string{SourceMask, SourceBoard} {
		for _, sampler := range []string{SamplerStochastic, SamplerDeterministic} {
			b.Run(source+"/"+sampler, func(b *testing.B) {
				c := DefaultConfig()
				c.Source = source
				m, _ := NewModel(c)
				arch, _ := m.Arch()
				net, err := NewNet(&dcw.File{Family: Family, Arch: arch, Tensors: m.InitParams(1)})
				if err != nil {
					b.Fatal(err)
				}
				dec := NewDecoder(net)
				if err := dec.SetSampler(sampler); err != nil {
					b.Fatal(err)
				}
				pos := board.New()
				for b.Loop() {
					if _, err := dec.Decode(pos); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
