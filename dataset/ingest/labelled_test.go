package ingest

import (
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/dchess/dchess/dataset"
	"github.com/dchess/dchess/internal/chess/epd"
	"github.com/dchess/dchess/internal/testenv"
)

func labelledRun(t *testing.T, format Format, view ScoreView, text string) ([]dataset.Record, *Summary) {
	t.Helper()
	opts := DefaultOptions()
	opts.Format, opts.ScoreView = format, view
	return ingestText(t, text, opts)
}

func checkLabel(t *testing.T, r dataset.Record, cp, mate int32, best string) {
	t.Helper()
	l := r.Label
	if l == nil || l.Status != dataset.LabelOK || l.CP != cp || l.Mate != mate || l.BestMove != best {
		t.Errorf("%s: label %+v, want cp %d mate %d best %q", r.FEN, l, cp, mate, best)
		return
	}
	if l.WinProb != dataset.WinProbability(cp, mate) {
		t.Errorf("%s: win probability %v", r.FEN, l.WinProb)
	}
	if r.Key != dataset.PositionKey(r.FEN) || r.GameID != r.Key {
		t.Errorf("%s: key %x game %x", r.FEN, r.Key, r.GameID)
	}
}

func TestLichessEvals(t *testing.T) {
	text := strings.Join([]string{
		// Black to move, +50 for White: -50 for the side to move. The
		// deepest eval wins; castling is written king-takes-rook.
		`{"fen":"r3k2r/8/8/8/8/8/8/R3K2R b KQkq -","evals":[{"pvs":[{"cp":50,"line":"e8h8 e1a1"}],"knodes":100,"depth":20},{"pvs":[{"cp":35,"line":"e8a8"}],"knodes":10,"depth":12}]}`,
		// White to move and mates in one.
		`{"fen":"6k1/5ppp/8/8/8/8/8/R5K1 w - -","evals":[{"pvs":[{"mate":1,"line":"a1a8"}],"knodes":1,"depth":99}]}`,
		// Black to move, White's view says Black mates in 2: +2 for Black.
		`{"fen":"6k1/8/8/8/8/8/r4PPP/6K1 b - -","evals":[{"pvs":[{"mate":-1,"line":"a2a1"}],"knodes":1,"depth":30}]}`,
		`{"fen": "not a fen", "evals": []}`,
		`{"fen":"6k1/8/8/8/8/8/8/R5K1 w - -","evals":[{"pvs":[{"cp":900,"line":"a1a9"}],"depth":5}]}`,
		`not json`,
		``,
	}, "\n")
	recs, sum := labelledRun(t, FormatLichessEvals, ViewDefault, text)
	if len(recs) != 3 || sum.LinesRead != 6 || sum.LinesKept != 3 || sum.LinesBad != 3 {
		t.Fatalf("%d records, summary %+v", len(recs), sum)
	}
	checkLabel(t, recs[0], -50, 0, "e8g8")
	if l := recs[0].Label; !reflect.DeepEqual(l.PV, []string{"e8g8", "e1c1"}) || l.Depth != 20 || l.Nodes != 100000 || l.Engine != "import:lichess-evals" {
		t.Errorf("label %+v", l)
	}
	if recs[0].FEN != "r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1" {
		t.Errorf("FEN %s", recs[0].FEN)
	}
	checkLabel(t, recs[1], 0, 1, "a1a8")
	checkLabel(t, recs[2], 0, 1, "a2a1")
	if !strings.HasPrefix(sum.FirstErrors[0], "line 4: invalid FEN") ||
		sum.FirstErrors[1] != `line 5: bad UCI move "a1a9"` ||
		!strings.HasPrefix(sum.FirstErrors[2], "line 6: bad JSON") {
		t.Errorf("errors %q", sum.FirstErrors)
	}
}

func TestCSVWhiteViewConverted(t *testing.T) {
	text := "FEN,Evaluation\n" +
		"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1,-10\n" +
		"rnbqkbnr/pppp1ppp/4p3/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2,+56\n" +
		"6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1,#+3\n" +
		"6k1/8/8/8/8/8/r4PPP/6K1 b - - 0 1,#-2\n" +
		"6k1/8/8/8/8/8/r4PPP/6K1 b - - 0 1,abc\n" +
		"garbage,12\n"
	recs, sum := labelledRun(t, FormatCSV, ViewDefault, text)
	if len(recs) != 4 || sum.LinesRead != 6 || sum.LinesBad != 2 {
		t.Fatalf("%d records, summary %+v", len(recs), sum)
	}
	checkLabel(t, recs[0], 10, 0, "")
	checkLabel(t, recs[1], 56, 0, "")
	checkLabel(t, recs[2], 0, 3, "")
	checkLabel(t, recs[3], 0, 2, "")
	if len(sum.FirstErrors) != 2 || sum.FirstErrors[0] != `line 6: bad evaluation "abc"` || !strings.HasPrefix(sum.FirstErrors[1], "line 7: invalid FEN") {
		t.Errorf("errors %q", sum.FirstErrors)
	}
	// Told the scores are already from the side to move, they are kept.
	recs, _ = labelledRun(t, FormatCSV, ViewSideToMove, text)
	checkLabel(t, recs[0], -10, 0, "")
	checkLabel(t, recs[3], 0, -2, "")
}

func TestEPD(t *testing.T) {
	text := "# a comment\n" +
		`rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - ce 35; bm e4; pv e4 e5 Nf3; acd 12; acn 5000; id "a;b";` + "\n" +
		"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - ce -20; bm Nf6;\n" +
		"6k1/5ppp/8/8/8/8/8/R5K1 w - - dm 1; bm Ra8#;\n" +
		"4k3/8/8/8/8/8/8/4K2R w K - bm O-O; id \"unscored\";\n" +
		"6k1/5ppp/8/8/8/8/8/R5K1 w - - ce 10; bm Ke9;\n" +
		// Unscored, so kept unlabelled, but its answer is wrong: said, not dropped.
		"4k3/8/8/8/8/8/8/4K2R w K - bm O-O-O; id \"typo\";\n" +
		"4k3/8/8/8/8/8/8/4K2R w K - ce 5; pv O-O Kd7 Ke2;\n"
	recs, sum := labelledRun(t, FormatEPD, ViewDefault, text)
	if len(recs) != 4 || sum.LinesRead != 7 || sum.LinesBad != 3 {
		t.Fatalf("%d records, summary %+v", len(recs), sum)
	}
	checkLabel(t, recs[0], 35, 0, "e2e4")
	if l := recs[0].Label; !reflect.DeepEqual(l.PV, []string{"e2e4", "e7e5", "g1f3"}) || l.Depth != 12 || l.Nodes != 5000 || l.Engine != "import:epd" {
		t.Errorf("label %+v", l)
	}
	// ce is already from the side to move (Black here): kept as is.
	checkLabel(t, recs[1], -20, 0, "g8f6")
	checkLabel(t, recs[2], 0, 1, "a1a8")
	// A line without ce or dm (a test suite, a book) is kept unlabelled, for `dchess label`.
	if recs[3].Label != nil || recs[3].FEN != "4k3/8/8/8/8/8/8/4K2R w K - 0 1" {
		t.Errorf("unscored line gave %+v", recs[3])
	}
	if want := []string{"line 6: bm Ke9 is not a legal move for White in this position",
		"line 7: bm O-O-O is not a legal move for White in this position",
		"line 8: pv Ke2 is not a legal move for White in this position, after O-O Kd7"}; !reflect.DeepEqual(sum.FirstErrors, want) {
		t.Errorf("errors %q", sum.FirstErrors)
	}
}

// Every line of the deepest evaluation is kept: the first as the label,
// the others as its MultiPV lines, all turned to the side to move.
func TestLichessEvalsKeepEveryLine(t *testing.T) {
	text := strings.Join([]string{
		// Black to move; White's view: +30, +45, mate for White in 3, and
		// a shallower evaluation that is not taken.
		`{"fen":"r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq -","evals":[{"pvs":[{"cp":20,"line":"f1b5"}],"depth":10,"knodes":5}]}`,
		`{"fen":"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq -","evals":[` +
			`{"pvs":[{"cp":30,"line":"c7c5 g1f3"},{"cp":45,"line":"e7e5"},{"mate":3,"line":"g7g5"}],"knodes":900,"depth":36},` +
			`{"pvs":[{"cp":10,"line":"e7e6"},{"cp":11,"line":"d7d5"}],"knodes":9,"depth":20}]}`,
		// A further line with an illegal move is left out and said; the position is kept.
		`{"fen":"6k1/5ppp/8/8/8/8/8/R5K1 w - -","evals":[{"pvs":[{"mate":1,"line":"a1a8"},{"cp":5,"line":"a1a9"},{"cp":3,"line":"g1f1"}],"depth":40}]}`,
	}, "\n")
	recs, sum := labelledRun(t, FormatLichessEvals, ViewDefault, text)
	if len(recs) != 3 || sum.LinesKept != 3 || sum.Errors != 1 {
		t.Fatalf("%d records, summary %+v", len(recs), sum)
	}
	if l := recs[0].Label; l.CP != 20 || l.MultiPV != nil {
		t.Errorf("one line: label %+v", l)
	}
	checkLabel(t, recs[1], -30, 0, "c7c5")
	want := []dataset.PVLine{{CP: -45, PV: []string{"e7e5"}}, {Mate: -3, PV: []string{"g7g5"}}}
	if l := recs[1].Label; !reflect.DeepEqual(l.MultiPV, want) || l.Depth != 36 || !reflect.DeepEqual(l.PV, []string{"c7c5", "g1f3"}) {
		t.Errorf("multi-PV label %+v, lines %+v", l, l.MultiPV)
	}
	checkLabel(t, recs[2], 0, 1, "a1a8")
	if l := recs[2].Label; !reflect.DeepEqual(l.MultiPV, []dataset.PVLine{{CP: 3, PV: []string{"g1f1"}}}) {
		t.Errorf("lines %+v", l.MultiPV)
	}
	if want := `line 3: pvs[1] of the deepest evaluation left out: bad UCI move "a1a9"`; len(sum.FirstErrors) != 1 || sum.FirstErrors[0] != want {
		t.Errorf("errors %q", sum.FirstErrors)
	}
}

// An EPD line's bm, am, id, c0 (every operation a label does not hold)
// are kept as the record's notes, readable as EPD again.
func TestEPDOperationsAreKeptAsNotes(t *testing.T) {
	recs, _ := labelledRun(t, FormatEPD, ViewDefault,
		`rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - ce 35; bm e4 d4; pv e4 e5; acd 12; id "a;b"; c0 "two words";`+"\n"+
			"4k3/8/8/8/8/8/8/4K2R w K - ce 5;\n")
	if got := recs[0].Notes; got != `bm e4 d4; c0 "two words"; id "a;b";` {
		t.Errorf("notes %q", got)
	}
	checkLabel(t, recs[0], 35, 0, "e2e4")
	if recs[1].Notes != "" {
		t.Errorf("a line with only a score got notes %q", recs[1].Notes)
	}

	f, err := os.ReadFile(testenv.SharedData(t, "epd/wac.epd"))
	if err != nil {
		t.Fatal(err)
	}
	recs, sum := labelledRun(t, FormatEPD, ViewDefault, string(f))
	if len(recs) != 300 || sum.LinesBad != 0 {
		t.Fatalf("%d records, summary %+v", len(recs), sum)
	}
	byID := map[string]dataset.Record{}
	for _, r := range recs {
		if r.Label != nil {
			t.Fatalf("an unscored suite line got a label: %+v", r)
		}
		l, err := epd.Parse(strings.Join(strings.Fields(r.FEN)[:4], " ") + " " + r.Notes)
		if err != nil || !l.Has("bm") && !l.Has("am") {
			t.Fatalf("notes %q do not read back as EPD: %v", r.Notes, err)
		}
		byID[l.Ops["id"][0]] = r
	}
	for id, want := range map[string]string{
		"WAC.001": `bm Qg6; id "WAC.001";`,
		"WAC.150": `bm Ba3 Be5 Bf8 e3; c0 "All win but e3 is best."; id "WAC.150";`,
		"WAC.274": `am Rd6; bm Rb6 Rg5+; id "WAC.274";`,
	} {
		if got := byID[id].Notes; got != want {
			t.Errorf("%s: notes %q, want %q", id, got, want)
		}
	}
}
