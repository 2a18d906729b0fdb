package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dchess/dchess/dataset"
)

// backRankMate: after Black's g8h8, Ra8 mates.
const backRankMate = "6k1/5ppp/8/8/8/8/5PPP/R5K1 b - - 0 1"

func TestEvalPuzzlesByBucket(t *testing.T) {
	path := filepath.Join(t.TempDir(), "puzzles.csv")
	csv := "PuzzleId,FEN,Moves,Rating,Themes\n" +
		"a," + backRankMate + ",g8h8 a1a8,1510,mateIn1\n" +
		// The line goes on after a1a2: mating instead does not solve it
		// (a mate counts only as the line's last move).
		"b," + backRankMate + ",g8h8 a1a2 h7h6 a2a8,1890,quiet\n" +
		"c," + backRankMate + ",g8h8 a1a8,1999,mateIn1\n"
	if err := os.WriteFile(path, []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	s, out, _ := playStreams("")
	if err := runEval(context.Background(), &evalOptions{Player: "heuristic:depth=2", Puzzles: path, JSON: true}, s); err != nil {
		t.Fatal(err)
	}
	var rep puzzleReport
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Puzzles != 3 || rep.Solved != 2 || len(rep.Buckets) != 2 {
		t.Fatalf("report %+v", rep)
	}
	if b := rep.Buckets[0]; b.From != 1400 || b.Puzzles != 1 || b.Solved != 1 {
		t.Errorf("1400 bucket %+v", b)
	}
	if b := rep.Buckets[1]; b.From != 1800 || b.Puzzles != 2 || b.Solved != 1 || b.Rate != 0.5 {
		t.Errorf("1800 bucket %+v", b)
	}

	bad := filepath.Join(t.TempDir(), "bad.csv")
	os.WriteFile(bad, []byte("FEN,Rating\nx,1\n"), 0o644)
	s, _, _ = playStreams("")
	if err := runEval(context.Background(), &evalOptions{Player: "heuristic", Puzzles: bad}, s); err == nil || !strings.Contains(err.Error(), "Moves") {
		t.Errorf("a CSV without Moves: %v", err)
	}
}

func TestEvalDataActionAccuracy(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	w, err := dataset.Create(dir, dataset.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// A mate in one, which the search finds, and a position whose listed
	// best move is a quiet a1a2 the search does not play (Ra8 still mates).
	for i, fen := range []string{"7k/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1", "7k/5ppp/8/8/8/7P/5PP1/R5K1 w - - 0 1"} {
		best := []string{"a1a8", "a1a2"}[i]
		r := &dataset.Record{FEN: fen, Key: dataset.PositionKey(fen), GameID: uint64(i),
			Label: &dataset.Label{Status: dataset.LabelOK, BestMove: best, PV: []string{best}}}
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	s, out, errOut := playStreams("")
	if err := runEval(context.Background(), &evalOptions{Player: "heuristic:depth=2", Data: dir, JSON: true}, s); err != nil {
		t.Fatal(err)
	}
	var rep dataReport
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Positions != 2 || rep.Correct != 1 || rep.Accuracy != 0.5 || rep.Split != "all" {
		t.Fatalf("report %+v", rep)
	}
	if !strings.Contains(errOut.String(), "no split") {
		t.Errorf("no note about the missing split: %q", errOut.String())
	}
}
