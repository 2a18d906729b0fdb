package board

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestPerftFENDividesAndSumsTheRootMoves(t *testing.T) {
	r, err := PerftFEN("", 3, true)
	if err != nil || r.Nodes != 8902 || len(r.DivideOrder) != 20 || r.Divide["e2e4"] != 600 || r.FEN != StartFEN {
		t.Fatalf("perft 3 of the start: %+v, %v", r, err)
	}
	for i := 1; i < len(r.DivideOrder); i++ {
		if r.DivideOrder[i-1].Move.String() >= r.DivideOrder[i].Move.String() {
			t.Fatalf("divide not in UCI order at %d", i)
		}
	}
	if r, err := PerftFEN("", 2, false); err != nil || r.Nodes != 400 || r.Divide != nil {
		t.Errorf("perft 2 without divide: %+v, %v", r, err)
	}
	if _, err := PerftFEN("not a fen", 1, false); err == nil {
		t.Error("a bad FEN counted")
	}
}

func TestCheckPerftSuiteReportsWrongCountsAndSkips(t *testing.T) {
	path := filepath.Join(t.TempDir(), "suite.epd")
	// The second line's count is wrong on purpose.
	suite := StartFEN + " ;D1 20 ;D2 400 ;D3 8902\n" + StartFEN + " ;D1 21\n"
	if err := os.WriteFile(path, []byte(suite), 0o644); err != nil {
		t.Fatal(err)
	}
	heard := 0
	r, err := CheckPerftSuite(context.Background(), path, 2, 0, func(done, total int) {
		if total != 2 {
			t.Errorf("progress total %d, want 2", total)
		}
		heard = done
	})
	if err != nil {
		t.Fatal(err)
	}
	if r.Positions != 2 || r.Checked != 2 || r.Passed != 1 || heard != 2 || len(r.Failures) != 1 || r.Failures[0].Line != 2 || r.Failures[0].Depth != 1 || r.Failures[0].Want != 21 || r.Failures[0].Got != 20 || r.Nodes != 420 {
		t.Fatalf("suite report %+v", r)
	}
	if e := r.Err(); e == nil || !strings.Contains(e.Error(), "checked positions in "+path+" differ") {
		t.Errorf("Err: %v", e)
	}
	r, err = CheckPerftSuite(context.Background(), path, 0, 10, nil)
	if err != nil || r.Skipped != 2 || r.Checked != 0 || r.Err() != nil {
		t.Errorf("with at most 10 nodes every position is skipped: %+v, %v", r, err)
	}
}
