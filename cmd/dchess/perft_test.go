package main

import (
	"github.com/dchess/dchess/internal/chess/board"

	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dchess/dchess/internal/testenv"
)

func perftStreams() (*IOStreams, *bytes.Buffer) {
	out := &bytes.Buffer{}
	return &IOStreams{In: strings.NewReader(""), Out: out, ErrOut: &bytes.Buffer{}}, out
}

func TestPerftPosition(t *testing.T) {
	s, out := perftStreams()
	if err := runPerft(context.Background(), &perftOptions{Depth: 3}, s); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "perft(3) = 8902 ") {
		t.Errorf("output %q", out)
	}
	s, out = perftStreams()
	kiwipete := "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
	if err := runPerft(context.Background(), &perftOptions{FEN: kiwipete, Depth: 2, Divide: true, JSON: true}, s); err != nil {
		t.Fatal(err)
	}
	var got board.PerftReport
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("%v in %s", err, out)
	}
	// Known divide values for Kiwipete at depth 2 (e1g1 castles, e5f7 takes).
	if got.Nodes != 2039 || len(got.Divide) != 48 || got.Divide["e1g1"] != 43 || got.Divide["e5f7"] != 44 {
		t.Errorf("kiwipete divide: %+v", got)
	}
}

func TestPerftSuiteReportsMismatches(t *testing.T) {
	suite := filepath.Join(t.TempDir(), "mini.epd")
	content := "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 ;D1 20 ;D2 400 ;D3 8902 ;D7 3195901860\n" +
		"4k3/8/8/8/8/8/8/4K2R w K - 0 1; D1 15; D2 67\n" + // D2 is really 66
		"8/8/8/8/8/8/8/8 w - - 0 1; D1 1\n" + // no kings
		"k7/8/8/8/8/8/8/K7 w - - 0 1 ;D9 99999999999\n" // only a count beyond --max-nodes
	if err := os.WriteFile(suite, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	s, out := perftStreams()
	err := runPerft(context.Background(), &perftOptions{Suite: suite, MaxNodes: 1_000_000, JSON: true}, s)
	if err == nil || !strings.Contains(err.Error(), "2 of 3") {
		t.Fatalf("error %v", err)
	}
	var got board.PerftSuiteReport
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("%v in %s", err, out)
	}
	if got.Positions != 4 || got.Checked != 3 || got.Passed != 1 || got.Skipped != 1 || len(got.Failures) != 2 {
		t.Errorf("summary %+v", got)
	}
	if f := got.Failures[0]; f.Line != 2 || f.Depth != 2 || f.Got != 66 || f.Want != 67 {
		t.Errorf("first failure %+v", f)
	}
	if f := got.Failures[1]; f.Line != 3 || f.Error == "" {
		t.Errorf("second failure %+v", f)
	}
	// --max-depth 1 leaves only depth-1 counts, which are right.
	s, out = perftStreams()
	err = runPerft(context.Background(), &perftOptions{Suite: suite, MaxDepth: 1}, s)
	if err == nil || !strings.Contains(out.String(), "FAIL line 3") || strings.Contains(out.String(), "FAIL line 2") {
		t.Errorf("max-depth 1: %v\n%s", err, out)
	}
}

func TestPerftSharedSuite(t *testing.T) {
	suite := testenv.SharedData(t, "perft/cpw_positions.epd")
	s, out := perftStreams()
	if err := runPerft(context.Background(), &perftOptions{Suite: suite, MaxNodes: 100_000}, s); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !strings.Contains(out.String(), "7 positions, 7 checked, 7 passed, 0 failed") {
		t.Errorf("output %s", out)
	}
}

func TestPerftBadInput(t *testing.T) {
	var usage *usageError
	for _, opts := range []perftOptions{
		{},
		{Depth: 13},
		{FEN: "not a fen", Depth: 2},
		{Suite: "x.epd", Depth: 2},
		{Suite: "x.epd", MaxNodes: -1},
	} {
		s, _ := perftStreams()
		if err := runPerft(context.Background(), &opts, s); !errors.As(err, &usage) {
			t.Errorf("%+v: error %v, want a usage error", opts, err)
		}
	}
	s, _ := perftStreams()
	if err := runPerft(context.Background(), &perftOptions{Suite: filepath.Join(t.TempDir(), "missing.epd")}, s); err == nil {
		t.Error("missing suite accepted")
	}
}

func TestPerftCommandLine(t *testing.T) {
	s, out := perftStreams()
	root := newRootCmd(s)
	root.SetArgs([]string{"perft", "--fen", "4k3/8/8/8/8/8/8/4K2R w K - 0 1", "--depth", "2"})
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "perft(2) = 66 ") {
		t.Errorf("output %q", out)
	}
}
