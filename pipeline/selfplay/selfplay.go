// Package selfplay plays a player against itself (or another) through the
// match runner and writes the games as PGN for `dchess ingest` and
// `dchess experience build`: Run plays a whole run, RunShard one task of a
// sharded one; a killed run continues from its journal. Its openings are
// generated (BalancedOpening) or read from a book (match.LoadOpenings, which
// reads the --openings of `dchess selfplay`, `match` and `tournament`).
// `dchess selfplay` and `pipeline run` call it; it imports nothing of
// package pipeline, which imports it.
package selfplay

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/dchess/dchess/internal/chess/board"
	"github.com/dchess/dchess/internal/jobarray"
	"github.com/dchess/dchess/internal/safefile"
	"github.com/dchess/dchess/search"
	"github.com/dchess/dchess/search/heuristic"
	"github.com/dchess/dchess/search/match"
	"github.com/dchess/dchess/search/player"
)

// Defaults of generated self-play openings.
const (
	DefaultOpeningPlies = 6
	DefaultBalanceCP    = 80
	DefaultBalanceDepth = 2
	maxOpeningAttempts  = 10000
	defaultEvent        = "dchess selfplay"
	openingSource       = "balanced random %d plies #%d"
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
		return match.Opening{FEN: b.FEN(), Source: fmt.Sprintf(openingSource, plies, index+1)}, nil
	}
	return match.Opening{}, fmt.Errorf("selfplay: no opening of %d random plies within ±%d cp in %d tries", plies, balanceCP, maxOpeningAttempts)
}

// Options describe a self-play run.
type Options struct {
	// Match holds the limits, adjudication, concurrency and seed. Its
	// players, Games, PGN and Event are set by Run; when its Openings
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
	// Until then the finished games are kept in Journal(Output), so
	// a run killed or interrupted continues where it stopped when run again
	// with the same settings.
	Output string
	// Restart discards the journal of an interrupted run, whatever its
	// settings, and plays every game again (the CLI's --force).
	Restart bool
	// OnStart, if not nil, is told how many games the run has and how many
	// of them an interrupted run's journal holds, before the first game.
	OnStart func(games, resumed int)
	// OnGame is called after every game this run plays.
	OnGame func(match.GameResult, *match.Report)
	// GameData, if not nil, makes what is journalled with each game beside
	// its PGN (match.Journal.AddData): a game is in the journal with its
	// data or not at all. It is part of the journal's settings, so a
	// journal of games without data is not continued with it.
	GameData func(match.GameResult) (json.RawMessage, error)
	// Finish, if not nil, is called when every game is in the journal and
	// Output is written, before the journal is removed: with the journal
	// and the run's game numbers, in order, to read the games' data. When it
	// fails the journal stays, and a rerun calls it again without playing.
	Finish func(j *match.Journal, numbers []int) error
}

// Result summarises a run.
type Result struct {
	Output string `json:"output"`
	// Games are the games in Output (or, when interrupted, journalled so
	// far), the Resumed ones an interrupted run had played included.
	Games      int            `json:"games"`
	Resumed    int            `json:"resumed"`
	WhiteWins  int            `json:"white_wins"`
	BlackWins  int            `json:"black_wins"`
	Draws      int            `json:"draws"`
	Plies      int            `json:"plies"`
	Terminated map[string]int `json:"terminations"`
	Seconds    float64        `json:"seconds"`
}

// GamesPerSecond is the run's rate over the games it played itself.
func (r *Result) GamesPerSecond() float64 {
	return float64(r.Games-r.Resumed) / max(r.Seconds, 1e-9)
}

// Journal is where a self-play run writing output keeps its
// finished games until the last one is in: a hidden file beside output.
func Journal(output string) string { return match.JournalBeside(output) }

// Run plays the games through the match runner and writes them as
// PGN (with SetUp/FEN tags and results, which `dchess ingest` and
// `dchess experience build` read), in game order whatever the concurrency.
// Every finished game goes to a journal (match.Journal) first, so a run
// that is killed loses only the games in progress: a rerun with the same
// settings plays only the games the journal lacks, and one with other
// settings is refused unless Restart. The file is written from the journal
// under a temporary name and renamed when the last game is in, so an
// existing Output is always a complete run, the same as an uninterrupted
// run's; then the journal is removed.
func Run(ctx context.Context, opts Options) (*Result, error) {
	start := time.Now()
	if opts.Output == "" {
		return nil, errors.New("selfplay: no output file")
	}
	if opts.B == "" {
		opts.B = opts.A
	}
	cfg := opts.Match
	if opts.Games < 1 || opts.Games > match.MaxGames {
		return nil, fmt.Errorf("selfplay: games must be in 1..%d, got %d", match.MaxGames, opts.Games)
	}
	cfg.Games = opts.Games
	pairs := opts.Pairs
	if pairs == nil {
		pairs = make([]int, (opts.Games+1)/2)
		for i := range pairs {
			pairs[i] = i
		}
	}
	var numbers []int
	for _, p := range pairs {
		for _, n := range []int{2*p + 1, 2*p + 2} {
			if n <= opts.Games {
				numbers = append(numbers, n)
			}
		}
	}
	if len(numbers) == 0 {
		return nil, errors.New("selfplay: no games to play")
	}
	var err error
	if cfg.A, err = variedEntrant(ctx, opts.A, opts.RandomRate, opts.RandomPlies, cfg.Seed); err != nil {
		return nil, err
	}
	if cfg.B, err = variedEntrant(ctx, opts.B, opts.RandomRate, opts.RandomPlies, cfg.Seed^0x5eed); err != nil {
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
		cfg.Event = defaultEvent
	}

	hash, err := settingsHash(ctx, opts, cfg, numbers)
	if err != nil {
		return nil, err
	}
	j, err := match.OpenJournal(Journal(opts.Output), hash, opts.Restart)
	if errors.Is(err, match.ErrJournalSettings) {
		return nil, fmt.Errorf("selfplay: cannot continue: %w, from an interrupted run; rerun with its settings to continue, or delete it or use --force to start over", err)
	}
	if err != nil {
		return nil, fmt.Errorf("selfplay: %w", err)
	}
	defer j.Close()
	res := &Result{Output: opts.Output}
	remaining := j.Remaining(numbers)
	if opts.OnStart != nil {
		opts.OnStart(len(numbers), len(numbers)-len(remaining))
	}
	// Self-play has no test to stop on, and its file is written from the
	// journal.
	cfg.GameNumbers, cfg.PGN, cfg.SPRT = remaining, nil, nil
	tc := "-"
	if cfg.TimeControl != nil {
		tc = cfg.TimeControl.String()
	}
	// A game that cannot be journalled would be lost on a kill: stop.
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	var writeErr error
	cfg.OnGame = func(g match.GameResult, rep *match.Report) {
		if writeErr != nil {
			return
		}
		var data json.RawMessage
		if opts.GameData != nil {
			if data, writeErr = opts.GameData(g); writeErr != nil {
				stop()
				return
			}
		}
		if writeErr = j.AddData(rep.A, rep.B, g, cfg.Event, tc, data); writeErr != nil {
			stop()
			return
		}
		if opts.OnGame != nil {
			opts.OnGame(g, rep)
		}
	}
	_, runErr := match.Run(runCtx, cfg)
	if writeErr != nil {
		runErr = fmt.Errorf("journal %s: %w", j.Path(), writeErr)
	}
	res.tally(j, numbers, len(numbers)-len(remaining))
	if runErr == nil {
		runErr = writePGN(opts.Output, j, numbers)
	}
	if runErr == nil && opts.Finish != nil {
		runErr = opts.Finish(j, numbers)
	}
	res.Seconds = time.Since(start).Seconds()
	if runErr != nil {
		return res, fmt.Errorf("selfplay: %w", runErr)
	}
	if err := j.Remove(); err != nil {
		return res, fmt.Errorf("selfplay: %w", err)
	}
	return res, nil
}

// tally counts the journalled games of numbers into r.
func (r *Result) tally(j *match.Journal, numbers []int, resumed int) {
	r.Games, r.Resumed, r.Plies, r.WhiteWins, r.BlackWins, r.Draws = 0, resumed, 0, 0, 0, 0
	r.Terminated = map[string]int{}
	for _, n := range numbers {
		e, ok := j.Game(n)
		if !ok {
			continue
		}
		r.Games++
		r.Plies += e.Plies
		r.Terminated[e.Game.Termination]++
		switch e.Game.Result {
		case "1-0":
			r.WhiteWins++
		case "0-1":
			r.BlackWins++
		default:
			r.Draws++
		}
	}
}

// writePGN writes the games of numbers from the journal to output, in game
// order, through safefile: synced and renamed whole, as the journal goes
// next.
func writePGN(output string, j *match.Journal, numbers []int) error {
	f, err := safefile.Create(output)
	if err != nil {
		return err
	}
	defer f.Discard()
	w := bufio.NewWriter(f)
	for _, n := range numbers {
		pgn, err := j.PGN(n)
		if err != nil {
			return err
		}
		if _, err := w.WriteString(pgn); err != nil {
			return err
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return f.Commit()
}

// settingsHash keys a run's journal: everything its games depend
// on (players with their files' hashes, the openings played, limits,
// adjudication, seeds, random moves), so a rerun continues only the same
// games. The concurrency is left out: it does not change the games.
func settingsHash(ctx context.Context, opts Options, cfg match.Config, numbers []int) (string, error) {
	files, _, err := match.SettingsFiles(ctx, "", opts.A, opts.B)
	if err != nil {
		return "", fmt.Errorf("selfplay: %w", err)
	}
	for role, spec := range map[string]string{"player a": opts.A, "player b": opts.B} {
		if learns(spec) {
			// Its file after some games is not the one it started with; a
			// rerun continues with the file as it is (its path is in the spec).
			delete(files, role)
		}
	}
	settings := match.GameSettings(cfg)
	maps.Copy(settings, map[string]any{"kind": "selfplay", "a": opts.A, "b": opts.B, "games": opts.Games, "numbers": numbers,
		"random_rate": opts.RandomRate, "random_rate_plies": opts.RandomPlies, "event": cfg.Event, "files_sha256": files})
	if opts.GameData != nil {
		// Added only when set, so plain self-play keeps its hash.
		settings["game_data"] = true
	}
	return jobarray.Hash(settings), nil
}

// learns says whether spec is a player that changes its own file as it
// plays: an experience player with learn=true.
func learns(spec string) bool {
	s, err := player.ParseSpec(spec)
	if err != nil || s.Family != "experience" {
		return false
	}
	switch strings.ToLower(s.Get("learn", "false")) {
	case "true", "1", "yes":
		return true
	}
	return false
}

// variedEntrant makes a match entrant of spec, wrapped with a random-move
// rate when rate > 0. A bare model name is resolved once, so every game
// plays the same weights.
func variedEntrant(ctx context.Context, spec string, rate float64, plies int, seed uint64) (match.Entrant, error) {
	s, err := player.ParseSpec(spec)
	if err != nil {
		return match.Entrant{}, err
	}
	if s, err = player.ResolveWeights(ctx, s); err != nil {
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
