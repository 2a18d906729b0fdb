package ingest

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/dchess/dchess/dataset"
	"github.com/dchess/dchess/internal/chess/board"
	"github.com/dchess/dchess/internal/chess/pgn"
)

func TestPlainEntries(t *testing.T) {
	text := `fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1
move e2e4
score 30
ply 0
result 1
e

fen rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1
move e7e5
score -20
ply 1
result -1
e
fen 6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 30
move a1a8
score 31999
ply 58
result 1
e
fen 6k1/5ppp/8/8/8/8/5PPP/R5K1 b - - 0 30
move g8f8
score 32002
ply 59
result -1
e
fen 6k1/5ppp/8/8/8/8/5PPP/R6K b - - 0 30
score -10
ply 59
result 0
e
fen 6k1/5ppp/8/8/8/8/5PPP/R6K b - - 0 30
move g8g7
score -10
result 0
e
fen 6k1/5ppp/8/8/8/8/5PPP/R6K b - - 0 30
move g8h8
score -10
result 0
e
fen 8/8/8/8/8/8/8/8 w - - 0 1
move e2e4
`
	recs, sum := labelledRun(t, FormatPlain, ViewDefault, text)
	if sum.LinesRead != 8 || sum.LinesKept != 4 || sum.LinesBad != 4 {
		t.Errorf("read %d entries, kept %d, bad %d; want 8, 4, 4", sum.LinesRead, sum.LinesKept, sum.LinesBad)
	}
	for i, want := range []string{"entry 4 (line 20): score 32002", "entry 5 (line 26): no move line", "entry 6 (line 31): illegal move", "entry 8 (line 41): entry not closed"} {
		if i >= len(sum.FirstErrors) || !strings.HasPrefix(sum.FirstErrors[i], want) {
			t.Errorf("error %d: %q, want it to start %q", i, sum.FirstErrors, want)
		}
	}
	if len(recs) != 4 {
		t.Fatalf("%d records", len(recs))
	}
	for i, w := range []struct {
		cp, mate int32
		best     string
		result   pgn.Result
		ply      uint16
	}{
		{30, 0, "e2e4", pgn.WhiteWin, 0},
		{-20, 0, "e7e5", pgn.WhiteWin, 1}, // -1 for Black to move: White won
		{0, 1, "a1a8", pgn.WhiteWin, 58},
		{-10, 0, "g8h8", pgn.Draw, 59}, // no ply line: the FEN's
	} {
		r := recs[i]
		l := r.Label
		if l.CP != w.cp || l.Mate != w.mate || l.BestMove != w.best || !reflect.DeepEqual(l.PV, []string{w.best}) ||
			r.Result != w.result || r.Ply != w.ply || l.Depth != 0 || l.Engine != "import:plain" || r.Move != "" ||
			l.WinProb != dataset.WinProbability(w.cp, w.mate) {
			t.Errorf("record %d: %+v label %+v", i, r, l)
		}
	}
	// The first two are one game; the others each their own.
	if recs[0].GameID != recs[1].GameID || recs[2].GameID == recs[1].GameID || recs[3].GameID == recs[2].GameID {
		t.Errorf("game IDs %x %x %x %x", recs[0].GameID, recs[1].GameID, recs[2].GameID, recs[3].GameID)
	}
	// Windows line ends and a last "e" with no newline read the same.
	crlf, _ := labelledRun(t, FormatPlain, ViewDefault, strings.ReplaceAll(strings.SplitAfter(text, "fen 6k1/5ppp/8/8/8/8/5PPP/R5K1 b")[0], "\n", "\r\n")+" - - 0 30\r\nmove g8f8\r\nscore 1\r\nresult 0\r\ne")
	if len(crlf) != 4 || !reflect.DeepEqual(crlf[:3], recs[:3]) || crlf[3].Label.BestMove != "g8f8" {
		t.Errorf("with CRLF: %d records", len(crlf))
	}
}

// TestBinpackReadsAsItsPlain ingests Stockfish's own binpack and the plain
// file it was converted from: the records must be the same.
func TestBinpackReadsAsItsPlain(t *testing.T) {
	run := func(format Format, name string) ([]dataset.Record, *Summary) {
		sink := &memSink{}
		opts := DefaultOptions()
		opts.Format = format
		sum, err := Run(context.Background(), []string{filepath.Join("..", "..", "internal", "chess", "binpack", "testdata", name)}, nil, opts, sink)
		if err != nil {
			t.Fatal(err)
		}
		return sink.recs, sum
	}
	fromPlain, ps := run(FormatPlain, "sample.plain")
	fromBin, bs := run(FormatBinpack, "sample.binpack")
	if ps.LinesKept != 52 || bs.LinesKept != 52 || bs.LinesBad != 0 || len(fromBin) == 0 {
		t.Fatalf("plain: %d kept, binpack: %d kept, %d bad", ps.LinesKept, bs.LinesKept, bs.LinesBad)
	}
	if len(fromPlain) != len(fromBin) {
		t.Fatalf("%d records from plain, %d from binpack", len(fromPlain), len(fromBin))
	}
	for i := range fromPlain {
		p, b := fromPlain[i], fromBin[i]
		b.Label.Engine = p.Label.Engine
		if !reflect.DeepEqual(p, b) {
			t.Errorf("record %d:\nplain   %+v %+v\nbinpack %+v %+v", i, p, p.Label, b, b.Label)
		}
	}
	// The sample's first game is one chain: one game ID for its 26 plies;
	// its last game starts from the same position but is another game.
	if fromBin[0].GameID != fromBin[25].GameID || fromBin[0].GameID == fromBin[len(fromBin)-1].GameID {
		t.Error("a chain's entries do not share a game ID, or two games starting alike do")
	}
}

func TestDamagedBinpack(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "internal", "chess", "binpack", "testdata", "sample.binpack"))
	if err != nil {
		t.Fatal(err)
	}
	// A binpack cut inside its only chunk gives no position: the run fails,
	// naming the damage.
	opts := DefaultOptions()
	opts.Format = FormatBinpack
	sink := &memSink{}
	if _, err := Run(context.Background(), []string{Stdin}, strings.NewReader(string(data[:len(data)-40])), opts, sink); err == nil ||
		!strings.Contains(err.Error(), "corrupt binpack") || len(sink.recs) != 0 {
		t.Errorf("a cut binpack: %d records, %v", len(sink.recs), err)
	}
	opts = DefaultOptions()
	opts.Format, opts.Strict = FormatBinpack, true
	if _, err := Run(context.Background(), []string{Stdin}, strings.NewReader("BINP\x05\x00\x00\x00abcde"), opts, &memSink{}); err == nil {
		t.Error("--strict read a damaged binpack")
	}
}

func TestBullet(t *testing.T) {
	text := `rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 | 35 | 0.5
rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1 | 40 | 1.0
6k1/5ppp/8/8/8/8/5PPP/R5K1 b - - 0 30 | 32000 | 1
6k1/5ppp/8/8/8/8/5PPP/R6K b - - 0 30 | -12 | 0.0
6k1/5ppp/8/8/8/8/5PPP/R6K w - - 0 30 | x | 0.0
6k1/5ppp/8/8/8/8/5PPP/R6K w - - 0 30 | 10 | 0.7
6k1/5ppp/8/8/8/8/5PPP/R6K w - - 0 30 | 10
`
	recs, sum := labelledRun(t, FormatBullet, ViewDefault, text)
	if sum.LinesKept != 4 || sum.LinesBad != 3 {
		t.Errorf("kept %d, bad %d: %q", sum.LinesKept, sum.LinesBad, sum.FirstErrors)
	}
	for i, w := range []struct {
		cp, mate int32
		result   pgn.Result
		ply      uint16
	}{
		{35, 0, pgn.Draw, 0}, {-40, 0, pgn.WhiteWin, 1}, {0, -1, pgn.WhiteWin, 59}, {12, 0, pgn.BlackWin, 59},
	} {
		if i >= len(recs) {
			break
		}
		r := recs[i]
		checkLabel(t, r, w.cp, w.mate, "")
		if r.Result != w.result || r.Ply != w.ply || r.Label.Engine != "import:bullet" {
			t.Errorf("record %d: result %v ply %d engine %s", i, r.Result, r.Ply, r.Label.Engine)
		}
	}
}

// roundTripRecords are labelled positions of both sides to move, with
// centipawn and mate scores and every result.
func roundTripRecords(t *testing.T) []*dataset.Record {
	t.Helper()
	b := board.New()
	var recs []*dataset.Record
	moves := strings.Fields("d2d4 g8f6 c2c4 e7e6 b1c3 f8b4 e2e3 e8g8 f1d3 d7d5 g1f3 c7c5 e1g1 b8c6 a2a3 b4c3 b2c3 d5c4 d3c4 d8c7")
	results := []pgn.Result{pgn.WhiteWin, pgn.BlackWin, pgn.Draw}
	for i, mv := range moves {
		m, err := b.ParseUCI(mv)
		if err != nil {
			t.Fatal(err)
		}
		l := &dataset.Label{Status: dataset.LabelOK, CP: int32(i*53%700 - 350), BestMove: mv, PV: []string{mv}}
		switch i % 7 {
		case 3:
			l.CP, l.Mate = 0, 6
		case 5:
			l.CP, l.Mate = 0, -2
		}
		l.WinProb = dataset.WinProbability(l.CP, l.Mate)
		recs = append(recs, &dataset.Record{FEN: b.FEN(), Result: results[i/7], Ply: uint16(i), GameID: uint64(1 + i/7), Label: l})
		b.Make(m)
	}
	return recs
}

// TestNNUERoundTrip exports a dataset in each NNUE format and ingests it
// again: positions, scores (a mate's sign; the distance is not stored),
// results, plies and moves come back.
func TestNNUERoundTrip(t *testing.T) {
	recs := roundTripRecords(t)
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "ds")
	w, err := dataset.Create(dir, dataset.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	d, err := dataset.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, format := range []Format{FormatPlain, FormatBinpack, FormatBullet} {
		out := filepath.Join(tmp, "x."+string(format))
		if _, err := dataset.Export(context.Background(), d, dataset.ExportOptions{Format: string(format), Output: out}); err != nil {
			t.Fatal(err)
		}
		sink := &memSink{}
		opts := DefaultOptions()
		opts.Format = format
		sum, err := Run(context.Background(), []string{out}, nil, opts, sink)
		if err != nil {
			t.Fatal(err)
		}
		if len(sink.recs) != len(recs) || sum.LinesBad != 0 {
			t.Fatalf("%s: %d records back of %d, %d bad: %q", format, len(sink.recs), len(recs), sum.LinesBad, sum.FirstErrors)
		}
		for i, r := range recs {
			got := sink.recs[i]
			want := *r.Label
			if want.Mate != 0 {
				want.Mate = max(min(want.Mate, 1), -1)
			}
			best := want.BestMove
			if format == FormatBullet {
				best = ""
			}
			if got.FEN != r.FEN || got.Result != r.Result || got.Ply != r.Ply || got.Label.CP != want.CP ||
				got.Label.Mate != want.Mate || got.Label.BestMove != best {
				t.Errorf("%s: record %d came back as %s %v ply %d cp %d mate %d best %q, want %s %v ply %d cp %d mate %d best %q",
					format, i, got.FEN, got.Result, got.Ply, got.Label.CP, got.Label.Mate, got.Label.BestMove,
					r.FEN, r.Result, r.Ply, want.CP, want.Mate, best)
			}
		}
	}
}
