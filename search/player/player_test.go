package player

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/dchess/dchess/internal/chess/board"
	"github.com/dchess/dchess/internal/testenv"
	"github.com/dchess/dchess/search"
)

func TestParseSpec(t *testing.T) {
	cases := []struct {
		in       string
		family   string
		path     string
		settings map[string]string
		name     string
	}{
		{"heuristic", "heuristic", "", map[string]string{}, ""},
		{"heuristic:depth=4", "heuristic", "", map[string]string{"depth": "4"}, ""},
		{"heuristic:depth=4,hash=8&name=H4", "heuristic", "", map[string]string{"depth": "4", "hash": "8"}, "H4"},
		{"cnn:runs/cnn/model.dcw", "cnn", "runs/cnn/model.dcw", map[string]string{}, ""},
		{"cnn:model.dcw", "cnn", "model.dcw", map[string]string{}, ""},
		{"cnn:runs/cnn/model.dcw?depth=3", "cnn", "runs/cnn/model.dcw", map[string]string{"depth": "3"}, ""},
		{"uci:/usr/games/stockfish?UCI_LimitStrength=true&UCI_Elo=1500&name=SF%201500", "uci", "/usr/games/stockfish",
			map[string]string{"UCI_LimitStrength": "true", "UCI_Elo": "1500"}, "SF 1500"},
		{"Random:seed=3", "random", "", map[string]string{"seed": "3"}, ""},
		{"heuristic:proposer=policy:runs/policy/model.dcw", "heuristic", "", map[string]string{"proposer": "policy:runs/policy/model.dcw"}, ""},
		{"cnn:runs/a=b/model.dcw", "cnn", "runs/a=b/model.dcw", map[string]string{}, ""},
	}
	for _, c := range cases {
		s, err := ParseSpec(c.in)
		if err != nil {
			t.Fatalf("ParseSpec(%q): %v", c.in, err)
		}
		if s.Family != c.family || s.Path != c.path || !reflect.DeepEqual(s.Settings, c.settings) || s.Name != c.name {
			t.Errorf("ParseSpec(%q) = %+v", c.in, s)
		}
		back, err := ParseSpec(s.String())
		if err != nil || !reflect.DeepEqual(back.Settings, s.Settings) || back.Path != s.Path || back.Name != s.Name {
			t.Errorf("ParseSpec(%q).String() = %q does not read back: %+v, %v", c.in, s.String(), back, err)
		}
	}
	for _, bad := range []string{"", ":depth=3", "heuristic:depth=1,depth=2", "he uristic", "heuristic:name=",
		"heuristic:name=two%0Alines", "random:name=tab%09bed", "uci:/usr/games/stockfish?name=SF\n1500"} {
		if _, err := ParseSpec(bad); err == nil {
			t.Errorf("ParseSpec(%q) succeeded", bad)
		} else if strings.Contains(err.Error(), "\n") {
			t.Errorf("ParseSpec(%q) error is not one line: %q", bad, err)
		} else if spec := (*SpecError)(nil); !errors.As(err, &spec) {
			t.Errorf("ParseSpec(%q) error %v is not a *SpecError", bad, err)
		}
	}
}

func TestSplitList(t *testing.T) {
	got := SplitList("heuristic:depth=2,nodes=500, random,uci:/bin/sf?UCI_Elo=1500&Threads=1,random:seed=2")
	want := []string{"heuristic:depth=2,nodes=500", "random", "uci:/bin/sf?UCI_Elo=1500&Threads=1", "random:seed=2"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("SplitList = %q, want %q", got, want)
	}
}

func TestNewErrors(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		spec, want string
		// specError: the spec itself is wrong (a usage error), not the
		// making of the player.
		specError bool
	}{
		{"nosuch", `unknown player "nosuch" (known: `, true},
		{"heur", "did you mean heuristic?", true},
		{"rnadom", "did you mean random?", true},
		{"heuristic:dept=3", `unknown setting "dept"`, true},
		{"heuristic:depth=x", `depth="x" is not a non-negative integer`, true},
		{"heuristic:search=mcts", `search="mcts" is not alphabeta or minimax`, true},
		{"random:model.dcw", "takes no path", true},
		{"uci", "needs an engine path", true},
		{"heuristic:hash=9999999", "too large", true},
		{"heuristic:depth=4,oops", "takes no path", true},
		{"uci:/nonexistent/sf", "cannot start uci engine /nonexistent/sf", false},
	} {
		_, err := New(ctx, c.spec)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("New(%q) error = %v, want it to contain %q", c.spec, err, c.want)
			continue
		}
		if spec := (*SpecError)(nil); errors.As(err, &spec) != c.specError {
			t.Errorf("New(%q) error %v: *SpecError is %v, want %v", c.spec, err, !c.specError, c.specError)
		}
	}
}

func TestNameOverrideAndUnwrap(t *testing.T) {
	p, err := New(context.Background(), "heuristic:depth=1,name=Plain")
	if err != nil {
		t.Fatal(err)
	}
	if p.Name() != "Plain" {
		t.Errorf("Name = %q, want Plain", p.Name())
	}
	if _, ok := Unwrap(p).(*Searcher); !ok {
		t.Errorf("Unwrap gave %T, want *Searcher", Unwrap(p))
	}
	q, _ := New(context.Background(), "heuristic:depth=1")
	if q.Name() != "heuristic:depth=1" {
		t.Errorf("default name = %q, want the spec", q.Name())
	}
}

// mateInOne is a position where White mates with Qxf7#.
const mateInOne = "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4"

func TestSearchPlayersFindMate(t *testing.T) {
	ctx := context.Background()
	for _, spec := range []string{"heuristic:depth=2", "heuristic:search=minimax,depth=2", "heuristic:nodes=20000"} {
		p, err := New(ctx, spec)
		if err != nil {
			t.Fatal(err)
		}
		var infos []Info
		mi, err := p.Move(ctx, Position{StartFEN: mateInOne}, Limits{OnInfo: func(in Info) { infos = append(infos, in) }})
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		if mi.Move != "h5f7" || mi.Mate != 1 || !mi.HasScore || mi.Depth < 1 {
			t.Errorf("%s: got %+v, want h5f7 mate 1", spec, mi)
		}
		if len(infos) == 0 || infos[len(infos)-1].PV[0] != "h5f7" {
			t.Errorf("%s: info reports %+v", spec, infos)
		}
	}
}

func TestSearcherLimits(t *testing.T) {
	p := SearchPlayer("h", nil, SearchOptions{Depth: 3, Nodes: 1000})
	if got := p.limits(Limits{Depth: 6, Nodes: 500}); got.Depth != 3 || got.Nodes != 500 {
		t.Errorf("caps: got %+v", got)
	}
	q := SearchPlayer("h", nil, SearchOptions{})
	if got := q.limits(Limits{}); got.Depth != DefaultDepth {
		t.Errorf("no limit: got %+v, want depth %d", got, DefaultDepth)
	}
	if got := q.limits(Limits{Infinite: true}); got.Depth != 0 || !got.Infinite {
		t.Errorf("infinite: got %+v", got)
	}
	// A caller's default depth bounds only a player with no limit of its own.
	if got := q.limits(Limits{DefaultDepth: 2}); got.Depth != 2 {
		t.Errorf("default depth 2, no own limit: got %+v", got)
	}
	deep := SearchPlayer("h", nil, SearchOptions{Depth: 7})
	if got := deep.limits(Limits{DefaultDepth: 4}); got.Depth != 7 {
		t.Errorf("own depth=7 under default depth 4: got %+v", got)
	}
	nodes := SearchPlayer("h", nil, SearchOptions{Nodes: 5000})
	if got := nodes.limits(Limits{DefaultDepth: 4}); got.Depth != 0 || got.Nodes != 5000 {
		t.Errorf("own nodes=5000 under default depth 4: got %+v", got)
	}
	if got := deep.limits(Limits{Depth: 4, DefaultDepth: 4}); got.Depth != 4 {
		t.Errorf("own depth=7 under a depth 4 cap: got %+v", got)
	}
}

func TestRandomIsSeededAndLegal(t *testing.T) {
	ctx := context.Background()
	play := func(seed uint64) []string {
		p, err := New(ctx, "random:seed=3")
		if err != nil {
			t.Fatal(err)
		}
		p.(GameSeeder).SeedGame(seed)
		var pos Position
		for range 40 {
			mi, err := p.Move(ctx, pos, Limits{})
			if err != nil {
				break // the game ended
			}
			if _, err := Board(Position{Moves: append(pos.Moves, mi.Move)}); err != nil {
				t.Fatalf("random played an illegal move: %v", err)
			}
			if mi.HasScore {
				t.Fatal("random claims a score")
			}
			pos.Moves = append(pos.Moves, mi.Move)
		}
		return pos.Moves
	}
	if a, b := play(1), play(1); !reflect.DeepEqual(a, b) {
		t.Error("same seeds gave different games")
	}
	if a, b := play(1), play(2); reflect.DeepEqual(a, b) {
		t.Error("different game seeds gave the same game")
	}
}

// rankedProposer proposes an illegal move with the top score, then two
// legal ones.
type rankedProposer struct{}

func (rankedProposer) Propose(b *board.Board) ([]board.Move, []float64, error) {
	legal := b.LegalMoves()
	var other board.Move
	for _, m := range legal {
		if board.UCI(m) != "g1f3" && board.UCI(m) != "e2e4" {
			other = m
			break
		}
	}
	e2e4, _ := b.ParseUCI("e2e4")
	g1f3, _ := b.ParseUCI("g1f3")
	// Squares 4 and 60 are e1 and e8: a king move along the file is not
	// legal whichever field is the origin, so the player must skip it.
	illegal := board.Move(4 | 60<<6)
	return []board.Move{illegal, other, g1f3, e2e4}, []float64{9, 0.1, 0.7, 0.5}, nil
}

type failingProposer struct{}

func (failingProposer) Propose(*board.Board) ([]board.Move, []float64, error) {
	return nil, nil, errors.New("model not loaded")
}

func TestProposerPlayer(t *testing.T) {
	ctx := context.Background()
	policy := Spec{Family: "policy"}
	p, err := ProposerPlayer(policy, rankedProposer{})
	if err != nil {
		t.Fatal(err)
	}
	mi, err := p.Move(ctx, Position{}, Limits{})
	if err != nil || mi.Move != "g1f3" || mi.HasScore {
		t.Fatalf("got %+v, %v; want g1f3 without a score", mi, err)
	}
	if p, err = ProposerPlayer(policy, failingProposer{}); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Move(ctx, Position{}, Limits{}); err == nil {
		t.Fatal("a failing proposer gave no error")
	}
	if _, err := ProposerPlayer(policy.With("repetition", "never"), rankedProposer{}); err == nil ||
		!strings.Contains(err.Error(), "repetition") {
		t.Fatalf("repetition=never: %v", err)
	}
}

// knightsProposer ranks the knights' return to their starting squares
// first, then every other move: a model that walks in a circle.
type knightsProposer struct{}

func (knightsProposer) Propose(b *board.Board) ([]board.Move, []float64, error) {
	moves := b.LegalMoves()
	scores := make([]float64, len(moves))
	for i, m := range moves {
		switch board.UCI(m) {
		case "f3g1", "f6g8", "g1f3", "g8f6":
			scores[i] = 1
		}
	}
	return moves, scores, nil
}

// TestProposerAvoidsRepetition: after Nf3 Nf6 Ng1 Ng8 the start position
// has occurred twice; the knights' moves bring back positions of the game,
// so repetition=avoid plays another move and the default plays the knight.
func TestProposerAvoidsRepetition(t *testing.T) {
	ctx := context.Background()
	pos := Position{Moves: []string{"g1f3", "g8f6", "f3g1", "f6g8"}}
	for setting, knight := range map[string]bool{"": true, "allow": true, "avoid": false} {
		spec := Spec{Family: "policy"}
		if setting != "" {
			spec = spec.With("repetition", setting)
		}
		p, err := ProposerPlayer(spec, knightsProposer{})
		if err != nil {
			t.Fatal(err)
		}
		mi, err := p.Move(ctx, pos, Limits{})
		if err != nil {
			t.Fatal(err)
		}
		if got := mi.Move == "g1f3"; got != knight {
			t.Errorf("repetition=%q played %s", setting, mi.Move)
		}
	}
	// When every proposed move repeats, avoid still plays the top one.
	p, err := ProposerPlayer(Spec{Family: "policy"}.With("repetition", "avoid"), knightsOnly{})
	if err != nil {
		t.Fatal(err)
	}
	if mi, err := p.Move(ctx, pos, Limits{}); err != nil || mi.Move != "g1f3" {
		t.Fatalf("with only repeating moves: got %+v, %v; want g1f3", mi, err)
	}
}

// knightsOnly proposes the knights' moves of knightsProposer alone.
type knightsOnly struct{}

func (knightsOnly) Propose(b *board.Board) ([]board.Move, []float64, error) {
	moves, scores, _ := knightsProposer{}.Propose(b)
	var keep []board.Move
	var keepScores []float64
	for i, m := range moves {
		if scores[i] > 0 {
			keep, keepScores = append(keep, m), append(keepScores, scores[i])
		}
	}
	return keep, keepScores, nil
}

func TestModelFamilyResolution(t *testing.T) {
	var gotPath string
	RegisterModel("testmodel", func(_ context.Context, s Spec) (Player, error) {
		gotPath = s.Path
		return SearchPlayer(s.DisplayName(), constEval{}, SearchOptions{Depth: 1}), nil
	})
	ctx := context.Background()
	SetModelResolver(nil)
	if _, err := New(ctx, "testmodel"); err == nil || !strings.Contains(err.Error(), "testmodel:PATH") {
		t.Errorf("without a resolver: %v", err)
	}
	SetModelResolver(func(_ context.Context, family string) (string, error) {
		return "runs/" + family + "/model.dcw", nil
	})
	defer SetModelResolver(nil)
	if _, err := New(ctx, "testmodel"); err != nil || gotPath != "runs/testmodel/model.dcw" {
		t.Errorf("bare name resolved to %q, %v", gotPath, err)
	}
	// A bare name keeps the name it was typed with, settings and all,
	// made from the spec or from the spec ResolveWeights filled in; name=
	// still wins.
	weights := filepath.Join(t.TempDir(), "model.dcw")
	if err := os.WriteFile(weights, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	SetModelResolver(func(context.Context, string) (string, error) { return weights, nil })
	for typed, want := range map[string]string{"testmodel": "testmodel", "testmodel:depth=2": "testmodel:depth=2",
		"testmodel:depth=2,name=mine": "mine"} {
		s, err := ParseSpec(typed)
		if err != nil {
			t.Fatal(err)
		}
		resolved, err := ResolveWeights(ctx, s)
		if err != nil || resolved.Path != weights || resolved.Raw != typed {
			t.Errorf("%s resolved to %+v, %v", typed, resolved, err)
		}
		for _, spec := range []Spec{s, resolved} {
			p, err := NewFromSpec(ctx, spec)
			if err != nil {
				t.Fatalf("%s (path %q): %v", typed, spec.Path, err)
			}
			if p.Name() != want {
				t.Errorf("%s (path %q) plays as %q, want %q", typed, spec.Path, p.Name(), want)
			}
		}
	}
	mine := filepath.Join(t.TempDir(), "mine.dcw")
	if err := os.WriteFile(mine, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := New(ctx, "testmodel:"+mine); err != nil || gotPath != mine {
		t.Errorf("explicit path became %q, %v", gotPath, err)
	}
	// Weights that are not there are the spec's mistake, found before the
	// family loads anything.
	gotPath = ""
	missing := filepath.Join(t.TempDir(), "typo.dcw")
	_, err := New(ctx, "testmodel:"+missing)
	if spec := (*SpecError)(nil); !errors.As(err, &spec) || err.Error() != "player testmodel: weights "+missing+": no such file" || gotPath != "" {
		t.Errorf("missing weights: %v (factory saw %q)", err, gotPath)
	}
}

// Try finds what only making the player finds (a family's own settings),
// and closes what it made.
func TestTry(t *testing.T) {
	ctx := context.Background()
	for spec, want := range map[string]string{"heuristic:depth=2": "", "heuristic:foo=1": `unknown setting "foo"`,
		"random:depth=2": `unknown setting "depth"`, "heuristic:depth=x": `depth="x"`} {
		s, err := ParseSpec(spec)
		if err != nil {
			t.Fatal(err)
		}
		if Check(s) != nil {
			t.Fatalf("%s: Check found it already", spec)
		}
		err = Try(ctx, s)
		if want == "" && err != nil || want != "" && (err == nil || !strings.Contains(err.Error(), want)) {
			t.Errorf("Try(%s) = %v, want %q", spec, err, want)
		}
	}
}

func TestCheck(t *testing.T) {
	var made int
	RegisterChecked("testchecked", func(_ context.Context, s Spec) (Player, error) {
		made++
		return NewRandom("testchecked", 0), nil
	}, func(s Spec) error {
		if s.Path == "" {
			return SpecErrorf("player testchecked needs a path")
		}
		return nil
	})
	for spec, want := range map[string]string{
		"testchecked:x":  "",
		"random":         "",
		"testchecked":    "player testchecked needs a path",
		"testchecke":     `unknown player "testchecke" (known: `,
		"testcheck":      "did you mean testchecked?",
		"cnn:model.dcw":  `unknown player "cnn"`, // model families are registered by their own packages, not here
		"heuristic:x=1":  "",                     // settings are the factory's to check
		"heuristic:nope": "",
	} {
		s, err := ParseSpec(spec)
		if err != nil {
			t.Fatal(err)
		}
		err = Check(s)
		switch {
		case want == "" && err != nil:
			t.Errorf("Check(%q) = %v", spec, err)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
			t.Errorf("Check(%q) = %v, want it to contain %q", spec, err, want)
		case err != nil && !errors.As(err, new(*SpecError)):
			t.Errorf("Check(%q) = %v is not a *SpecError", spec, err)
		}
	}
	if made != 0 {
		t.Errorf("Check made %d players", made)
	}
	if _, err := New(context.Background(), "testchecked"); err == nil || made != 0 {
		t.Errorf("New ran the factory on a spec its check refuses: %v", err)
	}
}

type constEval struct{}

func (constEval) Evaluate(*board.Board) int { return 0 }

var _ search.Evaluator = constEval{}

func TestUCIPlayerWithStockfish(t *testing.T) {
	sf := testenv.Stockfish(t)
	ctx := context.Background()
	p, err := New(ctx, "uci:"+sf+"?Threads=1&Hash=16&name=SF")
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if p.Name() != "SF" {
		t.Errorf("Name = %q", p.Name())
	}
	if err := p.NewGame(ctx); err != nil {
		t.Fatal(err)
	}
	var infos int
	mi, err := p.Move(ctx, Position{StartFEN: mateInOne}, Limits{Depth: 5, OnInfo: func(Info) { infos++ }})
	if err != nil {
		t.Fatal(err)
	}
	if mi.Move != "h5f7" || mi.Mate != 1 || !mi.HasScore || mi.Score <= 30000 || infos == 0 {
		t.Errorf("got %+v (%d infos), want h5f7 mate 1", mi, infos)
	}
	if _, err := New(ctx, "uci:"+sf+"?NoSuchOption=1"); err == nil || !strings.Contains(err.Error(), "NoSuchOption") {
		t.Errorf("unknown option: %v", err)
	}
}

// TestThreadsSetting: threads= reaches the engine (one thread unless
// asked), a two-thread player still finds the mate, and a bad count is a
// spec error.
func TestThreadsSetting(t *testing.T) {
	ctx := context.Background()
	for spec, want := range map[string]int{"heuristic:depth=3": 1, "heuristic:threads=1": 1, "heuristic:depth=3,threads=2": 2} {
		p, err := New(ctx, spec)
		if err != nil {
			t.Fatal(err)
		}
		if got := Unwrap(p).(*Searcher).Threads(); got != want {
			t.Errorf("%s: %d threads, want %d", spec, got, want)
		}
		mi, err := p.Move(ctx, Position{StartFEN: mateInOne}, Limits{})
		if err != nil || mi.Move != "h5f7" || mi.Mate != 1 {
			t.Errorf("%s: %+v, %v; want h5f7 mate 1", spec, mi, err)
		}
	}
	for _, bad := range []string{"heuristic:threads=0", "heuristic:threads=100000", "heuristic:threads=two"} {
		_, err := New(ctx, bad)
		if spec := (*SpecError)(nil); !errors.As(err, &spec) || !strings.Contains(err.Error(), "threads") {
			t.Errorf("New(%q) error %v, want a spec error about threads", bad, err)
		}
	}
}
