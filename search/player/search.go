package player

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/dchess/dchess/internal/chess/board"
	"github.com/dchess/dchess/search"
	"github.com/dchess/dchess/search/heuristic"
)

// DefaultDepth is how deep a searching player looks when neither its spec
// nor the caller's limits bound the search.
const DefaultDepth = 4

// SearchOptions configure a searching player. Depth and Nodes, when set,
// cap every search on top of the caller's limits.
type SearchOptions struct {
	Depth     int
	Nodes     int64
	HashMB    int
	Algorithm search.Algorithm
	// Threads is how many threads each alpha-beta search runs on (Lazy
	// SMP, sharing one transposition table); 0 means one. A comparison
	// search (siamese) runs on one whatever it says.
	Threads int
	// Proposer, when not nil, orders the root moves of the alpha-beta
	// (search.Options.Proposer): proposer= (ProposerFromSpec).
	Proposer search.MoveProposer
}

// SearchSettings are the spec settings SearchOptionsFromSpec reads; model
// families that add their own settings list these too in CheckSettings.
var SearchSettings = []string{"depth", "nodes", "hash", "search", "threads"}

// AlphaBetaSettings are the settings of a player whose alpha-beta searches
// with an evaluator (heuristic and the evaluation families):
// SearchSettings and proposer=. A comparison search takes SearchSettings.
var AlphaBetaSettings = append(slices.Clone(SearchSettings), ProposerSetting)

// SearchOptionsFromSpec reads depth=, nodes=, hash= (MB),
// search=alphabeta|minimax and threads= (default 1, so a player takes one
// core unless asked). It does not check for other settings.
func SearchOptionsFromSpec(spec Spec) (SearchOptions, error) {
	var opts SearchOptions
	depth, err := spec.Int("depth", 0)
	if err != nil {
		return opts, err
	}
	if depth >= search.MaxPly {
		return opts, SpecErrorf("player %s: depth=%d is above the maximum %d", spec.Family, depth, search.MaxPly-1)
	}
	nodes, err := spec.Int("nodes", 0)
	if err != nil {
		return opts, err
	}
	hash, err := spec.Int("hash", 0)
	if err != nil {
		return opts, err
	}
	if hash > 1<<16 {
		return opts, SpecErrorf("player %s: hash=%d MB is too large", spec.Family, hash)
	}
	threads, err := spec.Int("threads", 1)
	if err != nil {
		return opts, err
	}
	if threads < 1 || threads > search.MaxThreads {
		return opts, SpecErrorf("player %s: threads=%d is not between 1 and %d", spec.Family, threads, search.MaxThreads)
	}
	opts.Depth, opts.Nodes, opts.HashMB, opts.Threads = int(depth), nodes, int(hash), int(threads)
	opts.Algorithm, err = searchAlgorithm(spec)
	return opts, err
}

// searchAlgorithm reads search=alphabeta|minimax.
func searchAlgorithm(spec Spec) (search.Algorithm, error) {
	switch algo := strings.ToLower(spec.Get("search", "alphabeta")); algo {
	case "alphabeta", "alpha-beta", "ab":
		return search.AlphaBeta, nil
	case "minimax":
		return search.Minimax, nil
	default:
		return 0, SpecErrorf("player %s: search=%q is not alphabeta or minimax", spec.Family, algo)
	}
}

func newHeuristicFromSpec(ctx context.Context, spec Spec) (Player, error) {
	if err := spec.CheckSettings(AlphaBetaSettings...); err != nil {
		return nil, err
	}
	if spec.Path != "" {
		return nil, SpecErrorf("player heuristic takes no path (heuristic or heuristic:depth=N)")
	}
	opts, err := SearchOptionsFromSpec(spec)
	if err != nil {
		return nil, err
	}
	if opts.Proposer, err = ProposerFromSpec(ctx, spec); err != nil {
		return nil, err
	}
	return SearchPlayer(spec.DisplayName(), heuristic.New(), opts), nil
}

// Engine is the search a Searcher drives: search.Engine over an evaluator,
// or search.CompareEngine over a comparator (DeepChess).
type Engine interface {
	Search(ctx context.Context, b *board.Board, lim search.Limits, onInfo func(search.Info)) search.Result
	NewGame()
}

// Searcher is a player that plays the best move of a search: heuristic,
// every model family that provides an evaluator, and the siamese player.
type Searcher struct {
	name         string
	eval         search.Evaluator // nil for a comparison search
	opts         SearchOptions
	engine       Engine
	defaultDepth int
	// proposer is opts.Proposer as the engine asks it, nil without one.
	proposer *failureRecorder
	game     gameBoard
}

// SearchPlayer returns a player that searches with eval. Each player owns
// its engine (and transposition table), so give each goroutine its own;
// with opts.Threads above one the engine clones eval for its other threads.
// opts.Proposer, when set, orders the root moves; a ranking that fails
// fails the move.
func SearchPlayer(name string, eval search.Evaluator, opts SearchOptions) *Searcher {
	p := &Searcher{name: name, eval: eval, opts: opts, defaultDepth: DefaultDepth}
	engineOpts := search.Options{HashMB: opts.HashMB, Algorithm: opts.Algorithm, Threads: opts.Threads}
	if opts.Proposer != nil {
		p.proposer = &failureRecorder{MoveProposer: opts.Proposer}
		engineOpts.Proposer = p.proposer
	}
	p.engine = search.New(eval, engineOpts)
	return p
}

// ComparePlayer returns a player over a comparison search, which has no
// evaluation: its moves carry a score only for a forced mate. defaultDepth
// bounds a search that nothing else bounds.
func ComparePlayer(name string, engine *search.CompareEngine, opts SearchOptions, defaultDepth int) *Searcher {
	return &Searcher{name: name, opts: opts, engine: engine, defaultDepth: defaultDepth}
}

func (p *Searcher) Name() string { return p.name }

// Evaluator returns the evaluator the player searches with (nil for a
// comparison search).
func (p *Searcher) Evaluator() search.Evaluator { return p.eval }

// Threads is how many threads the player's searches run on: threads=,
// or fewer when its search cannot use them (see SearchOptions.Threads).
func (p *Searcher) Threads() int {
	if t, ok := p.engine.(interface{ Threads() int }); ok {
		return t.Threads()
	}
	return 1
}

// ReportsLines says whether the player reports Limits.MultiPV lines: an
// alpha-beta or minimax search over an evaluator does, a comparison
// search, which ranks positions without scoring each root move, does not.
func (p *Searcher) ReportsLines() bool {
	_, ok := p.engine.(*search.Engine)
	return ok
}

func (p *Searcher) NewGame(context.Context) error {
	p.engine.NewGame()
	return nil
}

// Limits returns the search limits a move is played with: the caller's,
// capped by the player's own depth and node settings, or the caller's
// default depth (else the player's) when nothing bounds the search.
func (p *Searcher) limits(lim Limits) search.Limits {
	out := search.Limits{Depth: lim.Depth, Nodes: lim.Nodes, MoveTime: lim.MoveTime,
		WTime: lim.WTime, BTime: lim.BTime, WInc: lim.WInc, BInc: lim.BInc,
		MovesToGo: lim.MovesToGo, Infinite: lim.Infinite}
	if p.opts.Depth > 0 && (out.Depth == 0 || p.opts.Depth < out.Depth) {
		out.Depth = p.opts.Depth
	}
	if p.opts.Nodes > 0 && (out.Nodes == 0 || p.opts.Nodes < out.Nodes) {
		out.Nodes = p.opts.Nodes
	}
	if !hasLimit(lim) && out.Depth == 0 && out.Nodes == 0 {
		out.Depth = cmp.Or(lim.DefaultDepth, p.defaultDepth)
	}
	return out
}

func (p *Searcher) Move(ctx context.Context, pos Position, lim Limits) (MoveInfo, error) {
	b, err := p.game.board(pos)
	if err != nil {
		return MoveInfo{}, err
	}
	var onInfo func(search.Info)
	if lim.OnInfo != nil {
		onInfo = func(in search.Info) {
			lim.OnInfo(Info{Depth: in.Depth, SelDepth: in.SelDepth, Score: in.Score, Mate: in.Mate,
				Nodes: in.Nodes, Time: in.Time, PV: uciMoves(in.PV), HashFull: in.HashFull, MultiPV: in.MultiPV})
		}
	}
	slim := p.limits(lim)
	slim.SearchMoves = allowedMoves(b, lim.SearchMoves)
	slim.MoveOverhead = lim.MoveOverhead
	if p.proposer != nil {
		p.proposer.err = nil
	}
	slim.MultiPV = lim.MultiPV
	res := p.engine.Search(ctx, b, slim, onInfo)
	if p.proposer != nil && p.proposer.err != nil {
		return MoveInfo{}, fmt.Errorf("%s: proposer: %w", p.name, p.proposer.err)
	}
	if res.Best == board.NullMove {
		return MoveInfo{}, errors.New("no legal move")
	}
	// Every search scores its root once an iteration finished; a
	// comparison search's score is its comparator's verdict put on the
	// centipawn scale (search.CompareEngine.Search).
	hasScore := res.Depth > 0
	return MoveInfo{Move: board.UCI(res.Best), HasScore: hasScore, Score: res.Score, Mate: res.Mate,
		Depth: res.Depth, Nodes: res.Nodes, PV: uciMoves(res.PV)}, nil
}

func (p *Searcher) Close() error { return nil }

// allowedMoves returns the legal moves among ucis (Limits.SearchMoves);
// nil when ucis is empty or none of them is legal, which allows every move.
func allowedMoves(b *board.Board, ucis []string) []board.Move {
	var moves []board.Move
	for _, s := range ucis {
		if m, err := b.ParseUCI(s); err == nil {
			moves = append(moves, m)
		}
	}
	return moves
}

// restrict keeps the moves of moves that are among allowed, all of them
// when allowed is empty.
func restrict(moves, allowed []board.Move) []board.Move {
	if len(allowed) == 0 {
		return moves
	}
	var kept []board.Move
	for _, m := range moves {
		if slices.Contains(allowed, m) {
			kept = append(kept, m)
		}
	}
	return kept
}

// Proposer plays the top-ranked legal move of a MoveProposer (a policy
// model) without searching.
type Proposer struct {
	name     string
	proposer search.MoveProposer
	// AvoidRepetition plays the best-ranked move that does not bring back
	// a position of the game (since its last capture or pawn move), the
	// top one only when every legal move does. A model that reads the
	// position alone cannot see that it is walking in a circle: without
	// this, most games between such players end in threefold repetition.
	AvoidRepetition bool
	game            gameBoard
}

// ProposerSettings are the settings ProposerPlayer reads, which every
// proposer family accepts besides its own.
var ProposerSettings = []string{"repetition"}

// Values of repetition=.
const (
	RepetitionAllow = "allow"
	RepetitionAvoid = "avoid"
)

// ProposerPlayer returns a player that plays proposer's best move, with
// spec's repetition= (allow, the default, or avoid).
func ProposerPlayer(spec Spec, proposer search.MoveProposer) (*Proposer, error) {
	p := &Proposer{name: spec.DisplayName(), proposer: proposer}
	switch r := spec.Get("repetition", RepetitionAllow); r {
	case RepetitionAllow:
	case RepetitionAvoid:
		p.AvoidRepetition = true
	default:
		return nil, SpecErrorf("player %s: repetition=%q must be %s or %s", spec.Family, r, RepetitionAllow, RepetitionAvoid)
	}
	return p, nil
}

func (p *Proposer) Name() string                  { return p.name }
func (p *Proposer) NewGame(context.Context) error { return nil }
func (p *Proposer) Close() error                  { return nil }

func (p *Proposer) Move(_ context.Context, pos Position, lim Limits) (MoveInfo, error) {
	b, err := p.game.board(pos)
	if err != nil {
		return MoveInfo{}, err
	}
	moves, scores, err := p.proposer.Propose(b)
	if err != nil {
		return MoveInfo{}, err
	}
	if len(moves) != len(scores) {
		return MoveInfo{}, fmt.Errorf("%s proposed %d moves with %d scores", p.name, len(moves), len(scores))
	}
	// Check legality here rather than trust the model: a proposal outside
	// the legal moves would otherwise surface as an illegal-move loss.
	legal := map[board.Move]bool{}
	for _, m := range restrict(b.LegalMoves(), allowedMoves(b, lim.SearchMoves)) {
		legal[m] = true
	}
	var ranked []int
	for i, m := range moves {
		if legal[m] {
			ranked = append(ranked, i)
		}
	}
	if len(ranked) == 0 {
		return MoveInfo{}, fmt.Errorf("%s proposed no legal move", p.name)
	}
	sort.SliceStable(ranked, func(i, j int) bool { return scores[ranked[i]] > scores[ranked[j]] })
	best := ranked[0]
	if p.AvoidRepetition {
		for _, i := range ranked {
			b.Make(moves[i])
			repeated := b.IsRepeated()
			b.Unmake()
			if !repeated {
				best = i
				break
			}
		}
	}
	return MoveInfo{Move: board.UCI(moves[best]), PV: []string{board.UCI(moves[best])}}, nil
}
