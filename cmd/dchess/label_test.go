package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/dchess/dchess/dataset"
	"github.com/dchess/dchess/dataset/datasettest"
	"github.com/dchess/dchess/dataset/label"
	"github.com/dchess/dchess/internal/testenv"
)

// labelInput writes a few opening positions as a dataset.
func labelInput(t *testing.T) string {
	t.Helper()
	var recs []*dataset.Record
	for i, fen := range []string{
		"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
		"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
		"rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2",
		"rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2",
		"r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
	} {
		recs = append(recs, &dataset.Record{FEN: fen, Key: dataset.PositionKey(fen), GameID: 1, Ply: uint16(i)})
	}
	return datasettest.Write(t, filepath.Join(t.TempDir(), "in"), dataset.WriteOptions{}, recs)
}

func TestLabelCommandRejectsBadFlags(t *testing.T) {
	cases := map[string]struct {
		opts labelOptions
		want string
	}{
		"no engine":    {labelOptions{Options: label.Options{Input: "a", Output: "b", Workers: 1, Hash: 16, MultiPV: 1}}, "--stockfish"},
		"no output":    {labelOptions{Options: label.Options{Stockfish: "sf", Input: "a", Workers: 1, Hash: 16, MultiPV: 1}}, "-o"},
		"two limits":   {labelOptions{MoveTimeMs: 50, Options: label.Options{Stockfish: "sf", Input: "a", Output: "b", Depth: 8, Workers: 1, Hash: 16, MultiPV: 1}}, "at most one of"},
		"no workers":   {labelOptions{Options: label.Options{Stockfish: "sf", Input: "a", Output: "b", Workers: 0, Hash: 16, MultiPV: 1}}, "--workers"},
		"zero multipv": {labelOptions{Options: label.Options{Stockfish: "sf", Input: "a", Output: "b", Workers: 1, Hash: 16}}, "--multipv"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			s, _, _ := testDatasetStreams()
			err := runLabel(context.Background(), &c.opts, s)
			var usage *usageError
			if !errors.As(err, &usage) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want a usage error containing %q", err, c.want)
			}
		})
	}
}

func TestLabelCommandHelpHasExample(t *testing.T) {
	s, out, _ := testDatasetStreams()
	root := newRootCmd(s)
	root.SetArgs([]string{"label", "--help"})
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "Examples:") || !strings.Contains(out.String(), "--nodes") {
		t.Fatalf("help:\n%s", out)
	}
}

func TestLabelCommandWithStockfish(t *testing.T) {
	sf := testenv.Stockfish(t)
	in := labelInput(t)
	out := filepath.Join(t.TempDir(), "out")
	s, stdout, _ := testDatasetStreams()
	opts := &labelOptions{JSON: true, Options: label.Options{Stockfish: sf, Input: in, Output: out, Nodes: 2000, Workers: 2, Hash: 16, PV: 2, MultiPV: 1, Command: []string{"dchess", "label"}}}
	if err := runLabel(context.Background(), opts, s); err != nil {
		t.Fatal(err)
	}
	var sum label.Summary
	if err := json.Unmarshal(stdout.Bytes(), &sum); err != nil {
		t.Fatalf("%v in %q", err, stdout)
	}
	if sum.Records != 5 || sum.Labelled != 5 || sum.Failed != 0 || !strings.HasPrefix(sum.Engine, "Stockfish") {
		t.Fatalf("summary %+v", sum)
	}
	d, err := dataset.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	if d.Manifest().Counts.Labelled != 5 || strings.Join(d.Manifest().Command, " ") != "dchess label" {
		t.Fatalf("manifest %+v", d.Manifest())
	}

	// The plain summary is one line on stdout.
	opts.JSON = false
	s, stdout, _ = testDatasetStreams()
	if err := runLabel(context.Background(), opts, s); err == nil || !strings.Contains(err.Error(), "--force") {
		t.Fatalf("labelling over the output without --force: %v", err)
	}
	opts.Force = true
	if err := runLabel(context.Background(), opts, s); err != nil {
		t.Fatal(err)
	}
	line := regexp.MustCompile(`^labelled 5 positions into .* with Stockfish .*: 5 new, 0 resumed, 0 failed, 0 engine restarts; [0-9.]+ s, [0-9]+ positions/s\n$`)
	if !line.Match(stdout.Bytes()) {
		t.Fatalf("summary line %q", stdout)
	}
}

func TestLabelCommandDrawsProgressOnlyOnATerminal(t *testing.T) {
	sf := testenv.Stockfish(t)
	in := labelInput(t)
	for _, terminal := range []bool{false, true} {
		stderr := &bytes.Buffer{}
		s := &IOStreams{In: strings.NewReader(""), Out: &bytes.Buffer{}, ErrOut: stderr, ErrIsTerminal: terminal}
		opts := &labelOptions{Options: label.Options{Stockfish: sf, Input: in, Output: filepath.Join(t.TempDir(), "out"), Nodes: 1000, Workers: 1, Hash: 16, MultiPV: 1}}
		if err := runLabel(context.Background(), opts, s); err != nil {
			t.Fatal(err)
		}
		if drawn := strings.Contains(stderr.String(), "labelling"); drawn != terminal {
			t.Fatalf("terminal %v: stderr %q", terminal, stderr)
		}
	}
}
