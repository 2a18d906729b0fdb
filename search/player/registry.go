package player

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"strings"
	"sync"

	"github.com/dchess/dchess/internal/suggest"
	"github.com/dchess/dchess/search"
)

// Factory makes a player from its spec. It checks the spec's settings and
// returns one-line errors.
type Factory func(ctx context.Context, spec Spec) (Player, error)

type family struct {
	factory Factory
	// check, when set, fails on what is wrong in a spec without making the
	// player (see Check).
	check func(Spec) error
	// needsWeights marks model families: a spec without a path is resolved
	// by the model resolver to the newest weights of that family, and a
	// path must name a file.
	needsWeights bool
	// proposer, when set, makes the family's move proposer, which a
	// searching player's proposer= orders its root moves by.
	proposer ProposerFactory
}

// ProposerFactory makes a model family's move proposer from a spec with
// its weights path resolved, checking the spec's settings.
type ProposerFactory func(spec Spec) (search.MoveProposer, error)

var (
	registryMu    sync.RWMutex
	registry      = map[string]family{}
	modelResolver func(ctx context.Context, family string) (string, error)
)

// Register adds a player family. It panics when the name is taken, which
// only two packages claiming one family can cause.
func Register(name string, f Factory) { register(name, family{factory: f}) }

// RegisterChecked adds a player family whose specs Check can find wrong
// before any player is made: check returns a *SpecError for, say, a file
// the spec names that does not exist. The factory still checks the rest.
func RegisterChecked(name string, f Factory, check func(Spec) error) {
	register(name, family{factory: f, check: check})
}

// RegisterModel adds a model family whose players load weights from the
// spec's path. A bare name ("cnn") is resolved by the hook set with
// SetModelResolver before the factory sees the spec.
func RegisterModel(name string, f Factory) { register(name, family{factory: f, needsWeights: true}) }

// RegisterModelChecked adds a model family, as RegisterModel does, whose
// specs Check also runs check on, as RegisterChecked does.
func RegisterModelChecked(name string, f Factory, check func(Spec) error) {
	register(name, family{factory: f, check: check, needsWeights: true})
}

// RegisterProposer says how the model family name, already registered,
// ranks moves for a searching player's proposer= (ProposerSetting). It
// panics when name is not a registered model family or has a proposer,
// which only a mistake in the family's registration can cause.
func RegisterProposer(name string, f ProposerFactory) {
	name = strings.ToLower(name)
	registryMu.Lock()
	defer registryMu.Unlock()
	fam, ok := registry[name]
	if !ok || !fam.needsWeights || fam.proposer != nil {
		panic("player: proposer of " + name + " registered twice or without its model family")
	}
	fam.proposer = f
	registry[name] = fam
}

func register(name string, f family) {
	name = strings.ToLower(name)
	registryMu.Lock()
	defer registryMu.Unlock()
	if _, taken := registry[name]; taken {
		panic("player: family " + name + " registered twice")
	}
	registry[name] = f
}

// SetModelResolver sets how a bare model name finds its weights (the cmd
// layer looks for the newest export under runs/). The resolver's error
// should name the command that makes the weights.
func SetModelResolver(resolve func(ctx context.Context, family string) (path string, err error)) {
	registryMu.Lock()
	defer registryMu.Unlock()
	modelResolver = resolve
}

// Families lists the registered family names, sorted.
func Families() []string {
	registryMu.RLock()
	defer registryMu.RUnlock()
	names := make([]string, 0, len(registry))
	for name := range registry {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// Proposers lists the families that can order a search's root moves
// (proposer=), sorted.
func Proposers() []string {
	registryMu.RLock()
	defer registryMu.RUnlock()
	var names []string
	for name, fam := range registry {
		if fam.proposer != nil {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	return names
}

// New parses spec and makes the player.
func New(ctx context.Context, spec string) (Player, error) {
	s, err := ParseSpec(spec)
	if err != nil {
		return nil, err
	}
	return NewFromSpec(ctx, s)
}

// NewFromSpec makes the player a parsed spec describes.
func NewFromSpec(ctx context.Context, s Spec) (Player, error) {
	if err := Check(s); err != nil {
		return nil, err
	}
	registryMu.RLock()
	fam := registry[s.Family]
	resolve := modelResolver
	registryMu.RUnlock()
	s, err := resolveWeights(ctx, s, fam, resolve)
	if err != nil {
		return nil, err
	}
	p, err := fam.factory(ctx, s)
	if err != nil {
		return nil, err
	}
	if s.Name != "" {
		return &renamed{Player: p, name: s.Name}, nil
	}
	return p, nil
}

// Check fails with a *SpecError on what is wrong in a parsed spec without
// making the player, so a command can refuse it before it starts: an
// unknown family (naming the closest), model weights that do not exist,
// and what the family's own check finds. A bare model name passes; its
// weights are found by ResolveWeights.
func Check(s Spec) error {
	registryMu.RLock()
	fam, ok := registry[s.Family]
	registryMu.RUnlock()
	if !ok {
		known := Families()
		msg := fmt.Sprintf("unknown player %q (known: %s)", s.Family, strings.Join(known, ", "))
		if best := suggest.Closest(s.Family, known); best != "" {
			msg += "; did you mean " + best + "?"
		}
		return &SpecError{Err: errors.New(msg)}
	}
	if fam.needsWeights && s.Path != "" {
		if _, err := os.Stat(s.Path); errors.Is(err, fs.ErrNotExist) {
			return SpecErrorf("player %s: weights %s: no such file", s.Family, s.Path)
		}
	}
	if fam.check != nil {
		return fam.check(s)
	}
	return nil
}

// NeedsWeights says whether family is a model family, whose bare name
// stands for weights that ResolveWeights finds.
func NeedsWeights(family string) bool {
	registryMu.RLock()
	defer registryMu.RUnlock()
	return registry[family].needsWeights
}

// ResolveWeights fills in the weights path of a bare model name ("cnn")
// with the resolver's answer, so a command can report missing weights
// before it starts and every game of a run plays the same file; any other
// spec comes back as it is. The player keeps the name it was typed with
// (Spec.Name): the resolver says once which file that is, and reports and
// PGN tags do not repeat its path.
//
// A bare proposer= (proposer=policy) is pinned the same way, so a player
// remade during a run (a UCI engine after a Hash change, each game of a
// tournament) orders its moves with the same file.
func ResolveWeights(ctx context.Context, s Spec) (Spec, error) {
	registryMu.RLock()
	fam := registry[s.Family]
	resolve := modelResolver
	registryMu.RUnlock()
	s, err := resolveWeights(ctx, s, fam, resolve)
	if err != nil {
		return s, err
	}
	return resolveProposerWeights(ctx, s, resolve)
}

func resolveWeights(ctx context.Context, s Spec, fam family, resolve func(context.Context, string) (string, error)) (Spec, error) {
	if !fam.needsWeights || s.Path != "" {
		return s, nil
	}
	if resolve == nil {
		return s, SpecErrorf("player %s needs a weights file: %s:PATH", s.Family, s.Family)
	}
	path, err := resolve(ctx, s.Family)
	if err != nil {
		return s, err
	}
	if s.Name == "" {
		s.Name = s.DisplayName()
	}
	s.Path = path
	return s, nil
}

// Try makes the player s describes and closes it: the one check that finds
// all a spec can get wrong (a family's own settings and their values,
// weights that do not load, an engine that does not start), so a command
// can refuse it before it says anything or plays a game.
func Try(ctx context.Context, s Spec) error {
	p, err := NewFromSpec(ctx, s)
	if err != nil {
		return err
	}
	return p.Close()
}

// renamed gives a player the display name from name=.
type renamed struct {
	Player
	name string
}

func (r *renamed) Name() string { return r.name }

// SeedGame forwards to the wrapped player, if it is random.
func (r *renamed) SeedGame(seed uint64) {
	if s, ok := r.Player.(GameSeeder); ok {
		s.SeedGame(seed)
	}
}

// Unwrap returns the player behind the name override.
func (r *renamed) Unwrap() Player { return r.Player }

// Unwrap returns the player behind wrappers such as the name= override, so
// callers can reach optional interfaces (heuristic's Explain).
func Unwrap(p Player) Player {
	for {
		u, ok := p.(interface{ Unwrap() Player })
		if !ok {
			return p
		}
		p = u.Unwrap()
	}
}
