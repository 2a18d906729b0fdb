package player

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/dchess/dchess/internal/chess/board"
	"github.com/dchess/dchess/search"
)

// lastFirstProposer ranks the legal moves in the reverse of the order they
// are generated in, so its first move is one the search would not try
// first on its own.
type lastFirstProposer struct{}

func (lastFirstProposer) Propose(b *board.Board) ([]board.Move, []float64, error) {
	moves := b.LegalMoves()
	scores := make([]float64, len(moves))
	for i := range moves {
		scores[i] = float64(i)
	}
	return moves, scores, nil
}

// A test proposer family: testrank ranks with lastFirstProposer and
// testbroken fails; both record the weights path their proposer was made
// with.
var (
	registerTestProposers sync.Once
	proposerPath          string
)

func testProposerWeights(t *testing.T) string {
	t.Helper()
	registerTestProposers.Do(func() {
		for name, p := range map[string]search.MoveProposer{"testrank": lastFirstProposer{}, "testbroken": failingProposer{}} {
			RegisterModel(name, func(_ context.Context, s Spec) (Player, error) { return ProposerPlayer(s, p) })
			RegisterProposer(name, func(s Spec) (search.MoveProposer, error) {
				proposerPath = s.Path
				return p, nil
			})
		}
	})
	path := filepath.Join(t.TempDir(), "rank.dcw")
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestProposerSetting: proposer= orders the root of a heuristic player (a
// one-node search plays its first root move: the proposer's first, which
// is not the search's own), shows in the player's name, and a bare name
// finds its weights as a player's does.
func TestProposerSetting(t *testing.T) {
	ctx := context.Background()
	weights := testProposerWeights(t)
	start := board.New()
	moves, _, _ := lastFirstProposer{}.Propose(start)
	top := board.UCI(moves[len(moves)-1])
	one := Limits{Nodes: 1}

	plain, err := New(ctx, "heuristic")
	if err != nil {
		t.Fatal(err)
	}
	if mi, err := plain.Move(ctx, Position{}, one); err != nil || mi.Move == top {
		t.Fatalf("without a proposer: %+v, %v; the test needs a first move other than %s", mi, err, top)
	}

	p, err := New(ctx, "heuristic:proposer=testrank:"+weights)
	if err != nil {
		t.Fatal(err)
	}
	if mi, err := p.Move(ctx, Position{}, one); err != nil || mi.Move != top {
		t.Errorf("with the proposer: %+v, %v; want its first move %s", mi, err, top)
	}
	if !strings.Contains(p.Name(), "proposer=testrank") || proposerPath != weights {
		t.Errorf("name %q, proposer made from %q", p.Name(), proposerPath)
	}
	// The proposer only orders: a deeper search still finds the mate.
	if mi, err := p.Move(ctx, Position{StartFEN: mateInOne}, Limits{Depth: 3}); err != nil || mi.Move != "h5f7" {
		t.Errorf("mate in one with the proposer: %+v, %v", mi, err)
	}

	SetModelResolver(func(_ context.Context, family string) (string, error) { return "runs/" + family + "/model.dcw", nil })
	defer SetModelResolver(nil)
	if _, err := New(ctx, "heuristic:proposer=testrank"); err != nil || proposerPath != "runs/testrank/model.dcw" {
		t.Errorf("bare proposer resolved to %q, %v", proposerPath, err)
	}
}

// TestProposerSettingRefused: what cannot order the search is a spec
// error of one line, found by Check before anything is made.
func TestProposerSettingRefused(t *testing.T) {
	ctx := context.Background()
	weights := testProposerWeights(t)
	missing := filepath.Join(t.TempDir(), "typo.dcw")
	for spec, want := range map[string]string{
		"heuristic:proposer=heuristic":                                   "player heuristic: proposer=heuristic: heuristic is not a family that ranks moves (proposers: testbroken, testrank)",
		"heuristic:proposer=random":                                      "random is not a family that ranks moves",
		"heuristic:proposer=testran":                                     "did you mean testrank?",
		"heuristic:proposer=":                                            "proposer=: empty player spec",
		"heuristic:search=minimax,proposer=testrank:" + weights:          "search=minimax orders no moves",
		"heuristic:proposer=testrank:" + missing:                         "weights " + missing + ": no such file",
		"heuristic:proposer=testrank:" + weights + "%3Frepetition=avoid": "repetition= chooses the move of a player that does not search",
	} {
		s, err := ParseSpec(spec)
		if err != nil {
			t.Fatal(err)
		}
		for _, err := range []error{Check(s), func() error { _, err := NewFromSpec(ctx, s); return err }()} {
			if spec := (*SpecError)(nil); !errors.As(err, &spec) || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("%s: %v, want a one-line spec error with %q", s.Raw, err, want)
			}
		}
	}
}

// TestFailingProposerFailsTheMove: a ranking that fails is the player's
// failure, not a search quietly played without it.
func TestFailingProposerFailsTheMove(t *testing.T) {
	ctx := context.Background()
	p, err := New(ctx, "heuristic:depth=2,proposer=testbroken:"+testProposerWeights(t))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Move(ctx, Position{}, Limits{}); err == nil || !strings.Contains(err.Error(), "proposer: model not loaded") {
		t.Fatalf("got %v, want the proposer's failure", err)
	}
}

// TestResolveWeightsPinsABareProposer: the file a bare proposer= stands
// for is found once, by ResolveWeights, and a player made again from the
// pinned spec (a UCI engine after a Hash change) asks for it no more; the
// player keeps the name it was typed with.
func TestResolveWeightsPinsABareProposer(t *testing.T) {
	ctx := context.Background()
	weights := testProposerWeights(t)
	asked := 0
	SetModelResolver(func(_ context.Context, family string) (string, error) {
		asked++
		return weights, nil
	})
	defer SetModelResolver(nil)
	spec, err := ParseSpec("heuristic:proposer=testrank")
	if err != nil {
		t.Fatal(err)
	}
	pinned, err := ResolveWeights(ctx, spec)
	if err != nil || asked != 1 {
		t.Fatalf("resolved %+v, %v, asked %d times", pinned, err, asked)
	}
	if got := pinned.Get(ProposerSetting, ""); got != "testrank:"+weights {
		t.Errorf("proposer= pinned to %q", got)
	}
	for range 2 {
		p, err := NewFromSpec(ctx, pinned)
		if err != nil {
			t.Fatal(err)
		}
		if p.Name() != "heuristic:proposer=testrank" {
			t.Errorf("name %q, want the spec as typed", p.Name())
		}
		p.Close()
	}
	if asked != 1 || proposerPath != weights {
		t.Errorf("resolver asked %d times, proposer made from %q", asked, proposerPath)
	}
}
