package transformer

import (
	"strings"
	"testing"

	"github.com/dchess/dchess/dataset/encode"
)

// The estimate counts every matrix product the graph applies to a token:
// the blocks' weight matrices, read from the architecture's own tensor
// list (so a matrix added to a block changes the figure), attention's two
// products, and each head on the tokens it reads.
func TestTrainingFLOPsCountsEveryProduct(t *testing.T) {
	for _, c := range []Arch{
		{Horizon: 4, Dim: 64, Heads: 2, Layers: 2, MLP: 256},                     // configs/diffusion-small.yaml
		{Horizon: 1, Dim: 64, Heads: 2, Layers: 2, MLP: 256},                     // configs/policy-small.yaml
		{Horizon: 2, Dim: 16, Heads: 4, Layers: 3, MLP: 24, ActionSquares: true}, // the part table is not a product a token pays
	} {
		var blockWeights float64 // weights of the blocks' matrices
		for _, p := range c.paramShapes() {
			if strings.HasPrefix(p.name, "block") && len(p.shape) == 2 {
				blockWeights += float64(p.shape[0] * p.shape[1])
			}
		}
		L, d := float64(c.SeqLen()), float64(c.Dim)
		forward := 2*blockWeights*L + float64(c.Layers)*4*L*L*d +
			2*d*(float64(c.StateSlots())*encode.StateVocab+float64(c.Horizon)*encode.ActionVocab)
		if got := c.TrainingFLOPs(); got != 3*forward {
			t.Errorf("%+v: %g FLOPs, want %g", c, got, 3*forward)
		}
	}
	// diffusion-small, by hand: 284 tokens, 2 blocks of 2·(4·64² + 2·64·256)
	// + 4·284·64 a token, heads over 280 state and 4 action tokens.
	small := Arch{Horizon: 4, Dim: 64, Heads: 2, Layers: 2, MLP: 256}
	if got, want := small.TrainingFLOPs(), 3*(2*284*(98304+72704)+128*(280*26+4*1968.0)); got != want || want != 297_216_000 {
		t.Errorf("diffusion-small: %g FLOPs a sequence, want %g", got, want)
	}
}
