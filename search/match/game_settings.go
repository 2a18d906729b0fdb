package match

import (
	"fmt"
	"strings"
	"time"
)

// Settings are how the games of a match, a tournament or a self-play run
// are played, not who plays them, as the command line gives them: the game
// flags dchess match, tournament and selfplay share, which Config checks
// and turns into a Config. Its errors name those flags.
type Settings struct {
	Concurrency   int
	Openings      string // an EPD or PGN book (LoadOpenings); "": generated
	OpeningsOrder string // sequential or random
	RandomPlies   int
	Seed          uint64
	TC            string // ParseTimeControl's text
	Depth         int
	Nodes         int64
	MoveTimeMS    int
	MoveTimeout   time.Duration
	TimeMargin    time.Duration
	DrawAdj       string // ParseDrawAdjudication's text
	ResignAdj     string // ParseResignAdjudication's text
	MaxMoves      int
}

// DefaultDepth is the depth of a player that sets no limit of its own
// (depth=, nodes=) when Settings give no time control, depth, nodes or
// move time: fast, and the same games on every run.
const DefaultDepth = 4

// SettingsError is a setting that cannot be played, found before anything
// was done: the command that took it was called wrongly.
type SettingsError struct{ Msg string }

func (e *SettingsError) Error() string { return e.Msg }

func settingsErrorf(format string, args ...any) error {
	return &SettingsError{Msg: fmt.Sprintf(format, args...)}
}

// Config checks the settings and fills the shared part of a match config;
// pairs is how many openings the games need. A setting that is wrong is a
// *SettingsError; an openings file that cannot be read is another error.
func (s Settings) Config(pairs int) (Config, error) {
	cfg := Config{Concurrency: s.Concurrency, RandomPlies: s.RandomPlies, Seed: s.Seed, Depth: s.Depth,
		Nodes: s.Nodes, MoveTime: time.Duration(s.MoveTimeMS) * time.Millisecond, MoveTimeout: s.MoveTimeout,
		TimeMargin: s.TimeMargin, MaxMoves: s.MaxMoves}
	switch {
	case s.Concurrency < 1:
		return cfg, settingsErrorf("--concurrency must be at least 1, got %d", s.Concurrency)
	case s.Depth < 0 || s.Nodes < 0 || s.MoveTimeMS < 0 || s.MaxMoves < 0 || s.RandomPlies < 0:
		return cfg, settingsErrorf("--depth, --nodes, --movetime, --max-moves and --random-plies must not be negative")
	case s.TC != "" && s.MoveTimeMS > 0:
		return cfg, settingsErrorf("--tc and --movetime both set the time per move; give one")
	}
	if s.TC != "" {
		tc, err := ParseTimeControl(s.TC)
		if err != nil {
			return cfg, settingsErrorf("--tc: %v", err)
		}
		cfg.TimeControl = &tc
	}
	if cfg.TimeControl == nil && s.Depth == 0 && s.Nodes == 0 && s.MoveTimeMS == 0 {
		// Not a cap: heuristic:depth=5 against depth=4 plays 5 against 4.
		cfg.DefaultDepth = DefaultDepth
	}
	if s.DrawAdj != "" {
		d, err := ParseDrawAdjudication(s.DrawAdj)
		if err != nil {
			return cfg, settingsErrorf("--draw-adjudication: %v", err)
		}
		cfg.Draw = &d
	}
	if s.ResignAdj != "" {
		r, err := ParseResignAdjudication(s.ResignAdj)
		if err != nil {
			return cfg, settingsErrorf("--resign-adjudication: %v", err)
		}
		cfg.Resign = &r
	}
	var random bool
	switch s.OpeningsOrder {
	case "sequential":
	case "random":
		random = true
	default:
		return cfg, settingsErrorf("--openings-order must be sequential or random, got %q", s.OpeningsOrder)
	}
	if s.Openings != "" {
		list, err := LoadOpenings(s.Openings)
		if err != nil {
			return cfg, err
		}
		cfg.Openings = PickOpenings(list, pairs, random, s.Seed)
	}
	return cfg, nil
}

// ShardRun is the ShardRun of a sharded run of these settings between the
// players a and b.
func (s Settings) ShardRun(a, b string, games int, sprt string) ShardRun {
	return ShardRun{A: a, B: b, Games: games, Openings: s.Openings, OpeningsOrder: s.OpeningsOrder,
		RandomPlies: s.RandomPlies, Seed: s.Seed, TC: s.TC, MoveTimeMS: s.MoveTimeMS, DrawAdj: s.DrawAdj,
		ResignAdj: s.ResignAdj, MaxMoves: s.MaxMoves, SPRT: sprt}
}

// LimitText describes cfg's move limits for messages: "tc 10+0.1",
// "depth 4 unless a player sets its own", "500 nodes, 100ms/move".
func LimitText(cfg Config) string {
	var parts []string
	if cfg.TimeControl != nil {
		parts = append(parts, "tc "+cfg.TimeControl.String())
	}
	if cfg.Depth > 0 {
		parts = append(parts, fmt.Sprintf("depth %d", cfg.Depth))
	}
	if cfg.DefaultDepth > 0 {
		parts = append(parts, fmt.Sprintf("depth %d unless a player sets its own", cfg.DefaultDepth))
	}
	if cfg.Nodes > 0 {
		parts = append(parts, fmt.Sprintf("%d nodes", cfg.Nodes))
	}
	if cfg.MoveTime > 0 {
		parts = append(parts, fmt.Sprintf("%v/move", cfg.MoveTime))
	}
	return strings.Join(parts, ", ")
}
