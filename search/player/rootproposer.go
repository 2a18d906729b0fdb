package player

import (
	"context"
	"fmt"
	"strings"

	"github.com/dchess/dchess/internal/chess/board"
	"github.com/dchess/dchess/internal/suggest"
	"github.com/dchess/dchess/search"
)

// ProposerSetting is the setting of an alpha-beta player over an evaluator
// that orders its root moves by a model's ranking: proposer=SPEC, SPEC a
// family that ranks moves (Proposers: policy, diffusion, flow), bare for
// its newest or shipped weights or with a path (proposer=policy:PATH).
// In SPEC "," "&" and "?" are written %2C %26 %3F, where the outer spec
// would split: proposer=diffusion:PATH%3Fsteps=1.
const ProposerSetting = "proposer"

// CheckProposer fails with a *SpecError on a proposer= that cannot order
// the spec's search, without loading anything: a SPEC that does not parse,
// a family that ranks no moves, weights that do not exist, the proposer
// player's repetition=, or search=minimax, which orders no moves. Families
// whose player takes proposer= register it as their check.
func CheckProposer(spec Spec) error {
	_, _, err := proposerSpec(spec)
	return err
}

// ProposerFromSpec makes the proposer that spec's proposer= names, its
// bare name resolved as a player's would be; nil when there is none.
func ProposerFromSpec(ctx context.Context, spec Spec) (search.MoveProposer, error) {
	ps, fam, err := proposerSpec(spec)
	if err != nil || fam.proposer == nil {
		return nil, err
	}
	registryMu.RLock()
	resolve := modelResolver
	registryMu.RUnlock()
	if ps, err = resolveWeights(ctx, ps, fam, resolve); err != nil {
		return nil, fmt.Errorf("player %s: proposer=%s: %w", spec.Family, ps.Raw, err)
	}
	p, err := fam.proposer(ps)
	if err != nil {
		return nil, fmt.Errorf("player %s: proposer=%s: %w", spec.Family, ps.Raw, err)
	}
	return p, nil
}

// proposerSpec parses and checks spec's proposer=; a spec without one
// gives a zero family.
func proposerSpec(spec Spec) (Spec, family, error) {
	raw, ok := spec.lookup(ProposerSetting)
	if !ok {
		return Spec{}, family{}, nil
	}
	fail := func(format string, args ...any) (Spec, family, error) {
		return Spec{}, family{}, SpecErrorf("player %s: proposer=%s: %s", spec.Family, raw, fmt.Sprintf(format, args...))
	}
	if algo, err := searchAlgorithm(spec); err != nil {
		return Spec{}, family{}, err
	} else if algo == search.Minimax {
		return fail("search=minimax orders no moves; the proposer orders the alpha-beta's")
	}
	ps, err := ParseSpec(raw)
	if err != nil {
		return fail("%v", err)
	}
	registryMu.RLock()
	fam := registry[ps.Family]
	registryMu.RUnlock()
	if fam.proposer == nil {
		proposers := Proposers()
		known := strings.Join(proposers, ", ")
		if known == "" {
			known = "none registered"
		}
		msg := fmt.Sprintf("%s is not a family that ranks moves (proposers: %s)", ps.Family, known)
		if best := suggest.Closest(ps.Family, proposers); best != "" && best != ps.Family {
			msg += "; did you mean " + best + "?"
		}
		return fail("%s", msg)
	}
	if _, ok := ps.lookup("repetition"); ok {
		return fail("repetition= chooses the move of a player that does not search; a proposer here only ranks them")
	}
	if err := Check(ps); err != nil {
		return fail("%v", err)
	}
	return ps, fam, nil
}

// failureRecorder is a proposer as a Searcher's engine asks it: it keeps
// the last ranking's failure, which the search, left with its usual
// order, does not report, so the player's move can.
type failureRecorder struct {
	search.MoveProposer
	err error
}

func (r *failureRecorder) Propose(b *board.Board) ([]board.Move, []float64, error) {
	moves, scores, err := r.MoveProposer.Propose(b)
	if err == nil && len(moves) != len(scores) {
		err = fmt.Errorf("%d moves ranked with %d scores", len(moves), len(scores))
	}
	r.err = err
	return moves, scores, err
}

// resolveProposerWeights pins a bare proposer= to the file resolve finds,
// keeping the name the spec was typed with.
func resolveProposerWeights(ctx context.Context, spec Spec, resolve func(context.Context, string) (string, error)) (Spec, error) {
	ps, fam, err := proposerSpec(spec)
	if err != nil || fam.proposer == nil || ps.Path != "" || !fam.needsWeights {
		return spec, err
	}
	pinned, err := resolveWeights(ctx, ps, fam, resolve)
	if err != nil {
		return spec, fmt.Errorf("player %s: proposer=%s: %w", spec.Family, ps.Raw, err)
	}
	if spec.Name == "" {
		spec.Name = spec.DisplayName()
	}
	pinned.Name = ""
	return spec.With(ProposerSetting, pinned.String()), nil
}
