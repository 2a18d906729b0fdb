// Package studies tests the study scripts that the README offers as
// recipes, on inputs small enough for the suite: each runs the real dchess
// binary and a real Stockfish, as the hours-long studies do.
package studies

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dchess/dchess/internal/testenv"
)

func TestMain(m *testing.M) { os.Exit(testenv.RunRemovingDchess(m)) }

// script runs scripts/studies/NAME with args and the environment env
// (added to the test's own), and returns its combined output and exit code.
func script(t *testing.T, env []string, name string, args ...string) (string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", append([]string{filepath.Join(testenv.RepoRoot(), "scripts", "studies", name)}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("%s timed out:\n%s", name, out.String())
	}
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return out.String(), code
}

// readJSON decodes the JSON file path into v, or fails the test.
func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatalf("%s: %v\n%s", path, err, raw)
	}
}

// evalValue is what the scripts' eval files say of a player's scores.
type evalValue struct {
	Value struct {
		Positions int     `json:"positions"`
		MSE       float64 `json:"mse"`
	} `json:"value"`
}

// TestNNUEDataMakesAChunkAndResumes runs the README's data recipe on one
// chunk of four games: self-play, ingest (five positions a game), labelling
// with the table size LABEL_HASH asks for, the split. A second run must find
// every stage done and redo none of them.
func TestNNUEDataMakesAChunkAndResumes(t *testing.T) {
	env := []string{
		"DCHESS=" + testenv.Dchess(t),
		"DCHESS_STOCKFISH=" + testenv.Stockfish(t),
		"POSITIONS_PER_GAME=5",
		"LABEL_HASH=1",
	}
	out := t.TempDir()
	log, code := script(t, env, "nnue-data.sh", out, "1", "4", "1")
	if code != 0 {
		t.Fatalf("nnue-data.sh exited %d:\n%s", code, log)
	}
	chunk := filepath.Join(out, "chunk-1")
	for _, want := range []string{"records    20 from 4 games", "labelled   20 (100.0%), failed 0"} {
		if !strings.Contains(log, want) {
			t.Errorf("the chunk's summary lacks %q:\n%s", want, log)
		}
	}
	var manifest struct {
		Settings struct {
			Label struct {
				HashMB int `json:"hash_mb"`
			} `json:"label"`
		} `json:"settings"`
	}
	readJSON(t, filepath.Join(chunk, "labelled", "manifest.json"), &manifest)
	if got := manifest.Settings.Label.HashMB; got != 1 {
		t.Errorf("labelled with %d MB tables, want 1 (LABEL_HASH=1)", got)
	}
	for _, f := range []string{"games.pgn", "split.json"} {
		if _, err := os.Stat(filepath.Join(chunk, f)); err != nil {
			t.Errorf("chunk-1/%s: %v", f, err)
		}
	}

	stamps := map[string]time.Time{}
	for _, f := range []string{"games.pgn", "positions/manifest.json", "labelled/manifest.json", "split.json"} {
		st, err := os.Stat(filepath.Join(chunk, f))
		if err != nil {
			t.Fatal(err)
		}
		stamps[f] = st.ModTime()
	}
	again, code := script(t, env, "nnue-data.sh", out, "1", "4", "1")
	if code != 0 {
		t.Fatalf("the second run exited %d:\n%s", code, again)
	}
	if strings.Contains(again, "Self-play") {
		t.Errorf("the second run played the games again:\n%s", again)
	}
	for f, before := range stamps {
		st, err := os.Stat(filepath.Join(chunk, f))
		if err != nil {
			t.Fatal(err)
		}
		if !st.ModTime().Equal(before) {
			t.Errorf("the second run rewrote chunk-1/%s", f)
		}
	}
}

// TestNNUEDataRefusesABadShard checks the one-line error on CHUNK_SHARD.
func TestNNUEDataRefusesABadShard(t *testing.T) {
	log, code := script(t, []string{"CHUNK_SHARD=2/2", "DCHESS=/nonexistent"}, "nnue-data.sh", t.TempDir())
	if code != 2 || !strings.Contains(log, "CHUNK_SHARD=2/2 must be i/n with 0 <= i < n") {
		t.Fatalf("exit %d, output:\n%s", code, log)
	}
}

// TestNNUEStudyTrainsScoresAndPlays runs the study's second step on a chunk
// of twenty games: nnue-small trained on it, the network and the heuristic
// scored on its test split, two games at depth 6 against the shipped
// network. A second run finds the run done and trains nothing again.
func TestNNUEStudyTrainsScoresAndPlays(t *testing.T) {
	root := testenv.RepoRoot()
	env := []string{
		"DCHESS=" + testenv.Dchess(t),
		"DCHESS_STOCKFISH=" + testenv.Stockfish(t),
		"OPENINGS=" + testenv.SharedData(t, "openings/noob_2moves.epd"),
		"POSITIONS_PER_GAME=10",
		"LABEL_HASH=1",
		"CONFIG=" + filepath.Join(root, "configs", "nnue-small.yaml"),
		"RUN_NAME=small",
		"SHIPPED_GAMES=2",
	}
	data := t.TempDir()
	if log, code := script(t, env, "nnue-data.sh", data, "1", "20", "2"); code != 0 {
		t.Fatalf("nnue-data.sh exited %d:\n%s", code, log)
	}
	log, code := script(t, env, "nnue-study.sh", data, "1", "0")
	if code != 0 {
		t.Fatalf("nnue-study.sh exited %d:\n%s", code, log)
	}
	run := filepath.Join(data, "runs", "small")
	var match struct {
		Report struct {
			Wins   int `json:"wins"`
			Losses int `json:"losses"`
			Draws  int `json:"draws"`
		} `json:"report"`
	}
	readJSON(t, run+"-vs-shipped-d6.json", &match)
	if n := match.Report.Wins + match.Report.Losses + match.Report.Draws; n != 2 {
		t.Errorf("the depth-6 match played %d games, want 2", n)
	}
	for _, name := range []string{"nnue", "heuristic"} {
		var eval evalValue
		readJSON(t, run+".eval-"+name+".json", &eval)
		if eval.Value.Positions == 0 || eval.Value.MSE <= 0 {
			t.Errorf("%s scored %d positions with MSE %g", name, eval.Value.Positions, eval.Value.MSE)
		}
	}

	model, err := os.Stat(filepath.Join(run, "model.dcw"))
	if err != nil {
		t.Fatal(err)
	}
	if log, code := script(t, env, "nnue-study.sh", data, "1", "0"); code != 0 {
		t.Fatalf("the second run exited %d:\n%s", code, log)
	}
	again, err := os.Stat(filepath.Join(run, "model.dcw"))
	if err != nil {
		t.Fatal(err)
	}
	if !again.ModTime().Equal(model.ModTime()) {
		t.Error("the second run trained the network again")
	}
}

// TestNNUEProbe runs the quick probe on the shipped network: two games at
// depth 2 against the heuristic, their positions labelled, both players
// scored on them.
func TestNNUEProbe(t *testing.T) {
	env := []string{
		"DCHESS=" + testenv.Dchess(t),
		"DCHESS_STOCKFISH=" + testenv.Stockfish(t),
		"OPENINGS=" + testenv.SharedData(t, "openings/noob_2moves.epd"),
	}
	out := filepath.Join(t.TempDir(), "probe")
	model := filepath.Join(testenv.RepoRoot(), "models", "shipped", "nnue.dcw")
	if log, code := script(t, env, "nnue-probe.sh", model, out, "2", "2"); code != 0 {
		t.Fatalf("nnue-probe.sh exited %d:\n%s", code, log)
	}
	var match struct {
		Games int `json:"games"`
	}
	readJSON(t, out+".match.json", &match)
	if match.Games != 2 {
		t.Errorf("the probe played %d games, want 2", match.Games)
	}
	var scored [2]int
	for i, name := range []string{"nnue", "heuristic"} {
		var eval evalValue
		readJSON(t, out+".eval-"+name+".json", &eval)
		scored[i] = eval.Value.Positions
	}
	if scored[0] == 0 || scored[0] != scored[1] {
		t.Errorf("scored %d positions for nnue and %d for heuristic, want the same, more than 0", scored[0], scored[1])
	}
}
