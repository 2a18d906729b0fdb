package pipeline

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"

	"github.com/dchess/dchess/search"
	"github.com/dchess/dchess/search/board"
	"github.com/dchess/dchess/search/heuristic"
	"github.com/dchess/dchess/search/match"
	"github.com/dchess/dchess/search/player"
)

// Defaults of generated self-play openings.
const (
	DefaultOpeningPlies   = 6
	DefaultBalanceCP      = 80
	DefaultBalanceDepth   = 2
	maxOpeningAttempts    = 10000
	selfPlayEvent         = "dchess selfplay"
	selfPlayOpeningSource = "balanced random %d plies #%d"
)

// BalancedOpening makes opening number index: plies random legal moves from
// the start, kept only when the heuristic, searching balanceDepth plies,
// scores it within ±balanceCP centipawns; otherwise it draws again. Each
// index has its own generator (seed, index), so opening i is the same
// whichever other openings are made, and a shard can make only its own.
func BalancedOpening(ctx context.Context, index, plies, balanceCP, balanceDepth int, seed uint64) (match.Opening, error) {
	rng := rand.New(rand.NewPCG(seed, uint64(index)+1))
	eng := search.New(heuristic.New(), search.Options{HashMB: 1})
	for range maxOpeningAttempts {
		if err := ctx.Err(); err != nil {
			return match.Opening{}, err
		}
		b := board.New()
		for range plies {
			moves := b.LegalMoves()
			if len(moves) == 0 {
				break
			}
			b.Make(moves[rng.IntN(len(moves))])
		}
		if b.Status() != board.NotOver {
			continue
		}
		if balanceCP > 0 {
			eng.NewGame()
			res := eng.Search(ctx, b, search.Limits{Depth: max(balanceDepth, 1)}, nil)
			if res.Mate != 0 || res.Score > balanceCP || res.Score < -balanceCP {
				continue
			}
		}
		return match.Opening{FEN: b.FEN(), Source: fmt.Sprintf(selfPlayOpeningSource, plies, index+1)}, nil
	}
	return match.Opening{}, fmt.Errorf("selfplay: no opening of %d random plies within ±%d cp in %d tries", plies, balanceCP, maxOpeningAttempts)
}

// SelfPlayOptions describe a self-play run.
type SelfPlayOptions struct {
	// Match holds the limits, adjudication, concurrency and seed. Its
	// players, Games, PGN and Event are set by SelfPlay; when its Openings
	// are nil, balanced openings are generated.
	Match match.Config
	// A plays B; B "" is A against itself.
	A, B string
	// Games is the number of games; each opening is played twice with
	// colours swapped.
	Games int
	// Pairs, when set, are the only game pairs played (0-based, increasing):
	// one task's share of a sharded run (internal/jobarray's Spec.Indices over
	// the (Games+1)/2 pairs). Each game keeps the number, opening, colours
	// and seed it has in the whole run (match.Config.GameNumbers), and only
	// the openings of those pairs are generated.
	Pairs []int
	// Generated openings: OpeningPlies random plies, kept within
	// ±BalanceCP centipawns (0: any) by the heuristic at BalanceDepth.
	OpeningPlies, BalanceCP, BalanceDepth int
	// RandomRate is the chance that a move is a uniformly random legal
	// move instead of the player's, within the first RandomPlies plies of
	// each game (0: the whole game).
	RandomRate  float64
	RandomPlies int
	// Output is the PGN file; it appears only when every game is played.
	Output string
	// OnGame is called after every game.
	OnGame func(match.GameResult, *match.Report)
}

// SelfPlayResult summarises a run.
type SelfPlayResult struct {
	Output     string         `json:"output"`
	Games      int            `json:"games"`
	WhiteWins  int            `json:"white_wins"`
	BlackWins  int            `json:"black_wins"`
	Draws      int            `json:"draws"`
	Plies      int            `json:"plies"`
	Terminated map[string]int `json:"terminations"`
	Seconds    float64        `json:"seconds"`
}

// GamesPerSecond is the run's rate.
func (r *SelfPlayResult) GamesPerSecond() float64 { return float64(r.Games) / max(r.Seconds, 1e-9) }

// SelfPlay plays the games through the match runner and writes them as
// PGN (with SetUp/FEN tags and results, which `dchess ingest` and
// `dchess experience build` read). The file is written under a temporary
// name and renamed when the last game is in, so an existing Output is
// always a complete run.
func SelfPlay(ctx context.Context, opts SelfPlayOptions) (*SelfPlayResult, error) {
	start := time.Now()
	if opts.Output == "" {
		return nil, errors.New("selfplay: no output file")
	}
	if opts.B == "" {
		opts.B = opts.A
	}
	cfg := opts.Match
	if opts.Games < 1 {
		return nil, fmt.Errorf("selfplay: games must be at least 1, got %d", opts.Games)
	}
	cfg.Games = opts.Games
	pairs := opts.Pairs
	if pairs == nil {
		pairs = make([]int, (opts.Games+1)/2)
		for i := range pairs {
			pairs[i] = i
		}
	} else {
		cfg.GameNumbers = nil
		for _, p := range pairs {
			for _, n := range []int{2*p + 1, 2*p + 2} {
				if n <= opts.Games {
					cfg.GameNumbers = append(cfg.GameNumbers, n)
				}
			}
		}
		if len(cfg.GameNumbers) == 0 {
			return nil, errors.New("selfplay: no games to play")
		}
	}
	var err error
	if cfg.A, err = variedEntrant(opts.A, opts.RandomRate, opts.RandomPlies, cfg.Seed); err != nil {
		return nil, err
	}
	if cfg.B, err = variedEntrant(opts.B, opts.RandomRate, opts.RandomPlies, cfg.Seed^0x5eed); err != nil {
		return nil, err
	}
	if cfg.Openings == nil {
		plies := opts.OpeningPlies
		if plies == 0 {
			plies = DefaultOpeningPlies
		}
		// Indexed by pair; a shard leaves the pairs it does not play empty,
		// and the match reads only those of the games it plays.
		cfg.Openings = make([]match.Opening, (opts.Games+1)/2)
		for _, p := range pairs {
			if p < 0 || p >= len(cfg.Openings) {
				return nil, fmt.Errorf("selfplay: pair %d is outside the %d pairs of %d games", p, len(cfg.Openings), opts.Games)
			}
			if cfg.Openings[p], err = BalancedOpening(ctx, p, plies, opts.BalanceCP, opts.BalanceDepth, cfg.Seed); err != nil {
				return nil, err
			}
		}
	}
	if cfg.Event == "" {
		cfg.Event = selfPlayEvent
	}

	tmp := filepath.Join(filepath.Dir(opts.Output), ".tmp-"+filepath.Base(opts.Output))
	f, err := os.Create(tmp)
	if err != nil {
		return nil, fmt.Errorf("selfplay: %w", err)
	}
	defer os.Remove(tmp) // after a successful rename there is nothing to remove
	w := bufio.NewWriter(f)
	cfg.PGN = w
	res := &SelfPlayResult{Output: opts.Output, Terminated: map[string]int{}}
	cfg.OnGame = func(g match.GameResult, rep *match.Report) {
		res.Games++
		res.Plies += len(g.Moves)
		res.Terminated[g.Termination]++
		switch g.Result {
		case "1-0":
			res.WhiteWins++
		case "0-1":
			res.BlackWins++
		default:
			res.Draws++
		}
		if opts.OnGame != nil {
			opts.OnGame(g, rep)
		}
	}
	_, runErr := match.Run(ctx, cfg)
	if err := w.Flush(); err != nil && runErr == nil {
		runErr = err
	}
	if err := f.Close(); err != nil && runErr == nil {
		runErr = err
	}
	res.Seconds = time.Since(start).Seconds()
	if runErr != nil {
		return res, fmt.Errorf("selfplay: %w", runErr)
	}
	if err := os.Rename(tmp, opts.Output); err != nil {
		return res, fmt.Errorf("selfplay: %w", err)
	}
	return res, nil
}

// variedEntrant makes a match entrant of spec, wrapped with a random-move
// rate when rate > 0.
func variedEntrant(spec string, rate float64, plies int, seed uint64) (match.Entrant, error) {
	s, err := player.ParseSpec(spec)
	if err != nil {
		return match.Entrant{}, err
	}
	if _, err := player.WithRandomMoves(nil, rate, plies, seed); err != nil {
		return match.Entrant{}, fmt.Errorf("selfplay: %w", err)
	}
	return match.Entrant{Name: s.Name, New: func(ctx context.Context) (player.Player, error) {
		p, err := player.NewFromSpec(ctx, s)
		if err != nil || rate == 0 {
			return p, err
		}
		w, err := player.WithRandomMoves(p, rate, plies, seed)
		if err != nil {
			p.Close()
			return nil, err
		}
		return w, nil
	}}, nil
}
