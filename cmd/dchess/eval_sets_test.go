package main

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dchess/dchess/dataset"
	"github.com/dchess/dchess/dataset/datasettest"
	"github.com/dchess/dchess/dataset/encode"
	"github.com/dchess/dchess/internal/chess/board"
	"github.com/dchess/dchess/internal/chess/pgn"
	"github.com/dchess/dchess/models/dcw"
	"github.com/dchess/dchess/models/diffusion"
	"github.com/dchess/dchess/models/family"
	"github.com/dchess/dchess/models/flow"
	"github.com/dchess/dchess/models/transformer"
	"github.com/dchess/dchess/pipeline/evaluate"
	"github.com/dchess/dchess/search/heuristic"
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
	var rep evaluate.PuzzleReport
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

// TestEvalPuzzlesSkipsBadRows: rows that are not puzzles are skipped,
// counted and reported with their line numbers; --strict stops at the
// first, as a usage error like the file's other faults.
func TestEvalPuzzlesSkipsBadRows(t *testing.T) {
	path := filepath.Join(t.TempDir(), "puzzles.csv")
	csv := "PuzzleId,FEN,Moves,Rating\n" +
		"a," + backRankMate + ",g8h8 a1a8,1510\n" +
		"short\n" +
		"c," + backRankMate + ",g8h8 a1a8,easy\n" +
		"d," + backRankMate + ",g8h8 a1a9,1500\n" +
		"e," + backRankMate + ",g8h8 a1a8,1700\n"
	if err := os.WriteFile(path, []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	s, out, errOut := playStreams("")
	if err := runEval(context.Background(), &evalOptions{Player: "heuristic:depth=2", Puzzles: path, JSON: true}, s); err != nil {
		t.Fatal(err)
	}
	var rep evaluate.PuzzleReport
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Puzzles != 2 || rep.Solved != 2 || rep.Skipped == nil || rep.Skipped.Count != 3 {
		t.Fatalf("report %s", out)
	}
	for _, want := range []string{"line 3: too few columns", "line 4: want a rating", "line 5: move 2 of the line, a1a9, is not legal"} {
		if !strings.Contains(errOut.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	s, _, _ = playStreams("")
	err := runEval(context.Background(), &evalOptions{Player: "heuristic", Puzzles: path, Strict: true}, s)
	var usage *usageError
	if !errors.As(err, &usage) || !strings.Contains(err.Error(), "line 3: too few columns (stopping: --strict)") {
		t.Errorf("--strict: %v", err)
	}
}

func TestEvalDataActionAccuracy(t *testing.T) {
	// A mate in one, which the search finds, and a position whose listed
	// best move is a quiet a1a2 the search does not play (Ra8 still mates).
	var recs []*dataset.Record
	for i, fen := range []string{"7k/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1", "7k/5ppp/8/8/8/7P/5PP1/R5K1 w - - 0 1"} {
		best := []string{"a1a8", "a1a2"}[i]
		recs = append(recs, &dataset.Record{FEN: fen, Key: dataset.PositionKey(fen), GameID: uint64(i),
			Label: &dataset.Label{Status: dataset.LabelOK, BestMove: best, PV: []string{best}}})
	}
	dir := datasettest.Write(t, filepath.Join(t.TempDir(), "data"), dataset.WriteOptions{}, recs)
	s, out, errOut := playStreams("")
	if err := runEval(context.Background(), &evalOptions{Player: "heuristic:depth=2", Data: dir, JSON: true}, s); err != nil {
		t.Fatal(err)
	}
	var rep evaluate.DataReport
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

// writeBiasWeights writes weights of the tiny test config of family that
// predict by their output biases alone (diffusion.BiasOnlyWeights): every
// action slot by actionBias, every state slot an empty square; a_i over
// the legal moves only with legalMask.
func writeBiasWeights(t *testing.T, name string, actionBias map[string]float32, legalMask bool) string {
	t.Helper()
	cfg, err := family.LoadConfig(filepath.Join("..", "..", "configs", "test", name+".yaml"), name)
	if err != nil {
		t.Fatal(err)
	}
	var f *dcw.File
	switch c := cfg.Model.Settings.(type) {
	case *diffusion.Config:
		dc := *c
		dc.LegalMask = legalMask
		f, err = diffusion.BiasOnlyWeights(dc, actionBias, encode.TokenEmpty)
	case *flow.Config:
		fc := *c
		fc.LegalMask = legalMask
		f, err = flow.BiasOnlyWeights(fc, actionBias, encode.TokenEmpty)
	default:
		t.Fatalf("%s is not a sequence family", name)
	}
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), name+".dcw")
	if err := dcw.Write(path, f); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestEvalDataSequenceDecoding scores a model whose every action slot
// predicts a1a8 (h2g3 is its second choice) and every state slot an empty
// square, so each number is known:
//
//	position              line        a_i    unrestricted  s_{i+1} right  a_{i+1}
//	R on a1, mate in one  a1a8        right  legal         55 of 70       -
//	R on a1, best a1a2    a1a2 h7h6   wrong  legal         55 of 70       wrong
//	black R on a1         h2g3 a1a8   right  illegal       61 of 70       right
//
// (s_{i+1}'s empty squares are right, a_i's origin among them; its side,
// castling and en-passant tokens are not, nor its pieces: 1 on a_i's
// destination and 8, 8 and 2 on other squares.)
func TestEvalDataSequenceDecoding(t *testing.T) {
	var recs []*dataset.Record
	for i, pos := range []struct{ fen, pv string }{
		{"7k/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1", "a1a8"},
		{"7k/5ppp/8/8/8/7P/5PP1/R5K1 w - - 0 1", "a1a2 h7h6"},
		{"7k/8/8/8/8/8/7K/r7 w - - 0 1", "h2g3 a1a8"},
	} {
		pv := strings.Fields(pos.pv)
		recs = append(recs, &dataset.Record{FEN: pos.fen, Key: dataset.PositionKey(pos.fen), GameID: uint64(i),
			Label: &dataset.Label{Status: dataset.LabelOK, BestMove: pv[0], PV: pv}})
	}
	dir := datasettest.Write(t, filepath.Join(t.TempDir(), "data"), dataset.WriteOptions{}, recs)
	bias := map[string]float32{"a1a8": 10, "h2g3": 5}
	model := writeBiasWeights(t, diffusion.Family, bias, false)
	want := evaluate.ImaginedReport{
		All: evaluate.ImaginedScores{StatePositions: 3, StateTokensCorrect: 55 + 55 + 61, StateTokenAccuracy: 171.0 / 210,
			StateWrong:          transformer.WrongTokens{Destination: 3, OtherSquares: 8 + 8 + 2, SideCastlingPassant: 3 * 6},
			NextActionPositions: 2, NextActionCorrect: 1, NextActionAccuracy: 0.5},
		GivenActionRight: evaluate.ImaginedScores{StatePositions: 2, StateTokensCorrect: 55 + 61, StateTokenAccuracy: 116.0 / 140,
			StateWrong:          transformer.WrongTokens{Destination: 2, OtherSquares: 8 + 2, SideCastlingPassant: 2 * 6},
			NextActionPositions: 1, NextActionCorrect: 1, NextActionAccuracy: 1},
	}
	// Flow with the mask source reads the same biases to the same tokens
	// (the sampler's order does not matter when every slot is certain).
	var rep evaluate.DataReport
	for _, spec := range []string{"flow:" + writeBiasWeights(t, flow.Family, bias, false), "diffusion:" + model} {
		s, out, _ := playStreams("")
		if err := runEval(context.Background(), &evalOptions{Player: spec, Data: dir, Steps: []int{1, 4}, JSON: true}, s); err != nil {
			t.Fatal(err)
		}
		rep = evaluate.DataReport{}
		if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
			t.Fatal(err)
		}
		if rep.Positions != 3 || rep.Correct != 2 || rep.Decoding == nil || len(rep.Sweep) != 2 {
			t.Fatalf("%s: report %+v", spec[:4], rep)
		}
		// The configured T = 4 first, then the sweep in the order given.
		for i, d := range []evaluate.DecodingReport{*rep.Decoding, rep.Sweep[0], rep.Sweep[1]} {
			if wantSteps := []int{4, 1, 4}[i]; d.Steps != wantSteps {
				t.Errorf("%s: report %d decodes in %d steps, want %d", spec[:4], i, d.Steps, wantSteps)
			}
			if d.Positions != 3 || d.Correct != 2 || d.UnrestrictedLegal != 2 || d.UnrestrictedLegalRate != 2.0/3 {
				t.Errorf("%s, T=%d: %+v", spec[:4], d.Steps, d)
			}
			if d.Imagined == nil || *d.Imagined != want {
				t.Errorf("%s, T=%d imagined %+v, want %+v", spec[:4], d.Steps, d.Imagined, want)
			}
		}
	}

	// The legal-move cross-entropy from the biases by hand: Stockfish's
	// move's logit against every legal move's (a1a8 10, h2g3 5, the rest 0).
	var ce, uniform float64
	for _, pos := range []struct {
		fen, best string
	}{{"7k/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1", "a1a8"}, {"7k/5ppp/8/8/8/7P/5PP1/R5K1 w - - 0 1", "a1a2"}, {"7k/8/8/8/8/8/7K/r7 w - - 0 1", "h2g3"}} {
		b, _ := board.FromFEN(pos.fen)
		var sum float64
		for _, m := range b.LegalMoves() {
			sum += math.Exp(float64(bias[board.UCI(m)]))
		}
		ce += (math.Log(sum) - float64(bias[pos.best])) / 3
		uniform += math.Log(float64(len(b.LegalMoves()))) / 3
	}
	if d := rep.Decoding; math.Abs(d.LegalCrossEntropy-ce) > 1e-4 || math.Abs(d.UniformLegalCrossEntropy-uniform) > 1e-9 {
		t.Errorf("legal cross-entropy %.6f (uniform %.6f), want %.6f (%.6f)", d.LegalCrossEntropy, d.UniformLegalCrossEntropy, ce, uniform)
	}

	s, out, _ := playStreams("")
	opts := &evalOptions{Player: "diffusion:" + model, Data: dir, Steps: []int{1, 4}}
	if err := runEval(context.Background(), opts, s); err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{"legal in 66.7% (2 of 3)", "81.4% of its 70 tokens right", "when a_i is right: 82.9% of tokens",
		"its wrong tokens: 0 on a_i's origin square, 2 on its destination, 10 on other squares, 12 side to move",
		"imagined a_{i+1}: 50.0%", "T  action %", "s_{i+1} exact %"} {
		if !strings.Contains(out.String(), line) {
			t.Errorf("no %q in\n%s", line, out.String())
		}
	}

	// Trained with legal_mask, the model's a_i has no mass on illegal
	// moves: the unrestricted a_i is legal everywhere, which the report
	// says is trivial, and the legal moves' cross-entropy is as before.
	masked := writeBiasWeights(t, diffusion.Family, bias, true)
	for _, asJSON := range []bool{true, false} {
		s, out, _ = playStreams("")
		if err := runEval(context.Background(), &evalOptions{Player: "diffusion:" + masked, Data: dir, Steps: []int{1, 4}, JSON: asJSON}, s); err != nil {
			t.Fatal(err)
		}
		if !asJSON {
			for _, line := range []string{"legal in 100.0% (3 of 3) (trivially: trained with legal_mask", "legal a_i is 100% by construction"} {
				if !strings.Contains(out.String(), line) {
					t.Errorf("no %q in\n%s", line, out.String())
				}
			}
			continue
		}
		rep = evaluate.DataReport{}
		if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
			t.Fatal(err)
		}
		d := rep.Decoding
		if rep.Correct != 2 || d == nil || !d.LegalMask || d.UnrestrictedLegal != 3 || len(rep.Sweep) != 2 || !rep.Sweep[0].LegalMask {
			t.Fatalf("legal_mask report %+v, decoding %+v", rep, d)
		}
		if math.Abs(d.LegalCrossEntropy-ce) > 1e-4 {
			t.Errorf("legal_mask: legal cross-entropy %.6f, want %.6f", d.LegalCrossEntropy, ce)
		}
	}

	// The policy decodes in the same way, with nothing imagined.
	policy := writeBiasWeights(t, diffusion.PolicyFamily, bias, false)
	s, out, _ = playStreams("")
	if err := runEval(context.Background(), &evalOptions{Player: "policy:" + policy, Data: dir, JSON: true}, s); err != nil {
		t.Fatal(err)
	}
	rep = evaluate.DataReport{}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	if d := rep.Decoding; rep.Correct != 2 || d == nil || d.Steps != 1 || d.UnrestrictedLegal != 2 || d.Imagined != nil || rep.Sweep != nil {
		t.Errorf("policy report %+v, decoding %+v", rep, d)
	}

	for _, bad := range []struct {
		opts evalOptions
		want string
	}{
		{evalOptions{Player: "policy:" + policy, Data: dir, Steps: []int{2}}, "--steps sweeps a diffusion or flow player"},
		{evalOptions{Player: "heuristic", Data: dir, Steps: []int{2}}, "--steps sweeps a diffusion or flow player"},
		{evalOptions{Player: "diffusion:" + model, Data: dir, Steps: []int{2, 0}}, "must be in 1..1000"},
		{evalOptions{Player: "diffusion:" + model, Data: dir, Steps: []int{2, 5, 2}}, "lists 2 twice"},
		{evalOptions{Player: "diffusion:" + model, FEN: "7k/8/8/8/8/8/7K/r7 w - - 0 1", Steps: []int{2}}, "--steps works with --data"},
		{evalOptions{Player: "diffusion:" + model + "?depth=3", Data: dir}, `unknown setting "depth"`},
		{evalOptions{Player: "policy:" + model, Data: dir}, "holds diffusion weights"},
	} {
		s, _, _ := playStreams("")
		if err := runEval(context.Background(), &bad.opts, s); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%+v: %v, want %q", bad.opts, err, bad.want)
		}
	}
}

// TestEvalDataScoresTheStaticEvaluation labels one position with the
// heuristic's own win probability and another with its opposite, so the
// value figures are known: half the signs agree, half the predictions are
// within 0.1, and the squared error is the second position's alone. A
// third, in check and labelled with the heuristic's own figure, counts in
// the whole report but not among the quiet positions.
func TestEvalDataScoresTheStaticEvaluation(t *testing.T) {
	var predicted [3]float32
	var recs []*dataset.Record
	for i, fen := range []string{"7k/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1", "7k/5ppp/8/8/8/7P/5PP1/R5K1 w - - 0 1",
		"7k/5ppp/8/8/8/7P/5PP1/r5K1 w - - 0 1"} {
		b, err := board.FromFEN(fen)
		if err != nil {
			t.Fatal(err)
		}
		predicted[i] = dataset.WinProbability(int32(heuristic.New().Evaluate(b)), 0)
		label := predicted[i]
		if i == 1 {
			label = 1 - predicted[i]
		}
		best := "a1a8"
		if i == 2 {
			best = "g1h2"
		}
		recs = append(recs, &dataset.Record{FEN: fen, Key: dataset.PositionKey(fen), GameID: uint64(i),
			Label: &dataset.Label{Status: dataset.LabelOK, BestMove: best, PV: []string{best}, WinProb: label}})
	}
	dir := datasettest.Write(t, filepath.Join(t.TempDir(), "data"), dataset.WriteOptions{}, recs)
	if predicted[1] < 0.6 {
		t.Fatalf("the heuristic gives a rook up only %.3f", predicted[1])
	}
	s, out, _ := playStreams("")
	if err := runEval(context.Background(), &evalOptions{Player: "heuristic:depth=1,name=h", Data: dir, JSON: true}, s); err != nil {
		t.Fatal(err)
	}
	var rep evaluate.DataReport
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	d := float64(2*predicted[1] - 1)
	v := rep.Value
	if v == nil || v.Positions != 3 || math.Abs(v.SignAgreement-2.0/3) > 1e-9 || math.Abs(v.Within01-2.0/3) > 1e-9 ||
		math.Abs(v.MSE-d*d/3) > 1e-6 {
		t.Fatalf("value report %+v, want MSE %.6f and two thirds of the signs and nearness", v, d*d/3)
	}
	if q := v.Quiet; q == nil || q.Positions != 2 || q.SignAgreement != 0.5 || q.Within01 != 0.5 ||
		math.Abs(q.MSE-d*d/2) > 1e-6 {
		t.Fatalf("quiet positions' report %+v, want MSE %.6f and half the signs and nearness", v.Quiet, d*d/2)
	}
}

// TestEvalPairsBySearchScores scores a searching player on the pairs of a
// dataset where the side ahead in material won every game: a depth-1
// search, material and quiescence from White's side, names the White win
// in about three pairs of four (one of four with the sides mixed up; the
// random boards leave pieces hanging), and a player without scores is
// refused.
func TestEvalPairsBySearchScores(t *testing.T) {
	data := decisiveDataset(t, 400)
	if _, err := dataset.WriteSplit(data, 0, 0.3, 1); err != nil {
		t.Fatal(err)
	}
	rep := evalPairsJSON(t, &evalOptions{Player: "heuristic:depth=1", Data: data, Pairs: true})
	if rep.Split != "test" || rep.Pairs < 20 || rep.Accuracy < 0.65 {
		t.Fatalf("pairs report %+v, want at least 65%% of 20 or more test pairs", rep)
	}
	s, _, _ := playStreams("")
	err := runEval(context.Background(), &evalOptions{Player: "random", Data: data, Pairs: true}, s)
	if err == nil || !strings.Contains(err.Error(), "gives no score") {
		t.Fatalf("random with --pairs: %v", err)
	}
}

// TestEvalPairsCountsUnreadableRecords: a record whose position does not
// parse is counted, not silently dropped, and the pair around it stands.
func TestEvalPairsCountsUnreadableRecords(t *testing.T) {
	recs := []*dataset.Record{
		{FEN: "4k3/8/8/8/8/8/8/R3K3 w - - 0 30", Result: pgn.WhiteWin, Move: "e1e2"},
		{FEN: "not a position", Result: pgn.WhiteWin, Move: "e2e4"},
		{FEN: "r3k3/8/8/8/8/8/8/4K3 w - - 0 30", Result: pgn.BlackWin, Move: "e1e2"},
	}
	for i, r := range recs {
		r.GameID, r.Ply, r.Key = uint64(i), 20, uint64(i+1)
	}
	dir := datasettest.Write(t, filepath.Join(t.TempDir(), "data"), dataset.WriteOptions{}, recs)
	rep := evalPairsJSON(t, &evalOptions{Player: "heuristic:depth=1", Data: dir, Pairs: true})
	if rep.Pairs != 1 || rep.Unreadable != 1 || rep.Accuracy != 1 {
		t.Fatalf("pairs report %+v, want one pair judged right and one unreadable record", rep)
	}
}

// evalPairsJSON runs eval with --json and decodes its pair report.
func evalPairsJSON(t *testing.T, opts *evalOptions) evaluate.PairReport {
	t.Helper()
	s, out, _ := playStreams("")
	opts.JSON = true
	if err := runEval(context.Background(), opts, s); err != nil {
		t.Fatal(err)
	}
	var rep evaluate.PairReport
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("eval --json output %q: %v", out.String(), err)
	}
	return rep
}
