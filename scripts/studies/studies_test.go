// Package studies tests the study scripts that the README offers as
// recipes, on inputs small enough for the suite: each runs the real dchess
// binary and a real Stockfish, as the hours-long studies do.
package studies

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dchess/dchess/internal/testenv"
)

func TestMain(m *testing.M) { os.Exit(testenv.RunRemovingDchess(m)) }

// script runs scripts/studies/NAME with args and the environment env
// (added to the test's own), and returns its combined output and exit code.
func script(t *testing.T, env []string, name string, args ...string) (string, int) {
	t.Helper()
	ctx, cancel := context.WithDeadline(context.Background(), testenv.ProgramDeadline(t))
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

// TestSequenceCurveScoresEachPointAndExtends runs the sequence curve on a
// dataset of three of Kasparov's games and two self-play games with the
// tiny test configs: each family trained to 100 and 200 steps, its last
// weights at each point kept and scored on the test split and twenty
// puzzles, the scores journalled in its scores.jsonl and drawn against
// the samples and the FLOPs. A rerun redoes nothing; a larger MAX_STEPS
// trains and scores the new point alone.
func TestSequenceCurveScoresEachPointAndExtends(t *testing.T) {
	root := testenv.RepoRoot()
	tmp := t.TempDir()
	games, err := os.ReadFile(testenv.SharedData(t, "pgn/Kasparov.pgn"))
	if err != nil {
		t.Fatal(err)
	}
	parts := strings.SplitAfterN(string(games), "[Event ", 5)
	kasparov := filepath.Join(tmp, "kasparov3.pgn")
	if err := os.WriteFile(kasparov, []byte(strings.TrimSuffix(strings.Join(parts[:4], ""), "[Event ")), 0o644); err != nil {
		t.Fatal(err)
	}
	env := []string{
		"DCHESS=" + testenv.Dchess(t),
		"DCHESS_STOCKFISH=" + testenv.Stockfish(t),
		"PUZZLES=" + testenv.SharedData(t, "puzzles/lichess_puzzles_kagi1000.csv"),
		"KASPAROV_PGN=" + kasparov,
		"GAMES=2", "MIN_POSITIONS=100",
		"CONFIG=" + filepath.Join(root, "configs", "test", "%s.yaml"),
		"FIRST=100", "LIMIT=50", "PUZZLE_LIMIT=20", "PARALLEL=2",
	}
	data, runs := filepath.Join(tmp, "data"), filepath.Join(tmp, "runs")
	log, code := script(t, env, "sequence-curve.sh", data, runs, "200")
	if code != 0 {
		t.Fatalf("sequence-curve.sh exited %d:\n%s", code, log)
	}
	families := []string{"policy", "diffusion", "flow-board"}
	type scoreLine struct {
		Step int64 `json:"step"`
		Test struct {
			Positions      int     `json:"positions"`
			ActionAccuracy float64 `json:"action_accuracy"`
		} `json:"test"`
		Puzzles struct {
			Puzzles int `json:"puzzles"`
		} `json:"puzzles"`
	}
	scored := func(f string) []int64 {
		raw, err := os.ReadFile(filepath.Join(runs, f, "scores.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		var steps []int64
		for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
			var s scoreLine
			if err := json.Unmarshal([]byte(line), &s); err != nil {
				t.Fatalf("%s scores.jsonl: %v\n%s", f, err, line)
			}
			if s.Test.Positions == 0 || s.Puzzles.Puzzles != 20 {
				t.Errorf("%s at step %d: %d test positions and %d puzzles scored, want some and 20", f, s.Step, s.Test.Positions, s.Puzzles.Puzzles)
			}
			steps = append(steps, s.Step)
		}
		return steps
	}
	for _, f := range families {
		if got := fmt.Sprint(scored(f)); got != "[100 200]" {
			t.Errorf("%s scored at steps %s, want [100 200]", f, got)
		}
		w100, err100 := os.ReadFile(filepath.Join(runs, f, "weights", "step-100.dcw"))
		w200, err200 := os.ReadFile(filepath.Join(runs, f, "weights", "step-200.dcw"))
		if err100 != nil || err200 != nil || bytes.Equal(w100, w200) {
			t.Errorf("%s: the weights at 100 and 200 steps (%v, %v) should both be kept, and differ", f, err100, err200)
		}
		cfg, err := os.ReadFile(filepath.Join(runs, f, "config.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"min_lr_ratio: 1\n", "\npatience: 0\n", "\nepochs: 1000\n"}
		if f == "flow-board" {
			want = append(want, "source: board")
		}
		for _, w := range want {
			if !strings.Contains(string(cfg), w) {
				t.Errorf("%s trained without %q:\n%s", f, w, cfg)
			}
		}
	}
	for _, png := range []string{"test-action_accuracy-samples.png", "test-action_accuracy-flops.png", "puzzles-solved_rate-flops.png"} {
		if st, err := os.Stat(filepath.Join(runs, png)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", png, err)
		}
	}
	if !strings.Contains(log, "flow-board: test.action_accuracy") || !strings.Contains(log, "flops (2 points)") {
		t.Errorf("the plots' summary is missing:\n%s", log)
	}

	weights := filepath.Join(runs, "policy", "weights", "step-200.dcw")
	before, err := os.Stat(weights)
	if err != nil {
		t.Fatal(err)
	}
	again, code := script(t, env, "sequence-curve.sh", data, runs, "200")
	if code != 0 {
		t.Fatalf("the rerun exited %d:\n%s", code, again)
	}
	if regexp.MustCompile(`== (train|score|puzzles) [a-z-]+ (to|at) step`).MatchString(again) {
		t.Errorf("the rerun trained or scored again:\n%s", again)
	}
	if after, err := os.Stat(weights); err != nil || !after.ModTime().Equal(before.ModTime()) {
		t.Errorf("the rerun rewrote %s (%v)", weights, err)
	}

	longer, code := script(t, env, "sequence-curve.sh", data, runs, "400")
	if code != 0 {
		t.Fatalf("the run to 400 steps exited %d:\n%s", code, longer)
	}
	for _, f := range families {
		if !strings.Contains(longer, "== train "+f+" to step 400") || strings.Contains(longer, "== train "+f+" to step 200") {
			t.Errorf("%s: the run to 400 steps should train the new point alone:\n%s", f, longer)
		}
		if got := fmt.Sprint(scored(f)); got != "[100 200 400]" {
			t.Errorf("%s scored at steps %s, want [100 200 400]", f, got)
		}
	}

	short, code := script(t, append(env, "MIN_POSITIONS=100000"), "sequence-curve.sh", data, runs, "400")
	if code == 0 || !strings.Contains(short, "fewer than MIN_POSITIONS=100000") {
		t.Errorf("a dataset below MIN_POSITIONS: exit %d:\n%s", code, short)
	}
}

// TestDatagenQualityMatchesTheReferenceCPU runs the data-making comparison
// on four reference games and datagen tasks of two: the datagen arm plays
// tasks until its recorded CPU time reaches the reference's, each arm
// trains and is scored, the datagen network plays the reference's, and a
// second run redoes nothing.
func TestDatagenQualityMatchesTheReferenceCPU(t *testing.T) {
	env := []string{
		"DCHESS=" + testenv.Dchess(t),
		"DCHESS_STOCKFISH=" + testenv.Stockfish(t),
		"STEPS=20", "GAMES_PER_TASK=2", "GAMES=2", "DEPTH=1",
	}
	out := t.TempDir()
	killed := killWhenCPUIsSampled(t, append(env, "CPU_SAMPLE=1", "REF_GAMES=12"), filepath.Join(out, "ref", "cpu.log.running"),
		"datagen-quality.sh", out, "300")
	log, code := script(t, append(env, "REF_GAMES=12"), "datagen-quality.sh", out, "300")
	if code != 0 {
		t.Fatalf("datagen-quality.sh exited %d:\n%s", code, log)
	}
	refLog, err := os.ReadFile(filepath.Join(out, "ref", "cpu.log"))
	if err != nil {
		t.Fatal(err)
	}
	// The killed run's last sample (the one seen, or one a moment later) is
	// counted before the run that finished.
	logLines := strings.Split(strings.TrimSpace(string(refLog)), "\n")
	var seen, counted float64
	fmt.Sscanf(killed, "chunk-1-interrupted %f", &seen)
	if _, err := fmt.Sscanf(logLines[0], "chunk-1-interrupted %f 0", &counted); err != nil || counted < seen ||
		len(logLines) != 2 || !strings.HasPrefix(logLines[1], "chunk-1 ") {
		t.Errorf("ref/cpu.log after a kill at %q:\n%s", killed, refLog)
	}
	cpu := func(arm string) (total float64, stages int) {
		raw, err := os.ReadFile(filepath.Join(out, arm, "cpu.log"))
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
			var stage string
			var user, sys float64
			if _, err := fmt.Sscanf(line, "%s %f %f", &stage, &user, &sys); err != nil {
				t.Fatalf("%s/cpu.log: %q: %v", arm, line, err)
			}
			total += user + sys
			stages++
		}
		return total, stages
	}
	ref, _ := cpu("ref")
	gen, tasks := cpu("gen-300")
	if ref <= 0 {
		t.Fatalf("the reference recorded %v CPU seconds:\n%s", ref, log)
	}
	// Tasks are played until their whole seconds reach the reference's.
	if float64(int(gen+0.5)) < float64(int(ref+0.5)) || tasks < 1 {
		t.Errorf("datagen recorded %.2f CPU seconds in %d tasks, the reference %.2f", gen, tasks, ref)
	}
	summary, err := os.ReadFile(filepath.Join(out, "summary.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(summary)), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[1], "ref\t") || !strings.HasPrefix(lines[2], "gen-300\t") {
		t.Fatalf("summary.tsv:\n%s", summary)
	}
	row := strings.Split(lines[2], "\t")
	if len(row) != 8 || row[5] == "-" || row[6] == "-" || !strings.Contains(row[7], "+/-") {
		t.Errorf("the datagen arm's line lacks a figure: %q", lines[2])
	}
	model := filepath.Join(out, "nnue-gen-300", "model.dcw")
	before, err := os.Stat(model)
	if err != nil {
		t.Fatal(err)
	}
	again, code := script(t, env, "datagen-quality.sh", out, "300")
	if code != 0 {
		t.Fatalf("the second run exited %d:\n%s", code, again)
	}
	for _, redone := range []string{"Self-play", ": task ", "== train"} {
		if strings.Contains(again, redone) {
			t.Errorf("the second run did %q again:\n%s", redone, again)
		}
	}
	if after, err := os.Stat(model); err != nil || !after.ModTime().Equal(before.ModTime()) {
		t.Errorf("the second run rewrote %s", model)
	}
}

// killWhenCPUIsSampled starts the study script NAME with args and kills
// its processes once the file running holds a CPU sample above zero; it
// returns that sample's line.
func killWhenCPUIsSampled(t *testing.T, env []string, running, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command("bash", append([]string{filepath.Join(testenv.RepoRoot(), "scripts", "studies", name)}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := testenv.ProgramDeadline(t)
	for time.Now().Before(deadline) {
		raw, _ := os.ReadFile(running)
		var stage string
		var seconds float64
		if _, err := fmt.Sscanf(string(raw), "%s %f", &stage, &seconds); err == nil && seconds > 0 {
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			cmd.Wait()
			return strings.TrimSpace(string(raw))
		}
		time.Sleep(50 * time.Millisecond)
	}
	syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	cmd.Wait()
	t.Fatalf("%s never sampled its CPU into %s:\n%s", name, running, out.String())
	return ""
}

// TestDatagenQualityRefusesABadBudget checks the one-line error on NODES.
func TestDatagenQualityRefusesABadBudget(t *testing.T) {
	log, code := script(t, []string{"DCHESS=/nonexistent"}, "datagen-quality.sh", t.TempDir(), "5k")
	if code != 2 || !strings.Contains(log, "NODES (5k) must be positive whole numbers") {
		t.Fatalf("exit %d, output:\n%s", code, log)
	}
}

// TestSiameseGamesScoresTheTestPairs trains DeepChess on 200 depth-1
// self-play games and scores it with two judges on the test split's pairs:
// every judge reads the same pairs, and a second run redoes nothing.
func TestSiameseGamesScoresTheTestPairs(t *testing.T) {
	dchess := testenv.Dchess(t)
	dir := t.TempDir()
	games := filepath.Join(dir, "games.pgn")
	selfplay := exec.Command(dchess, "selfplay", "--a", "heuristic:depth=1", "--games", "200", "--random-rate", "0.1",
		"--random-rate-plies", "20", "--max-moves", "150", "--seed", "3", "-o", games, "--quiet")
	if out, err := selfplay.CombinedOutput(); err != nil {
		t.Fatalf("selfplay: %v\n%s", err, out)
	}
	shipped := filepath.Join(testenv.RepoRoot(), "models", "shipped", "siamese.dcw")
	env := []string{"DCHESS=" + dchess, "NAME=sp", "JUDGES=heuristic@1 siamese:" + shipped}
	out := filepath.Join(dir, "out")
	log, code := script(t, env, "siamese-games.sh", out, "1", games)
	if code != 0 {
		t.Fatalf("siamese-games.sh exited %d:\n%s", code, log)
	}
	type pairs struct {
		Pairs        int     `json:"pairs"`
		PairAccuracy float64 `json:"pair_accuracy"`
	}
	var own pairs
	readJSON(t, filepath.Join(out, "siamese-sp-s1.eval.json"), &own)
	if own.Pairs == 0 {
		t.Fatalf("no test pair scored:\n%s", log)
	}
	judged, _ := filepath.Glob(filepath.Join(out, "sp-judge-*.eval.json"))
	if len(judged) != 2 {
		t.Fatalf("judges' results %v, want 2:\n%s", judged, log)
	}
	for _, f := range judged {
		var j pairs
		readJSON(t, f, &j)
		if j.Pairs != own.Pairs {
			t.Errorf("%s scored %d pairs, the trained network %d", filepath.Base(f), j.Pairs, own.Pairs)
		}
	}
	if !regexp.MustCompile(`(?m)^heuristic@1 +[0-9.]+$`).MatchString(log) {
		t.Errorf("no accuracy line for heuristic@1:\n%s", log)
	}
	again, code := script(t, env, "siamese-games.sh", out, "1", games)
	if code != 0 {
		t.Fatalf("the second run exited %d:\n%s", code, again)
	}
	if strings.Contains(again, "train:") || strings.Contains(again, "read ") {
		t.Errorf("the second run ingested or trained again:\n%s", again)
	}

	// POS2VEC: another set of the same games starts from the first Pos2Vec
	// and trains none of its own.
	reuse := []string{"DCHESS=" + dchess, "NAME=more", "POS2VEC=" + filepath.Join(out, "ae-sp")}
	more, code := script(t, reuse, "siamese-games.sh", out, "1", games)
	if code != 0 {
		t.Fatalf("the run with POS2VEC exited %d:\n%s", code, more)
	}
	if _, err := os.Stat(filepath.Join(out, "ae-more")); !os.IsNotExist(err) || strings.Contains(more, "== Pos2Vec") {
		t.Errorf("the run with POS2VEC trained a Pos2Vec of its own (%v):\n%s", err, more)
	}
	cfg, err := os.ReadFile(filepath.Join(out, "siamese-more-s1", "config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "init: " + filepath.Join(out, "ae-sp", "model.dcw"); !strings.Contains(string(cfg), want) {
		t.Errorf("the towers did not start from ae-sp's weights (want %q):\n%s", want, cfg)
	}
	// A missing POS2VEC is refused before anything is ingested.
	missing := []string{"DCHESS=" + dchess, "NAME=none", "POS2VEC=" + filepath.Join(dir, "none")}
	if log, code := script(t, missing, "siamese-games.sh", out, "1", games); code != 2 || !strings.Contains(log, "no Pos2Vec weights") {
		t.Errorf("a missing POS2VEC: exit %d, output:\n%s", code, log)
	}
	if _, err := os.Stat(filepath.Join(out, "none")); !os.IsNotExist(err) {
		t.Errorf("a missing POS2VEC still ingested the games (%v)", err)
	}
}

// TestNNUEDatagenTrainsOnArms makes one arm with TRAIN=0, which trains
// nothing, and trains the next arm's candidate on both arms' tasks; a WITH
// folder without finished tasks gets the one-line error before any task is
// played.
func TestNNUEDatagenTrainsOnArms(t *testing.T) {
	out := t.TempDir()
	arm, main := filepath.Join(out, "gen-50"), filepath.Join(out, "gen-60")
	env := []string{"DCHESS=" + testenv.Dchess(t), "GAMES_PER_TASK=2", "STEPS=20", "CLOCK=0"}
	log, code := script(t, append(env, "TRAIN=0"), "nnue-datagen.sh", arm, "100", "50")
	tasks := regexp.MustCompile(`== (\d+) tasks, \d+ records`).FindStringSubmatch(log)
	if code != 0 || tasks == nil {
		t.Fatalf("the TRAIN=0 arm exited %d:\n%s", code, log)
	}
	if strings.Contains(log, "== train") {
		t.Errorf("TRAIN=0 trained:\n%s", log)
	}
	log, code = script(t, append(env, "WITH="+arm), "nnue-datagen.sh", main, "100", "60")
	own := regexp.MustCompile(`== (\d+) tasks, \d+ records`).FindStringSubmatch(log)
	trained := regexp.MustCompile(`== train \S+ on (\d+) tasks`).FindStringSubmatch(log)
	if code != 0 || own == nil || trained == nil {
		t.Fatalf("the arm with WITH exited %d:\n%s", code, log)
	}
	a, _ := strconv.Atoi(tasks[1])
	b, _ := strconv.Atoi(own[1])
	if n, _ := strconv.Atoi(trained[1]); n != a+b {
		t.Errorf("trained on %d tasks, want the %d of %s and the %d of %s:\n%s", n, a, arm, b, main, log)
	}
	if _, err := os.Stat(filepath.Join(main, "nnue-candidate", "model.dcw")); err != nil {
		t.Errorf("no candidate: %v\n%s", err, log)
	}
	early := filepath.Join(out, "gen-70")
	bad, code := script(t, append(env, "WITH="+t.TempDir()), "nnue-datagen.sh", early, "1", "70")
	if code != 2 || !strings.Contains(bad, "which holds no finished task") {
		t.Errorf("an empty WITH: exit %d, output:\n%s", code, bad)
	}
	if _, err := os.Stat(early); !os.IsNotExist(err) {
		t.Errorf("an empty WITH still made %s (%v)", early, err)
	}
}

// TestNNUEDatagenTrainsACandidate plays datagen tasks of two games until
// they hold 150 records, trains a network on them and scores it; a second
// run finds every stage done, and a bad RECORDS gets the one-line error.
func TestNNUEDatagenTrainsACandidate(t *testing.T) {
	out := t.TempDir()
	first := filepath.Join(out, "gen-0000-of-1000")
	env := []string{"DCHESS=" + testenv.Dchess(t), "GAMES_PER_TASK=2", "STEPS=20", "CLOCK=0", "TEST=" + first}
	log, code := script(t, env, "nnue-datagen.sh", out, "150", "50")
	if code != 0 {
		t.Fatalf("nnue-datagen.sh exited %d:\n%s", code, log)
	}
	summary := regexp.MustCompile(`== (\d+) tasks, (\d+) records`).FindStringSubmatch(log)
	if summary == nil {
		t.Fatalf("no summary of the tasks:\n%s", log)
	}
	tasks, _ := strconv.Atoi(summary[1])
	if made, _ := strconv.Atoi(summary[2]); made < 150 || tasks < 1 {
		t.Fatalf("%d tasks made %d records, want at least 150:\n%s", tasks, made, log)
	}
	for _, f := range []string{"nnue-candidate/model.dcw", "nnue-candidate.yaml", fmt.Sprintf("gen-%04d-of-1000.split.json", tasks-1)} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("%s: %v\n%s", f, err, log)
		}
	}
	var score evalValue
	readJSON(t, filepath.Join(out, "nnue-candidate.eval.json"), &score)
	if score.Value.Positions == 0 || score.Value.MSE <= 0 {
		t.Errorf("the candidate's scores: %+v", score)
	}
	again, code := script(t, env, "nnue-datagen.sh", out, "150", "50")
	if code != 0 || strings.Contains(again, "== task") || strings.Contains(again, "== train") {
		t.Errorf("the second run (exit %d) redid a stage:\n%s", code, again)
	}
	bad, code := script(t, []string{"DCHESS=/nonexistent"}, "nnue-datagen.sh", out, "5k")
	if code != 2 || !strings.Contains(bad, "RECORDS (5k) and NODES (1000) must be positive whole numbers") {
		t.Errorf("exit %d, output:\n%s", code, bad)
	}
}
