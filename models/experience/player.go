package experience

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"

	"github.com/dchess/dchess/internal/chess/board"
	"github.com/dchess/dchess/search/player"
)

// Register adds the experience player to the player registry; cmd/dchess
// calls it through families.RegisterAll.
func Register() { player.RegisterChecked("experience", newPlayerFromSpec, checkSpec) }

// Settings of the experience player (experience:DB?SETTINGS).
const (
	DefaultMinVisits = 1
	DefaultMinScore  = 0.0
)

// Rule is how the player picks among known moves.
type Rule struct {
	// MinVisits: a known move counts only when at least this many games
	// played it.
	MinVisits int64
	// MinScore: the best known move is played only when its score for the
	// mover is at least this; otherwise the fallback plays. 0 is the
	// seed's rule (always the best known move); 0.5 treats an untried
	// move as worth a draw, so a line that lost more than it won is left.
	MinScore float64
}

// Choose returns the known move the rule plays: among the moves that are
// legal (legal reports it) and were played in at least MinVisits games,
// the best score for the side that moved (wins plus half the draws, over
// games); ties go to the move with more games, then to the first in UCI
// order, so the choice is the same on every run. ok is false when no
// move qualifies or the best scores below MinScore.
func (r Rule) Choose(edges []Edge, legal func(uci string) bool) (best Edge, ok bool) {
	for _, e := range edges {
		if e.Visits() < max(r.MinVisits, 1) || !legal(e.Move) {
			continue
		}
		if !ok || better(e, best) {
			best, ok = e, true
		}
	}
	if ok && best.Score() < r.MinScore {
		return Edge{}, false
	}
	return best, ok
}

func better(a, b Edge) bool {
	// Compare scores as exact fractions: wins+draws/2 over visits.
	sa, sb := 2*ownWins(a)+a.Draws, 2*ownWins(b)+b.Draws
	if l, r := sa*b.Visits(), sb*a.Visits(); l != r {
		return l > r
	}
	if a.Visits() != b.Visits() {
		return a.Visits() > b.Visits()
	}
	return a.Move < b.Move
}

func ownWins(e Edge) int64 {
	if e.Player == board.Black {
		return e.BlackWins
	}
	return e.WhiteWins
}

// Player is Deep Red: in a position it knows it plays its best known move
// (Rule); elsewhere its fallback (random by default) plays. With learning
// on, every game it finishes is added to the tree in one transaction.
type Player struct {
	name     string
	db       *DB
	rule     Rule
	fallback player.Player
	learn    bool
	// explore is the chance of a uniformly random legal move instead of
	// the tree or the fallback, so learning games try new lines.
	explore float64
	seed    uint64
	rng     *rand.Rand

	// TreeMoves and FallbackMoves count where this player's moves came from.
	TreeMoves, FallbackMoves, RandomMoves int64
}

// Options configure NewPlayer.
type Options struct {
	Name     string
	Rule     Rule
	Fallback player.Player // nil: random
	// Learn records every finished game in the tree, and makes the tree
	// file when it does not exist.
	Learn   bool
	Explore float64
	Seed    uint64
}

// NewPlayer returns an experience player over the database at path.
// Players of one process share the open database. A learning player
// starts the tree when the file does not exist yet; any other player
// refuses a missing file, since it would only play its fallback.
func NewPlayer(ctx context.Context, path string, opts Options) (*Player, error) {
	if !(opts.Explore >= 0 && opts.Explore <= 1) {
		return nil, player.SpecErrorf("player experience: explore=%v is not between 0 and 1", opts.Explore)
	}
	if err := checkTree(path, opts.Learn); err != nil {
		return nil, err
	}
	db, err := acquire(ctx, path)
	if err != nil {
		return nil, err
	}
	if opts.Learn {
		if err := db.Check(ctx); err != nil {
			release(db)
			return nil, err
		}
	}
	p := &Player{name: opts.Name, db: db, rule: opts.Rule, fallback: opts.Fallback, learn: opts.Learn,
		explore: opts.Explore, seed: opts.Seed, rng: rand.New(rand.NewPCG(opts.Seed, 1))}
	if p.fallback == nil {
		p.fallback = player.NewRandom("random", opts.Seed)
	}
	if p.name == "" {
		p.name = "experience"
	}
	return p, nil
}

// checkTree refuses a tree file that does not exist unless the player
// learns: a misspelt name would otherwise become a new empty tree, and the
// player would play only its fallback without a word.
func checkTree(path string, learn bool) error {
	if _, err := os.Stat(path); learn || !errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return player.SpecErrorf("player experience: %s: no such file (make a tree with `dchess experience build`, or start one with learn=true)", path)
}

// checkSpec finds what is wrong in an experience spec without opening the
// tree: no path, a tree file missing when not learning, a bad fallback.
// player.NewFromSpec runs it before newPlayerFromSpec.
func checkSpec(spec player.Spec) error {
	if spec.Path == "" {
		return player.SpecErrorf("player experience needs a database: experience:FILE.db (made by `dchess experience build` or by learn=true)")
	}
	learn, err := learnSetting(spec)
	if err != nil {
		return err
	}
	if err := checkTree(spec.Path, learn); err != nil {
		return err
	}
	if fb := spec.Get("fallback", ""); fb != "" {
		fbSpec, err := fallbackSpec(fb)
		if err != nil {
			return err
		}
		if err := player.Check(fbSpec); err != nil {
			return fmt.Errorf("player experience: fallback: %w", err)
		}
	}
	return nil
}

func learnSetting(spec player.Spec) (bool, error) {
	switch v := strings.ToLower(spec.Get("learn", "false")); v {
	case "true", "1", "yes":
		return true, nil
	case "false", "0", "no":
		return false, nil
	default:
		return false, player.SpecErrorf("player experience: learn=%q is not true or false", v)
	}
}

func fallbackSpec(fb string) (player.Spec, error) {
	s, err := player.ParseSpec(fb)
	if err != nil {
		return s, fmt.Errorf("player experience: fallback: %w", err)
	}
	if s.Family == "experience" {
		return s, player.SpecErrorf("player experience: the fallback cannot be another experience player")
	}
	return s, nil
}

// newPlayerFromSpec reads experience:DB?minvisits=N,minscore=X,fallback=SPEC,
// learn=true,explore=P,seed=N. A fallback SPEC with settings of its own has
// its "," "&" ":" and "=" %-escaped: fallback=heuristic%3Adepth%3D1.
func newPlayerFromSpec(ctx context.Context, spec player.Spec) (player.Player, error) {
	if err := spec.CheckSettings("minvisits", "minscore", "fallback", "learn", "explore", "seed"); err != nil {
		return nil, err
	}
	minVisits, err := spec.Int("minvisits", DefaultMinVisits)
	if err != nil {
		return nil, err
	}
	minScore, err := specFloat(spec, "minscore", DefaultMinScore)
	if err != nil {
		return nil, err
	}
	explore, err := specFloat(spec, "explore", 0)
	if err != nil {
		return nil, err
	}
	seed, err := spec.Int("seed", 0)
	if err != nil {
		return nil, err
	}
	learn, err := learnSetting(spec)
	if err != nil {
		return nil, err
	}
	var fallback player.Player
	if fb := spec.Get("fallback", ""); fb != "" {
		fbSpec, err := fallbackSpec(fb)
		if err != nil {
			return nil, err
		}
		if fallback, err = player.NewFromSpec(ctx, fbSpec); err != nil {
			return nil, fmt.Errorf("player experience: fallback: %w", err)
		}
	}
	p, err := NewPlayer(ctx, spec.Path, Options{Name: spec.DisplayName(), Rule: Rule{MinVisits: minVisits, MinScore: minScore},
		Fallback: fallback, Learn: learn, Explore: explore, Seed: uint64(seed)})
	if err != nil && fallback != nil {
		fallback.Close()
	}
	return p, err
}

func specFloat(spec player.Spec, key string, def float64) (float64, error) {
	v := spec.Get(key, "")
	if v == "" {
		return def, nil
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || !(f >= 0 && f <= 1) {
		return 0, player.SpecErrorf("player experience: %s=%q is not a number between 0 and 1", key, v)
	}
	return f, nil
}

func (p *Player) Name() string { return p.name }

// DB is the player's database.
func (p *Player) DB() *DB { return p.db }

// SeedGame reseeds the exploration draws and a random fallback.
func (p *Player) SeedGame(seed uint64) {
	p.rng = rand.New(rand.NewPCG(p.seed, seed))
	if s, ok := p.fallback.(player.GameSeeder); ok {
		s.SeedGame(seed)
	}
}

func (p *Player) NewGame(ctx context.Context) error { return p.fallback.NewGame(ctx) }

func (p *Player) Move(ctx context.Context, pos player.Position, lim player.Limits) (player.MoveInfo, error) {
	b, err := player.Board(pos)
	if err != nil {
		return player.MoveInfo{}, err
	}
	legal := b.LegalMoves()
	if len(legal) == 0 {
		return player.MoveInfo{}, errors.New("no legal move")
	}
	if p.explore > 0 && p.rng.Float64() < p.explore {
		p.RandomMoves++
		return player.MoveInfo{Move: board.UCI(legal[p.rng.IntN(len(legal))])}, nil
	}
	edges, err := p.db.Children(ctx, b.Key())
	if err != nil {
		return player.MoveInfo{}, fmt.Errorf("experience %s: %w", p.db.path, err)
	}
	isLegal := func(uci string) bool {
		// A key collision could name a move of another position.
		_, err := b.ParseUCI(uci)
		return err == nil
	}
	if best, ok := p.rule.Choose(edges, isLegal); ok {
		p.TreeMoves++
		return player.MoveInfo{Move: best.Move, PV: []string{best.Move}}, nil
	}
	p.FallbackMoves++
	return p.fallback.Move(ctx, pos, lim)
}

// GameOver records a finished game when learning is on.
func (p *Player) GameOver(ctx context.Context, g player.FinishedGame) error {
	if !p.learn {
		return nil
	}
	return p.db.Record(ctx, Game{StartFEN: g.Position.StartFEN, Moves: g.Position.Moves, Result: g.Result, Source: "learn:" + p.name})
}

// Close releases the database and the fallback.
func (p *Player) Close() error {
	err := p.fallback.Close()
	if p.db != nil {
		if e := release(p.db); err == nil {
			err = e
		}
		p.db = nil
	}
	return err
}
