package evaluate

import (
	"strings"
	"testing"

	"github.com/dchess/dchess/search/heuristic"
)

func TestFENResultText(t *testing.T) {
	cp, mate := 37, 3
	scored := &FENResult{Move: "g1f3", SAN: "Nf3", CP: &cp, Scored: true, Depth: 6, Nodes: 1234, PV: []string{"Nf3", "Nc6"}}
	if got, want := scored.Text(), "Move: Nf3 (g1f3)\nScore: +0.37 (side to move), depth 6, 1234 nodes\nLine: Nf3 Nc6\n"; got != want {
		t.Errorf("scored: %q, want %q", got, want)
	}
	mates := &FENResult{Move: "d8h4", SAN: "Qh4#", Mate: &mate, Scored: true, Depth: 5, Nodes: 10}
	if got, want := mates.Text(), "Move: Qh4# (d8h4)\nScore: mate in 3 (side to move), depth 5, 10 nodes\n"; got != want {
		t.Errorf("mate: %q, want %q", got, want)
	}
	unscored := &FENResult{Move: "e2e4", SAN: "e4"}
	if got, want := unscored.Text(), "Move: e4 (e2e4)\n"; got != want {
		t.Errorf("no score: %q, want %q", got, want)
	}
	explained := &FENResult{Move: "e2e4", SAN: "e4", Explain: &heuristic.Breakdown{Phase: 0.5,
		Material: heuristic.Term{MG: 100, EG: 120, Blended: 110}, Total: heuristic.Term{MG: 100, EG: 120, Blended: 110}}}
	got := explained.Text()
	for _, want := range []string{
		"\nStatic evaluation, centipawns from White's view (phase 0.50: 1 opening, 0 endgame):\n",
		"     component  middlegame  endgame  blended\n",
		"      material         100      120      110\n",
		"         total         100      120      110\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("explained: %q lacks %q", got, want)
		}
	}
}

func TestReportTexts(t *testing.T) {
	epd := &EPDReport{Player: "heuristic", Solved: 3, Total: 4}
	if got, want := epd.Text(), "heuristic solved 3 of 4 (75.0 %)\n"; got != want {
		t.Errorf("epd: %q, want %q", got, want)
	}
	pairs := &PairReport{Player: "siamese", Split: "test", Pairs: 10, Correct: 7.5, Ties: 1, Accuracy: 0.75}
	if got, want := pairs.Text(), "siamese: pair accuracy 75.0% (7.5 of 10 test pairs: one position from a game White won, one from a game Black won; 1 ties scored as half)\n"; got != want {
		t.Errorf("pairs: %q, want %q", got, want)
	}
	puzzles := &PuzzleReport{Player: "heuristic", Puzzles: 3, Solved: 2, Rate: 2.0 / 3, MsPerMove: 1.25,
		Buckets: []PuzzleBucket{{From: 1000, Puzzles: 1, Solved: 1, Rate: 1}, {From: 1400, Puzzles: 2, Solved: 1, Rate: 0.5}}}
	want := "heuristic: solved 2 of 3 puzzles (66.7%), 1.2 ms per move\n" +
		"     rating  puzzles  solved      %\n" +
		"  1000-1199        1       1  100.0\n" +
		"  1400-1599        2       1   50.0\n"
	if got := puzzles.Text(); got != want {
		t.Errorf("puzzles:\n%s\nwant\n%s", got, want)
	}
}

// TestDataReportText: the accuracy line, the value lines, the decoder's
// lines and the --steps table, each only when the report has it.
func TestDataReportText(t *testing.T) {
	plain := &DataReport{Player: "heuristic", Split: "test", Positions: 200, Correct: 50, Accuracy: 0.25, MsPerMove: 2,
		Value: &ValueReport{Positions: 200, MSE: 0.04, SignAgreement: 0.8, Within01: 0.5, Quiet: &ValueReport{Positions: 120, MSE: 0.03, SignAgreement: 0.9, Within01: 0.6}}}
	want := "heuristic: action accuracy 25.0% (50 of 200 test positions play Stockfish's best move), 2.0 ms per move\n" +
		"static evaluation against Stockfish's win probability: MSE 0.04000, sign agreement 80.0%, within 0.1 50.0% (200 positions)\n" +
		"  on the quiet ones (not in check, best move not a capture): MSE 0.03000, sign agreement 90.0%, within 0.1 60.0% (120 positions)\n"
	if got := plain.Text(); got != want {
		t.Errorf("a searching player:\n%s\nwant\n%s", got, want)
	}
	im := &ImaginedReport{All: ImaginedScores{StatePositions: 10, StateExact: 4, StateTokenAccuracy: 0.9, StateExactRate: 0.4,
		NextActionPositions: 8, NextActionCorrect: 2, NextActionAccuracy: 0.25}}
	d := DecodingReport{Steps: 5, Positions: 10, Accuracy: 0.3, MsPerMove: 4, UnrestrictedLegal: 9, UnrestrictedLegalRate: 0.9,
		LegalCrossEntropy: 1.5, UniformLegalCrossEntropy: 3.2, Imagined: im}
	masked := d
	masked.Steps, masked.LegalMask, masked.Imagined = 1, true, nil
	seq := &DataReport{Player: "diffusion", Split: "test", Positions: 10, Correct: 3, Accuracy: 0.3, MsPerMove: 4,
		Decoding: &d, Sweep: []DecodingReport{masked, d}}
	got := seq.Text()
	for _, want := range []string{
		"decoding with T = 5: the unrestricted a_i (argmax over all 1968 moves) is legal in 90.0% (9 of 10)\n",
		"cross-entropy of Stockfish's move over the legal moves: 1.500 nats (a uniform choice among them: 3.200)\n",
		"imagined s_{i+1} after Stockfish's a_i: 90.0% of its 70 tokens right, whole block exact in 40.0% (4 of 10)\n",
		"imagined a_{i+1}: 25.0% is Stockfish's second move (2 of 8); when a_i is right: 0.0% (0 of 0)\n",
		"  T  action %  ms/move  legal a_i %  s_{i+1} tokens %  s_{i+1} exact %  a_{i+1} %\n",
		"  1      30.0      4.0         90.0                 -                -          -\n",
		"  5      30.0      4.0         90.0              90.0             40.0       25.0\n",
		"legal a_i is 100% by construction: the model was trained with legal_mask\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("a sequence player: lacks %q in\n%s", want, got)
		}
	}
}
