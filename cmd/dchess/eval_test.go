package main

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dchess/dchess/internal/testenv"
	"github.com/dchess/dchess/pipeline/evaluate"
)

const scholarsMate = "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4"

func TestEvalFENExplain(t *testing.T) {
	s, out, _ := playStreams("")
	if err := runEval(context.Background(), &evalOptions{Player: "heuristic", FEN: scholarsMate, Explain: true, Depth: 3}, s); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Move: Qxf7# (h5f7)", "mate in 1", "material", "piece-square", "pawn structure",
		"bishop pair", "rook files", "mobility", "total"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	s, out, _ = playStreams("")
	if err := runEval(context.Background(), &evalOptions{Player: "heuristic:depth=2", FEN: scholarsMate, Explain: true, JSON: true}, s); err != nil {
		t.Fatal(err)
	}
	var res map[string]any
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatal(err)
	}
	if res["move"] != "h5f7" || res["mate"] != 1.0 || res["explain"].(map[string]any)["material"] == nil {
		t.Errorf("JSON %s", out)
	}
	// A mate is written one way: mate, with cp null (not 31999).
	if cp, ok := res["cp"]; !ok || cp != nil {
		t.Errorf("a mate's cp is %v, want null: %s", cp, out)
	}
}

// A centipawn score is cp with mate null; a player without a score has
// neither.
func TestEvalFENScoreIsCPOrMate(t *testing.T) {
	const start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
	for player, want := range map[string]string{"heuristic:depth=1": "cp", "random": ""} {
		s, out, _ := playStreams("")
		if err := runEval(context.Background(), &evalOptions{Player: player, FEN: start, JSON: true}, s); err != nil {
			t.Fatal(err)
		}
		var res map[string]any
		if err := json.Unmarshal(out.Bytes(), &res); err != nil {
			t.Fatal(err)
		}
		_, isNumber := res["cp"].(float64)
		mate, hasMate := res["mate"]
		if isNumber != (want == "cp") || !hasMate || mate != nil || res["scored"] != (want == "cp") {
			t.Errorf("%s: JSON %s", player, out)
		}
	}
}

func TestEvalBadInput(t *testing.T) {
	for want, opts := range map[string]*evalOptions{
		"exactly one of --fen, --epd, --data or --puzzles": {Player: "heuristic", EPD: "x.epd", Puzzles: "p.csv"},
		"--explain needs the heuristic":                    {Player: "random", FEN: scholarsMate, Explain: true},
		"--fen: invalid FEN":                               {Player: "heuristic", FEN: "8/8 w"},
		"--explain works with --fen":                       {Player: "heuristic", EPD: "x.epd", Explain: true},
		"--player: empty player spec":                      {Player: "", FEN: scholarsMate},
		"--fen: the game is over":                          {Player: "heuristic", FEN: "7k/6Q1/6K1/8/8/8/8/8 b - - 0 1"},
		"a siamese player needs its weights":               {Player: "siamese", Data: "d"},
		"--workers must not be negative":                   {Player: "heuristic", EPD: "x.epd", Workers: -1},
		"--workers works with --epd, --data or --puzzles":  {Player: "heuristic", FEN: scholarsMate, Workers: 2},
	} {
		s, _, _ := playStreams("")
		err := runEval(context.Background(), opts, s)
		var usage *usageError
		if !errors.As(err, &usage) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v", want, err)
		}
	}
}

func TestEvalEPDOnWAC(t *testing.T) {
	wac := testenv.SharedData(t, "epd/wac.epd")
	s, out, _ := playStreams("")
	if err := runEval(context.Background(), &evalOptions{Player: "heuristic", EPD: wac, Depth: 6, Limit: 8, JSON: true}, s); err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Solved, Total int
		Positions     []map[string]any
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	// Most of the first WAC positions are short tactics a depth-6 search
	// finds (depth 4 was enough before late-move reductions).
	if rep.Total != 8 || rep.Solved < 5 || len(rep.Positions) != 8 || rep.Positions[0]["id"] != "WAC.001" {
		t.Errorf("solved %d of %d: %s", rep.Solved, rep.Total, out)
	}
}

func TestEvalEPDAvoidMoves(t *testing.T) {
	suite := filepath.Join(t.TempDir(), "suite.epd")
	// The rook on a2 leaves the king on h1 one legal move, Kg1; without it
	// the king has three. So even a random mover's results are certain.
	os.WriteFile(suite, []byte(`k7/8/8/8/8/8/r7/7K w - - bm Kg1; id "forced";
k7/8/8/8/8/8/8/7K w - - am Kg1 Kg2 Kh2; id "all avoided";
k7/8/8/8/8/8/8/7K w - - bm Kg1 Kg2 Kh2; id "any";
k7/8/8/8/8/8/8/7K w - - id "no opcodes, skipped";
`), 0o644)
	s, out, _ := playStreams("")
	if err := runEval(context.Background(), &evalOptions{Player: "random", EPD: suite, JSON: true}, s); err != nil {
		t.Fatal(err)
	}
	var rep evaluate.EPDReport
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Total != 3 || rep.Solved != 2 || !rep.Positions[0].Solved || rep.Positions[1].Solved || !rep.Positions[2].Solved {
		t.Errorf("got %s", out)
	}

}

// TestEvalEPDSkipsBadLines: a line that is not EPD or whose bm is not a
// legal move is skipped, counted and reported with its line number, as
// ingest does; the run goes on. --strict stops at the first one.
func TestEvalEPDSkipsBadLines(t *testing.T) {
	suite := filepath.Join(t.TempDir(), "suite.epd")
	os.WriteFile(suite, []byte(`k7/8/8/8/8/8/r7/7K w - - bm Kg1; id "forced";
k7/8/8/8/8/8/r7 w - - bm Kg1; id "seven ranks";
k7/8/8/8/8/8/r7/7K w - - bm Kh2; id "illegal bm";
`), 0o644)
	s, out, errOut := playStreams("")
	if err := runEval(context.Background(), &evalOptions{Player: "random", EPD: suite, JSON: true}, s); err != nil {
		t.Fatal(err)
	}
	var rep evaluate.EPDReport
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Total != 1 || rep.Solved != 1 || rep.Skipped == nil || rep.Skipped.Count != 2 {
		t.Fatalf("got %s", out)
	}
	for _, want := range []string{"line 2: invalid FEN", "line 3: bm Kh2 is not a legal move for White in this position"} {
		if !strings.Contains(errOut.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	s, out, _ = playStreams("")
	if err := runEval(context.Background(), &evalOptions{Player: "random", EPD: suite}, s); err != nil || !strings.Contains(out.String(), "solved 1 of 1") {
		t.Errorf("text run: %v\n%s", err, out)
	}

	s, _, _ = playStreams("")
	err := runEval(context.Background(), &evalOptions{Player: "random", EPD: suite, Strict: true}, s)
	if err == nil || !strings.Contains(err.Error(), "line 2: invalid FEN") || !strings.Contains(err.Error(), "--strict") {
		t.Fatalf("--strict: %v", err)
	}
	s, _, _ = playStreams("")
	var usage *usageError
	if err := runEval(context.Background(), &evalOptions{Player: "random", FEN: scholarsMate, Strict: true}, s); !errors.As(err, &usage) {
		t.Errorf("--strict with --fen: %v", err)
	}
}
