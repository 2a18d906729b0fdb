package family

import (
	"fmt"

	"github.com/dchess/dchess/models/transformer"
	"github.com/dchess/dchess/search/player"
)

// Decoding is a sequence family's decoder as its player decodes: the
// decoder and the steps it takes by default.
type Decoding struct {
	Decoder transformer.SequenceDecoder
	Steps   int
}

// SequenceDecoder opens the decoder of a sequence family's SPEC (its path
// resolved), with the player's settings.
func SequenceDecoder(spec player.Spec) (*Decoding, error) {
	f, err := Lookup(spec.Family)
	if err != nil || f.Decoder == nil {
		return nil, fmt.Errorf("player %s is not a sequence model", spec.Family)
	}
	return f.Decoder(spec)
}

// MaxDecodingSteps bounds a sequence decoder's steps.
const MaxDecodingSteps = 1000
