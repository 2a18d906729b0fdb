package train

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dchess/dchess/dataset/encode"
	"github.com/dchess/dchess/internal/chess/board"
	"github.com/dchess/dchess/models/dcw"
	"github.com/dchess/dchess/models/diffusion"
	"github.com/dchess/dchess/models/family"
	"github.com/dchess/dchess/models/flow"
	"github.com/dchess/dchess/search/player"
)

// TestSequencePlayerSettings: order= reaches the diffusion and flow
// decoders, is refused for the policy (nothing to order) and names its
// values when misspelt, before any weights are read; both players take
// repetition= and name its values when misspelt.
func TestSequencePlayerSettings(t *testing.T) {
	dir := t.TempDir()
	df, err := diffusion.BiasOnlyWeights(diffusion.DefaultConfig(), map[string]float32{"e2e4": 5}, encode.TokenEmpty)
	if err != nil {
		t.Fatal(err)
	}
	ff, err := flow.BiasOnlyWeights(flow.DefaultConfig(), map[string]float32{"e2e4": 5}, encode.TokenEmpty)
	if err != nil {
		t.Fatal(err)
	}
	paths := map[string]string{"diffusion": filepath.Join(dir, "diffusion.dcw"), "flow": filepath.Join(dir, "flow.dcw")}
	for fam, f := range map[string]*dcw.File{"diffusion": df, "flow": ff} {
		if err := dcw.Write(paths[fam], f); err != nil {
			t.Fatal(err)
		}
	}
	decoder := func(raw string) (*family.Decoding, error) {
		spec, err := player.ParseSpec(raw)
		if err != nil {
			t.Fatal(err)
		}
		return family.SequenceDecoder(spec)
	}
	for fam, path := range paths {
		for order, want := range map[string]bool{"": true, "?order=joint": false, "?order=action-first": true} {
			d, err := decoder(fam + ":" + path + order)
			if err != nil {
				t.Fatalf("%s%s: %v", fam, order, err)
			}
			var got bool
			switch dec := d.Decoder.(type) {
			case *diffusion.Decoder:
				got = dec.ActionFirst
			case *flow.Decoder:
				got = dec.ActionFirst
			}
			if got != want {
				t.Errorf("%s%s: action first %v, want %v", fam, order, got, want)
			}
			r, err := d.Decoder.DecodeSteps(board.New(), 3)
			if err != nil || board.UCI(r.Best) != "e2e4" {
				t.Errorf("%s%s: decoded %v (%v), want e2e4", fam, order, board.UCI(r.Best), err)
			}
		}
		if _, err := decoder(fam + ":/nonexistent.dcw?order=backwards"); err == nil || !strings.Contains(err.Error(), "joint or action-first") ||
			!errors.As(err, new(*player.SpecError)) {
			t.Errorf("%s with order=backwards: %v", fam, err)
		}
	}
	// flow's sampler settings reach its decoder, and bad values are refused.
	d, err := decoder("flow:" + paths["flow"] + "?steps=7&sampler=stochastic&seed=9")
	if err != nil {
		t.Fatal(err)
	}
	if dec := d.Decoder.(*flow.Decoder); dec.Steps != 7 || d.Steps != 7 || dec.Sampler != flow.SamplerStochastic || dec.Seed != 9 {
		t.Errorf("flow with steps=7&sampler=stochastic&seed=9: steps %d (%d), sampler %s, seed %d", dec.Steps, d.Steps, dec.Sampler, dec.Seed)
	}
	if d, err = decoder("flow:" + paths["flow"]); err != nil || d.Decoder.(*flow.Decoder).Sampler != flow.SamplerDeterministic {
		t.Errorf("flow's default sampler: %+v, %v", d, err)
	}
	for _, bad := range []string{"steps=0", "sampler=euler", "seed=x"} {
		if _, err := decoder("flow:" + paths["flow"] + "?" + bad); err == nil {
			t.Errorf("flow accepted %s", bad)
		} else if !errors.As(err, new(*player.SpecError)) {
			t.Errorf("flow with %s: %v is not a *player.SpecError (a usage error)", bad, err)
		}
	}
	if _, err := decoder("policy:" + paths["diffusion"] + "?order=action-first"); err == nil || !strings.Contains(err.Error(), "order") {
		t.Errorf("policy accepted order=: %v", err)
	}
	// Every sequence player takes the proposer's repetition= setting.
	ctx := context.Background()
	for fam, path := range paths {
		p, err := player.New(ctx, fam+":"+path+"?repetition=avoid")
		if err != nil {
			t.Fatalf("%s with repetition=avoid: %v", fam, err)
		}
		if mi, err := p.Move(ctx, player.Position{}, player.Limits{}); err != nil || mi.Move != "e2e4" {
			t.Errorf("%s with repetition=avoid: %+v, %v", fam, mi, err)
		}
		if _, err := player.New(ctx, fam+":"+path+"?repetition=sometimes"); err == nil || !strings.Contains(err.Error(), "avoid") {
			t.Errorf("%s with repetition=sometimes: %v", fam, err)
		}
	}
}
