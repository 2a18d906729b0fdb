package match

import (
	"context"
	"fmt"
	"os"
	"os/exec"

	"github.com/dchess/dchess/internal/jobarray"
	"github.com/dchess/dchess/search/player"
)

// ShardRun is how a sharded run was asked for: the players' SPECs and the
// settings its games depend on, as the user gave them.
type ShardRun struct {
	A, B               string
	Games              int
	Openings           string // a file; it counts by its SHA-256
	OpeningsOrder      string
	RandomPlies        int
	Seed               uint64
	TC                 string
	MoveTimeMS         int
	DrawAdj, ResignAdj string
	MaxMoves           int
	SPRT               string
}

// ShardSettings are what a sharded run's games depend on, the same for
// every one of its tasks: their hash seeds the assignment of pairs and
// tells the merge which tasks belong together. cfg is the run's config,
// for the limits as they were filled in. Files (openings, weights, engine
// binaries) count by their SHA-256; their paths are only recorded in the
// inputs. A bare model name counts as the weights player.ResolveWeights
// finds for it.
func ShardSettings(ctx context.Context, run ShardRun, cfg Config, tasks int) (map[string]any, []jobarray.Input, error) {
	hashes, inputs, err := SettingsFiles(ctx, run.Openings, run.A, run.B)
	if err != nil {
		return nil, nil, err
	}
	settings := map[string]any{
		"a": run.A, "b": run.B, "games": run.Games, "tasks": tasks,
		"tc": run.TC, "depth": cfg.Depth, "nodes": cfg.Nodes, "movetime_ms": run.MoveTimeMS,
		"move_timeout": cfg.MoveTimeout.String(), "time_margin": cfg.TimeMargin.String(),
		"draw_adjudication": run.DrawAdj, "resign_adjudication": run.ResignAdj, "max_moves": run.MaxMoves,
		"openings_order": run.OpeningsOrder, "random_plies": run.RandomPlies, "seed": run.Seed,
		"sprt": run.SPRT, "files_sha256": hashes,
	}
	addDefaultDepth(settings, cfg)
	return settings, inputs, nil
}

// SettingsFiles hash the files a run's games depend on: the openings file
// (when not "") and the players' weights or engine binaries, by role
// ("openings", "player a", "player b"). A bare model name counts as the
// weights player.ResolveWeights finds for it.
func SettingsFiles(ctx context.Context, openings, a, b string) (map[string]string, []jobarray.Input, error) {
	var inputs []jobarray.Input
	hashes := map[string]string{}
	add := func(role, path string) error {
		sum, err := jobarray.FileSHA256(path)
		if err != nil {
			return fmt.Errorf("%s: %w", role, err)
		}
		inputs = append(inputs, jobarray.Input{Path: path, SHA256: sum})
		hashes[role] = sum
		return nil
	}
	if openings != "" {
		if err := add("openings", openings); err != nil {
			return nil, nil, err
		}
	}
	for _, side := range [][2]string{{"a", a}, {"b", b}} {
		role, raw := side[0], side[1]
		p, err := player.ParseSpec(raw)
		if err != nil {
			return nil, nil, fmt.Errorf("player %s: %w", role, err)
		}
		path := p.Path
		switch {
		case path != "" && p.Family == "uci":
			if found, err := exec.LookPath(path); err == nil {
				path = found
			}
		case path == "" && p.Family != "uci" && p.Family != "heuristic" && p.Family != "random":
			// A missing model fails when the player is made, not here.
			if resolved, err := player.ResolveWeights(ctx, p); err == nil {
				path = resolved.Path
			}
		}
		if st, err := os.Stat(path); path != "" && err == nil && st.Mode().IsRegular() {
			if err := add("player "+role, path); err != nil {
				return nil, nil, err
			}
		}
	}
	return hashes, inputs, nil
}

// GameSettings are what every game of cfg depends on besides its players:
// the openings, the seed, the limits and the adjudication, as entries of
// a journal's settings hash.
func GameSettings(cfg Config) map[string]any {
	openings := make([]string, 0, len(cfg.Openings))
	for _, o := range cfg.Openings {
		openings = append(openings, o.FEN)
	}
	tc := ""
	if cfg.TimeControl != nil {
		tc = cfg.TimeControl.String()
	}
	settings := map[string]any{
		"openings": jobarray.Hash(openings), "random_plies": cfg.RandomPlies, "seed": cfg.Seed,
		"tc": tc, "depth": cfg.Depth, "nodes": cfg.Nodes, "movetime": cfg.MoveTime.String(),
		"move_timeout": cfg.MoveTimeout.String(), "time_margin": cfg.TimeMargin.String(),
		"draw_adjudication": cfg.Draw, "resign_adjudication": cfg.Resign, "max_moves": cfg.MaxMoves,
	}
	addDefaultDepth(settings, cfg)
	return settings
}

// addDefaultDepth records cfg's default depth in settings when it has one;
// a config without one keeps the settings hash it had before there was one.
func addDefaultDepth(settings map[string]any, cfg Config) {
	if cfg.DefaultDepth > 0 {
		settings["default_depth"] = cfg.DefaultDepth
	}
}
