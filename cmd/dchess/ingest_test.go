package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/dchess/dchess/dataset"
	"github.com/dchess/dchess/dataset/ingest"
	"github.com/dchess/dchess/internal/testenv"
)

const ingestTestGames = `[Event "One"]
[WhiteElo "2500"]
[BlackElo "2400"]
[Result "1-0"]

1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 1-0

[Event "Bad"]
[Result "0-1"]

1. e4 e5 2. Nf9 Nc6 0-1

[Event "Two"]
[Result "0-1"]

1. e4 c5 2. Nf3 d6 0-1
`

func ingestStreams(in string) (*IOStreams, *bytes.Buffer, *bytes.Buffer) {
	out, errOut := &bytes.Buffer{}, &bytes.Buffer{}
	return &IOStreams{In: strings.NewReader(in), Out: out, ErrOut: errOut}, out, errOut
}

func scanAll(t *testing.T, dir string) []*dataset.Record {
	t.Helper()
	d, err := dataset.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	var recs []*dataset.Record
	err = d.Scan(context.Background(), dataset.AllSplits, func(r *dataset.Record) error {
		c := *r
		recs = append(recs, &c)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

func TestIngestStdinReportsBadGameAndDedupes(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "games")
	s, out, errOut := ingestStreams(ingestTestGames)
	opts := &ingestOptions{Inputs: []string{"-"}, Out: dir, Options: ingest.Options{Format: "pgn", Horizon: 4}}
	if err := runIngest(context.Background(), opts, s); err != nil {
		t.Fatal(err)
	}
	if got := errOut.String(); got != "game 2 (line 11): illegal SAN \"Nf9\"\n" {
		t.Errorf("stderr %q", got)
	}
	// 6 + 4 positions taken; game two repeats the first two of game one.
	if !strings.Contains(out.String(), "read 3 games") || !strings.Contains(out.String(), "10 positions taken from the kept games, 2 dropped as repeats of an earlier one, 8 unique positions stored in ") {
		t.Errorf("summary %q", out.String())
	}
	recs := scanAll(t, dir)
	if len(recs) != 8 || recs[0].Move != "e2e4" || recs[0].WhiteElo != 2500 || recs[7].Move != "d7d6" {
		t.Errorf("%d records, first %+v", len(recs), recs[0])
	}
}

func TestIngestJSONAndFilters(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "games")
	s, out, _ := ingestStreams(ingestTestGames)
	opts := &ingestOptions{Inputs: []string{"-"}, Out: dir, JSON: true, Options: ingest.Options{Format: "pgn", Horizon: 2, MinPly: 2, MinElo: 2000}}
	if err := runIngest(context.Background(), opts, s); err != nil {
		t.Fatal(err)
	}
	var got struct {
		GamesRead       int64 `json:"games_read"`
		GamesKept       int64 `json:"games_kept"`
		SkippedIllegal  int64 `json:"skipped_illegal"`
		SkippedFiltered int64 `json:"skipped_filtered"`
		Positions       int64 `json:"positions_written"`
		Stored          int64 `json:"positions_stored"`
	}
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out.String())
	}
	// The Elo filter comes before the moves are read, so the game with the
	// illegal move (and no ratings) counts as filtered out.
	if got.GamesRead != 3 || got.GamesKept != 1 || got.SkippedIllegal != 0 || got.SkippedFiltered != 2 || got.Positions != 4 || got.Stored != 4 {
		t.Errorf("summary %s", out.String())
	}
	recs := scanAll(t, dir)
	if len(recs) != 4 || recs[0].Ply != 2 || len(recs[0].Next) != 2 {
		t.Errorf("records %+v", recs)
	}
}

func TestIngestStrictFailsAndWritesNothing(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "games")
	s, _, _ := ingestStreams(ingestTestGames)
	opts := &ingestOptions{Inputs: []string{"-"}, Out: dir, Options: ingest.Options{Format: "pgn", Horizon: 4, Strict: true}}
	err := runIngest(context.Background(), opts, s)
	if err == nil || !strings.Contains(err.Error(), `game 2 (line 11): illegal SAN "Nf9"`) {
		t.Fatalf("err = %v", err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("a failed strict run left %s behind", dir)
	}
}

func TestIngestUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts ingestOptions
		want string
	}{
		{"no input", ingestOptions{Out: "x", Options: ingest.Options{Format: "pgn"}}, "at least one input"},
		{"no output", ingestOptions{Inputs: []string{"-"}, Options: ingest.Options{Format: "pgn"}}, "-o DATASET"},
		{"bad format", ingestOptions{Inputs: []string{"-"}, Out: "x", Options: ingest.Options{Format: "sgf"}}, "unknown format"},
		{"negative horizon", ingestOptions{Inputs: []string{"-"}, Out: "x", Options: ingest.Options{Format: "pgn", Horizon: -1}}, "horizon"},
		{"max below min", ingestOptions{Inputs: []string{"-"}, Out: "x", Options: ingest.Options{Format: "pgn", MinPly: 10, MaxPly: 5}}, "max ply"},
		{"missing file", ingestOptions{Inputs: []string{"/nonexistent/g.pgn"}, Out: "x", Options: ingest.Options{Format: "pgn"}}, "no such file"},
		{"bad time control", ingestOptions{Inputs: []string{"-"}, Out: "x", Options: ingest.Options{Format: "pgn", TimeControl: "slow"}}, `time control "slow"`},
		{"max below min Elo", ingestOptions{Inputs: []string{"-"}, Out: "x", Options: ingest.Options{Format: "pgn", MinElo: 2000, MaxElo: 1500}}, "max Elo"},
		{"tag filter on EPD", ingestOptions{Inputs: []string{"-"}, Out: "x", Options: ingest.Options{Format: "epd", Termination: "normal"}}, "PGN only"},
	} {
		s, _, _ := ingestStreams("")
		opts := tc.opts
		err := runIngest(context.Background(), &opts, s)
		var usage *usageError
		if !errors.As(err, &usage) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want a usage error mentioning %q", tc.name, err, tc.want)
		}
	}
}

func TestIngestCommandHelpAndFlags(t *testing.T) {
	s, out, _ := ingestStreams("")
	root := newRootCmd(s)
	root.SetArgs([]string{"ingest", "--help"})
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Examples:", "--positions-per-game", "--skip-captures", "--format", "--json"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("help lacks %q", want)
		}
	}
	dir := filepath.Join(t.TempDir(), "games")
	s, out, _ = ingestStreams(ingestTestGames)
	root = newRootCmd(s)
	root.SetArgs([]string{"ingest", "-", "-o", dir, "--max-games", "1", "--skip-captures"})
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "stopped after --max-games 1") || len(scanAll(t, dir)) != 6 {
		t.Errorf("output %q", out.String())
	}
}

// Two runs over the same input give the same records in the same shards.
func TestIngestDeterministicZstd(t *testing.T) {
	pgnText, err := os.ReadFile(testenv.SharedData(t, "pgn/Kasparov.pgn"))
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	enc, _ := zstd.NewWriter(nil)
	input := filepath.Join(tmp, "k.pgn.zst")
	if err := os.WriteFile(input, enc.EncodeAll(pgnText, nil), 0o644); err != nil {
		t.Fatal(err)
	}
	var shards [][]byte
	for i, workers := range []int{1, 2} {
		dir := filepath.Join(tmp, "run", string(rune('a'+i)))
		s, _, _ := ingestStreams("")
		opts := &ingestOptions{Inputs: []string{input}, Out: dir, Options: ingest.Options{Format: "pgn", Horizon: 4, PositionsPerGame: 8, Seed: 3, Workers: workers}}
		if err := runIngest(context.Background(), opts, s); err != nil {
			t.Fatal(err)
		}
		files, _ := filepath.Glob(filepath.Join(dir, "shard-*"))
		var all []byte
		for _, f := range files {
			b, _ := os.ReadFile(f)
			all = append(all, b...)
		}
		shards = append(shards, all)
	}
	if len(shards[0]) == 0 || !bytes.Equal(shards[0], shards[1]) {
		t.Errorf("the two runs wrote different shards (%d and %d bytes)", len(shards[0]), len(shards[1]))
	}
}

// The reported bug: a second ingest into a dataset replaced it silently
// and took a user's notes with it.
func TestIngestOverADatasetNeedsForceAndKeepsForeignFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "games")
	opts := &ingestOptions{Inputs: []string{"-"}, Out: dir, Options: ingest.Options{Format: "pgn", Horizon: 4}}
	s, _, _ := ingestStreams(ingestTestGames)
	if err := runIngest(context.Background(), opts, s); err != nil {
		t.Fatal(err)
	}
	s, _, _ = ingestStreams(ingestTestGames)
	if err := runIngest(context.Background(), opts, s); err == nil || !strings.Contains(err.Error(), "--force") {
		t.Fatalf("second ingest without --force: %v", err)
	}
	notes := filepath.Join(dir, "notes.txt")
	os.WriteFile(notes, []byte("mine"), 0o644)
	opts.Force = true
	s, _, _ = ingestStreams(ingestTestGames)
	if err := runIngest(context.Background(), opts, s); err == nil || !strings.Contains(err.Error(), "notes.txt") {
		t.Fatalf("ingest --force over a dataset holding notes.txt: %v", err)
	}
	if data, err := os.ReadFile(notes); err != nil || string(data) != "mine" {
		t.Fatalf("notes.txt: %q, %v", data, err)
	}
	os.Remove(notes)
	s, _, _ = ingestStreams(ingestTestGames)
	if err := runIngest(context.Background(), opts, s); err != nil {
		t.Fatalf("ingest --force: %v", err)
	}
	// Nothing of the failed attempts is left beside the dataset.
	if entries, _ := os.ReadDir(filepath.Dir(dir)); len(entries) != 1 {
		t.Fatalf("left beside the dataset: %v", entries)
	}
}

// Games of other variants are skipped and said to be, not counted as
// malformed; the line of a run without them is as it was.
func TestIngestSaysWhichGamesAreNotStandardChess(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "games")
	s, out, errOut := ingestStreams("[Event \"Z\"]\n[Variant \"Crazyhouse\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 Nc6 1-0\n\n" + ingestTestGames)
	if err := runIngest(context.Background(), &ingestOptions{Inputs: []string{"-"}, Out: dir, Options: ingest.Options{Format: "pgn", Horizon: 4}}, s); err != nil {
		t.Fatal(err)
	}
	if want := "read 4 games"; !strings.Contains(out.String(), want) ||
		!strings.Contains(out.String(), "2 kept, 2 skipped (0 malformed, 1 illegal moves, 0 filtered out, 1 not standard chess)\n") {
		t.Errorf("summary %q", out.String())
	}
	if !strings.Contains(errOut.String(), `game 1 (line 2): variant "Crazyhouse" is not standard chess`) {
		t.Errorf("stderr %q", errOut.String())
	}
}

// A Lichess export: [%eval] comments label the positions, [%clk] is kept,
// and the tag filters choose the games.
func TestIngestLichessPGNEvalsClocksAndFilters(t *testing.T) {
	input := filepath.Join("..", "..", "dataset", "ingest", "testdata", "lichess.pgn")
	dir := filepath.Join(t.TempDir(), "games")
	s, out, _ := ingestStreams("")
	root := newRootCmd(s)
	root.SetArgs([]string{"ingest", input, "-o", dir, "--time-control", "blitz,bullet", "--termination", "normal", "--max-elo", "1500"})
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "read 4 games") || !strings.Contains(out.String(), "2 kept, 2 skipped (0 malformed, 0 illegal moves, 2 filtered out)") ||
		!strings.Contains(out.String(), "9 of the positions taken are labelled from the games' [%eval] comments") {
		t.Errorf("output %q", out.String())
	}
	recs := scanAll(t, dir)
	// 11 positions, the second start position dropped as a repeat.
	if len(recs) != 10 || recs[0].Label != nil || recs[1].Label == nil || recs[1].Label.CP != -17 || recs[0].ClockMS != 180000 || recs[9].Label.Mate != 1 {
		t.Errorf("%d records, first two %+v %+v", len(recs), recs[0], recs[1])
	}
	d, err := dataset.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if m := d.Manifest(); m.Counts.Labelled != 9 || m.FormatVersion != 3 || m.Settings["time_control"] != "blitz,bullet" || m.Settings["max_elo"] != float64(1500) {
		t.Errorf("manifest %+v", m)
	}
}

// Lichess puzzles are ingested as the positions to solve, unlabelled, and
// --max-elo bounds their rating.
func TestIngestPuzzles(t *testing.T) {
	input := testenv.SharedData(t, "puzzles/lichess_puzzles_kagi1000.csv")
	dir := filepath.Join(t.TempDir(), "puzzles")
	s, out, _ := ingestStreams("")
	root := newRootCmd(s)
	root.SetArgs([]string{"ingest", "--format", "puzzles", input, "-o", dir, "--max-elo", "1500"})
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	recs := scanAll(t, dir)
	if !strings.Contains(out.String(), "read 1000 lines") || !strings.Contains(out.String(), fmt.Sprintf("%d kept, %d skipped (0 bad, %d filtered out)", len(recs), 1000-len(recs), 1000-len(recs))) {
		t.Errorf("output %q", out.String())
	}
	if len(recs) < 300 || len(recs) > 700 {
		t.Fatalf("%d puzzles rated at most 1500 of 1000", len(recs))
	}
	for _, r := range recs {
		if r.Label != nil || r.Move == "" || !strings.HasPrefix(r.Notes, `id "`) || !strings.Contains(r.Notes, "; rating ") {
			t.Fatalf("record %+v", r)
		}
	}
}

// The reported bug: a puzzle CSV given to --format csv kept 0 rows and
// exited 0. An input that gives no position now fails (exit 1), says why
// and writes no dataset.
func TestIngestOfNothingFails(t *testing.T) {
	input := testenv.SharedData(t, "puzzles/lichess_puzzles_a.csv")
	dir := filepath.Join(t.TempDir(), "kaggle")
	code, stderr := runMain("ingest", "--format", "csv", input, "-o", dir, "--quiet")
	if code != exitFailure || !strings.Contains(stderr, "dchess: "+input+" gave no position: none of its 5029 lines gave one: 5029 could not be read as csv; "+
		"the first problem: line 1: the header names FEN and Moves columns: a Lichess puzzle CSV, which --format puzzles reads") {
		t.Errorf("exit %d:\n%s", code, stderr)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("a run that gave nothing left %s", dir)
	}
}
