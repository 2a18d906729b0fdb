// Package match plays engine matches: game pairs from shared openings with
// colours swapped, under depth, node, move-time or clock limits, with
// adjudication, fault handling (illegal moves, crashes, stalls, time
// losses), SPRT early stopping, PGN output and a cutechess-style report.
package match

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/dchess/dchess/search/elo"
	"github.com/dchess/dchess/search/player"
)

// Entrant is one side of a match. New is called once per concurrent game
// slot, and again to replace a player that crashed or stalled.
type Entrant struct {
	// Name is the display name; "" takes the first instance's Name().
	Name string
	New  func(ctx context.Context) (player.Player, error)
}

// SpecEntrant makes an entrant from a player SPEC.
func SpecEntrant(spec string) (Entrant, error) {
	s, err := player.ParseSpec(spec)
	if err != nil {
		return Entrant{}, err
	}
	return Entrant{New: func(ctx context.Context) (player.Player, error) { return player.NewFromSpec(ctx, s) }}, nil
}

// CheckedEntrant makes an entrant of s after making its player once, so a
// spec that cannot play (weights missing or unreadable, an engine that
// does not start, a setting's bad value) fails before anything is printed
// or played. A bare model name is resolved first (player.ResolveWeights),
// so every game plays the same file under the name as typed.
func CheckedEntrant(ctx context.Context, s player.Spec) (Entrant, error) {
	s, err := player.ResolveWeights(ctx, s)
	if err != nil {
		return Entrant{}, err
	}
	if err := player.Try(ctx, s); err != nil {
		return Entrant{}, err
	}
	return Entrant{Name: s.Name, New: func(ctx context.Context) (player.Player, error) { return player.NewFromSpec(ctx, s) }}, nil
}

// Config describes a match. Zero values take the defaults noted.
type Config struct {
	A, B Entrant
	// Games is the number of games; an odd last game has no partner and is
	// left out of the pentanomial counts. Default 2.
	Games       int
	Concurrency int // games played at once, each with its own players; default 1
	// Openings are played in order, each twice with colours swapped (A is
	// White in odd games); a short list wraps around. Nil generates
	// RandomPlies random legal plies per opening from Seed.
	Openings    []Opening
	RandomPlies int
	Seed        uint64

	// Limits of every move; at least one of them, or DefaultDepth, must be
	// set. They cap a player's own limits (a SPEC's depth=, nodes=).
	TimeControl *TimeControl
	Depth       int
	Nodes       int64
	MoveTime    time.Duration
	// DefaultDepth is the depth of a move that nothing else bounds: none
	// of the limits above and none of the player's own, so a SPEC's
	// depth= or nodes= is played as given (player.Limits.DefaultDepth).
	DefaultDepth int
	// TimeMargin is how far past its clock a side may go before losing on
	// time (pipes and scheduling cost a little). Default 50 ms.
	TimeMargin time.Duration
	// MoveTimeout is the most a move may take without a clock before the
	// player is judged stalled. Default 60 s, or twice MoveTime plus 1 s.
	MoveTimeout time.Duration

	Draw     *DrawAdjudication
	Resign   *ResignAdjudication
	MaxMoves int // adjudicate a draw after this many full moves; 0 is no limit

	// SPRT, when set, stops the match when a bound is crossed.
	SPRT *elo.SPRT

	Event string // PGN Event tag; default "dchess match"
	// PGNTimes writes when each game started and ended, and how long it
	// took, in its PGN: the GameStartTime, GameEndTime and GameDuration
	// tags of cutechess-cli. Off, a game's PGN depends on the seed and the
	// limits alone (but for its Date and its moves' times).
	PGNTimes bool
	// PGN receives every counted game, in game order.
	PGN io.Writer
	// OnGame is called after every counted game with the report so far,
	// from one goroutine at a time.
	OnGame func(GameResult, *Report)

	// GameNumbers, when not nil, are the only games played: 1-based numbers
	// of the whole match of Games games, in increasing order, as one task
	// of a sharded match plays them (see RunShard). Each keeps the opening,
	// colours and seed it has in the whole match.
	GameNumbers []int

	// resumed are games of this match that an interrupted run journalled
	// (playJournalled): counted first, in the report and its SPRT, and
	// not among GameNumbers.
	resumed []JournalEntry
}

// defaultEvent is the PGN Event tag of a match that names none.
const defaultEvent = "dchess match"

// MaxGames bounds the games of one run (a match, a self-play run, a
// tournament's pairing), checked before anything is allocated: a run keeps
// a few words a game, and no machine plays 10^7 games in one process. A
// job array's tasks share the bound over the whole run.
const MaxGames = 10_000_000

func (c *Config) fillDefaults() error {
	if c.A.New == nil || c.B.New == nil {
		return errors.New("match: both players are needed")
	}
	if c.Games == 0 {
		c.Games = 2
	}
	if c.Games < 0 || c.Games > MaxGames {
		return fmt.Errorf("match: games must be in 1..%d, got %d", MaxGames, c.Games)
	}
	if c.GameNumbers == nil {
		c.GameNumbers = make([]int, c.Games)
		for i := range c.GameNumbers {
			c.GameNumbers[i] = i + 1
		}
	}
	for i, n := range c.GameNumbers {
		if n < 1 || n > c.Games || (i > 0 && n <= c.GameNumbers[i-1]) {
			return fmt.Errorf("match: game numbers must increase within 1..%d, got %d after %v", c.Games, n, c.GameNumbers[:i])
		}
	}
	if c.Concurrency <= 0 {
		c.Concurrency = 1
	}
	// At least one slot, so the first player instances are always closed.
	c.Concurrency = max(min(c.Concurrency, len(c.GameNumbers)), 1)
	if c.TimeControl == nil && c.Depth <= 0 && c.Nodes <= 0 && c.MoveTime <= 0 && c.DefaultDepth <= 0 {
		return errors.New("match: no limit: give a time control, depth, nodes, move time or default depth")
	}
	if c.TimeMargin <= 0 {
		c.TimeMargin = 50 * time.Millisecond
	}
	if c.MoveTimeout <= 0 {
		c.MoveTimeout = 60 * time.Second
		if c.MoveTime > 0 {
			c.MoveTimeout = 2*c.MoveTime + time.Second
		}
	}
	if c.Event == "" {
		c.Event = defaultEvent
	}
	if c.SPRT != nil {
		if err := c.SPRT.Validate(); err != nil {
			return err
		}
	}
	return nil
}

// timed says the players move on a clock or a fixed move time.
func (c *Config) timed() bool { return c.TimeControl != nil || c.MoveTime > 0 }

// Run plays the match and returns its report. When ctx ends it returns the
// report of the games finished so far with ctx's error.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	if err := cfg.fillDefaults(); err != nil {
		return nil, err
	}
	pairs := (cfg.Games + 1) / 2
	openings := cfg.Openings
	if len(openings) == 0 {
		openings = GenerateOpenings(pairs, cfg.RandomPlies, cfg.Seed)
	}

	// The first instances are made here, so a bad spec or a missing engine
	// fails before any game, and they give the display names.
	firstA, err := cfg.A.New(ctx)
	if err != nil {
		return nil, err
	}
	firstB, err := cfg.B.New(ctx)
	if err != nil {
		firstA.Close()
		return nil, err
	}
	nameA, nameB := cfg.A.Name, cfg.B.Name
	if nameA == "" {
		nameA = firstA.Name()
	}
	if nameB == "" {
		nameB = firstB.Name()
	}
	if nameA == nameB {
		nameB += " (2)"
	}

	rep := newReport(nameA, nameB, cfg.SPRT)
	for _, e := range cfg.resumed {
		rep.addJournalled(e)
	}
	numbers := cfg.GameNumbers
	if rep.SPRT != nil && rep.SPRT.Result != elo.Continue {
		// The journalled games decided the test: nothing is left to play.
		rep.StoppedEarly, numbers = "sprt", nil
	}
	rep.toCount = rep.Games + len(numbers)

	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	jobs := make(chan int)
	results := make(chan GameResult)
	errs := make(chan error, cfg.Concurrency)
	var wg sync.WaitGroup
	for w := range cfg.Concurrency {
		wk := &worker{cfg: &cfg, openings: openings, a: &seat{name: nameA, side: "a"}, b: &seat{name: nameB, side: "b"}}
		if w == 0 {
			wk.a.p, wk.b.p = firstA, firstB
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer wk.close()
			for n := range jobs {
				res, err := wk.play(runCtx, n)
				if errors.Is(err, errAborted) {
					continue
				}
				if err != nil {
					errs <- err
					cancel()
					return
				}
				select {
				case results <- res:
				case <-runCtx.Done():
				}
			}
		}()
	}
	go func() {
		defer close(jobs)
		for _, number := range numbers {
			select {
			case jobs <- number - 1:
			case <-runCtx.Done():
				return
			}
		}
	}()
	go func() {
		wg.Wait()
		close(results)
	}()

	pgn := &pgnSink{w: cfg.PGN, cfg: &cfg, pending: map[int]GameResult{}, order: cfg.GameNumbers}
	var pgnErr error
	for res := range results {
		if runCtx.Err() != nil {
			continue // decided (SPRT) or interrupted: later games do not count
		}
		rep.add(res)
		if err := pgn.add(res); err != nil && pgnErr == nil {
			pgnErr = err
			cancel()
		}
		if cfg.OnGame != nil {
			cfg.OnGame(res, rep)
		}
		if rep.SPRT != nil && rep.SPRT.Result != elo.Continue {
			rep.StoppedEarly = "sprt"
			cancel()
		}
	}
	if err := pgn.flush(); err != nil && pgnErr == nil {
		pgnErr = err
	}
	select {
	case err := <-errs:
		return rep, err
	default:
	}
	if pgnErr != nil {
		return rep, fmt.Errorf("writing PGN: %w", pgnErr)
	}
	if ctx.Err() != nil {
		return rep, ctx.Err()
	}
	return rep, nil
}

// worker plays games one after another with its own pair of players.
type worker struct {
	cfg      *Config
	openings []Opening
	a, b     *seat
}

func (w *worker) play(ctx context.Context, n int) (GameResult, error) {
	for _, s := range []*seat{w.a, w.b} {
		if s.p != nil && !s.broken {
			continue
		}
		verb := "starting"
		if s.p != nil {
			// A crashed or stalled player is replaced: an engine process is
			// restarted, a hung goroutine left behind.
			go s.p.Close()
			verb = "restarting"
		}
		entrant := w.cfg.A
		if s.side == "b" {
			entrant = w.cfg.B
		}
		p, err := entrant.New(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return GameResult{}, errAborted
			}
			return GameResult{}, fmt.Errorf("%s %s: %w", verb, s.name, err)
		}
		s.p, s.broken = p, false
	}
	g := &game{cfg: w.cfg, number: n + 1, opening: w.openings[(n/2)%len(w.openings)], aIsWhite: n%2 == 0,
		seed: splitmix(w.cfg.Seed ^ splitmix(uint64(n)+1))}
	g.seats = [2]*seat{w.a, w.b}
	if !g.aIsWhite {
		g.seats = [2]*seat{w.b, w.a}
	}
	res, err := g.play(ctx)
	res.End, res.PGNTimes = time.Now(), w.cfg.PGNTimes
	if err != nil {
		return res, err
	}
	return res, w.notify(ctx, res)
}

// notify tells players that learn from their games (player.GameObserver)
// how the game ended. A finished game is recorded even when the match is
// being stopped, so a learner never misses a game it played to the end.
func (w *worker) notify(ctx context.Context, res GameResult) error {
	moves := make([]string, len(res.Moves))
	for i, m := range res.Moves {
		moves[i] = m.UCI
	}
	game := player.FinishedGame{Position: player.Position{StartFEN: res.Opening.FEN, Moves: moves},
		Result: res.Result, Termination: res.Termination}
	for _, s := range []*seat{w.a, w.b} {
		if s.broken {
			continue
		}
		if err := player.NotifyGameOver(context.WithoutCancel(ctx), s.p, game); err != nil {
			return fmt.Errorf("%s could not record game %d: %w", s.name, res.Number, err)
		}
	}
	return nil
}

func (w *worker) close() {
	for _, s := range []*seat{w.a, w.b} {
		if s.p == nil {
			continue
		}
		if s.broken {
			go s.p.Close()
		} else {
			s.p.Close()
		}
	}
}

// splitmix is SplitMix64's finaliser: it turns nearby numbers (game
// indices) into unrelated seeds.
func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}
