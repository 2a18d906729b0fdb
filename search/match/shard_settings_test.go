package match_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/dchess/dchess/internal/jobarray"
	"github.com/dchess/dchess/search/match"
)

func TestShardSettings(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh on PATH")
	}
	openings := filepath.Join(t.TempDir(), "book.epd")
	if err := os.WriteFile(openings, []byte("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run := match.ShardRun{A: "heuristic:depth=2", B: "uci:sh", Games: 10, Openings: openings, OpeningsOrder: "random",
		RandomPlies: 4, Seed: 7, TC: "10+0.1", DrawAdj: "movenumber=40,movecount=8,score=10", MaxMoves: 200,
		SPRT: "elo0=0,elo1=10,alpha=0.05,beta=0.05"}
	cfg := match.Config{Depth: 3, MoveTimeout: time.Minute, TimeMargin: 50 * time.Millisecond}
	settings, inputs, err := match.ShardSettings(context.Background(), run, cfg, 4)
	if err != nil {
		t.Fatal(err)
	}
	// Files count by their content: the openings, and the engine binary
	// the uci player's bare name finds on PATH.
	bookSum, _ := jobarray.FileSHA256(openings)
	shSum, _ := jobarray.FileSHA256(sh)
	if len(inputs) != 2 || inputs[0] != (jobarray.Input{Path: openings, SHA256: bookSum}) || inputs[1] != (jobarray.Input{Path: sh, SHA256: shSum}) {
		t.Errorf("inputs %+v", inputs)
	}
	hashes := settings["files_sha256"].(map[string]string)
	if len(hashes) != 2 || hashes["openings"] != bookSum || hashes["player b"] != shSum {
		t.Errorf("file hashes %v", hashes)
	}
	for key, want := range map[string]any{"a": run.A, "b": run.B, "games": 10, "tasks": 4, "tc": run.TC, "depth": 3,
		"nodes": int64(0), "movetime_ms": 0, "move_timeout": "1m0s", "time_margin": "50ms", "draw_adjudication": run.DrawAdj,
		"resign_adjudication": "", "max_moves": 200, "openings_order": "random", "random_plies": 4, "seed": uint64(7),
		"sprt": run.SPRT} {
		if settings[key] != want {
			t.Errorf("settings[%q] = %v (%T), want %v (%T)", key, settings[key], settings[key], want, want)
		}
	}
	if len(settings) != 18 {
		t.Errorf("%d settings, want 18: %v", len(settings), settings)
	}

	// The paths are only recorded: the same files elsewhere are the same run.
	moved := filepath.Join(t.TempDir(), "other.epd")
	data, _ := os.ReadFile(openings)
	if err := os.WriteFile(moved, data, 0o644); err != nil {
		t.Fatal(err)
	}
	run.Openings = moved
	again, _, err := match.ShardSettings(context.Background(), run, cfg, 4)
	if err != nil || jobarray.Hash(again) != jobarray.Hash(settings) {
		t.Errorf("moved openings change the settings hash (%v)", err)
	}

	run.Openings = filepath.Join(t.TempDir(), "missing.epd")
	if _, _, err := match.ShardSettings(context.Background(), run, cfg, 4); err == nil {
		t.Error("a missing openings file gave no error")
	}
	run.Openings, run.A = "", "he uristic"
	if _, _, err := match.ShardSettings(context.Background(), run, cfg, 4); err == nil {
		t.Error("a malformed SPEC gave no error")
	}
}

// TestSettingsTellADefaultDepthFromACap: a depth that caps every player and
// a default depth for players without their own limit play other games
// (heuristic:depth=5 plays 4 or 5), so their runs must not continue or
// merge with each other.
func TestSettingsTellADefaultDepthFromACap(t *testing.T) {
	run := match.ShardRun{A: "heuristic:depth=5", B: "heuristic", Games: 2}
	capped, _, err := match.ShardSettings(context.Background(), run, match.Config{Depth: 4}, 1)
	if err != nil {
		t.Fatal(err)
	}
	byDefault, _, err := match.ShardSettings(context.Background(), run, match.Config{DefaultDepth: 4}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if jobarray.Hash(capped) == jobarray.Hash(byDefault) || byDefault["default_depth"] != 4 {
		t.Errorf("depth cap %v and default depth %v hash alike", capped, byDefault)
	}
	if jobarray.Hash(match.GameSettings(match.Config{Depth: 4})) == jobarray.Hash(match.GameSettings(match.Config{DefaultDepth: 4})) {
		t.Error("a journal's settings do not tell a depth cap from a default depth")
	}
}
