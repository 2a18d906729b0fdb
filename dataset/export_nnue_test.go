package dataset

import (
	"bytes"
	"context"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dchess/dchess/internal/chess/binpack"
	"github.com/dchess/dchess/internal/chess/board"
	"github.com/dchess/dchess/internal/chess/pgn"
)

var updateNNUEGolden = flag.Bool("update-nnue", false, "rewrite testdata/nnue/game.plain and game.dchess.binpack")

func TestNNUEScores(t *testing.T) {
	for _, c := range []struct {
		cp, mate int32
		score    int16
	}{
		{0, 0, 0}, {57, 0, 57}, {-57, 0, -57}, {40000, 0, MaxCPScore}, {-40000, 0, -MaxCPScore},
		{0, 3, MateScore}, {0, -1, -MateScore},
	} {
		if got := NNUEScore(&Label{CP: c.cp, Mate: c.mate}); got != c.score {
			t.Errorf("cp %d mate %d: %d, want %d", c.cp, c.mate, got, c.score)
		}
	}
	for _, c := range []struct {
		score    int
		cp, mate int32
	}{
		{MaxCPScore, MaxCPScore, 0}, {-MaxCPScore, -MaxCPScore, 0}, {MateScore, 0, 1}, {-MateScore, 0, -1},
		// Stockfish's mate in n plies is VALUE_MATE - n.
		{MateScore - 1, 0, 1}, {MateScore - 9, 0, 5}, {-(MateScore - 8), 0, -4}, {MateThreshold, 0, 123},
	} {
		if cp, mate := LabelFromNNUEScore(c.score); cp != c.cp || mate != c.mate {
			t.Errorf("score %d: cp %d mate %d, want %d %d", c.score, cp, mate, c.cp, c.mate)
		}
	}
}

// nnueRecords are labelled positions of every kind the NNUE formats
// treat differently.
func nnueRecords() []*Record {
	ok := func(cp, mate int32, best string) *Label {
		return &Label{Status: LabelOK, CP: cp, Mate: mate, BestMove: best, PV: []string{best}, WinProb: WinProbability(cp, mate)}
	}
	return []*Record{
		// 0: White to move, a quiet best move, White won.
		{FEN: board.StartFEN, Result: pgn.WhiteWin, Label: ok(31, 0, "e2e4")},
		// 1: Black to move, the best move a capture, White won.
		{FEN: "rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 2", Result: pgn.WhiteWin, Label: ok(-45, 0, "d5e4")},
		// 2: Black to move, mated in 3.
		{FEN: "6k1/5ppp/8/8/8/8/5PPP/R5K1 b - - 4 30", Result: pgn.WhiteWin, Label: ok(0, -3, "g8f8")},
		// 3: unlabelled.
		{FEN: "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1", Result: pgn.Draw},
		// 4: a failed label.
		{FEN: "rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq - 0 1", Result: pgn.Draw, Label: &Label{Status: LabelFailed, Error: "crash"}},
		// 5: no game result, Black to move.
		{FEN: "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2", Label: ok(-20, 0, "b8c6")},
		// 6: no best move: a played move stands in for plain and binpack.
		{FEN: "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3", Move: "f1b5", Result: pgn.Draw, Label: &Label{Status: LabelOK, CP: 25}},
		// 7: no move at all: bullet only.
		{FEN: "r1bqkbnr/pppp1ppp/2n5/1B2p3/4P3/5N2/PPPP1PPP/RNBQK2R b KQkq - 3 3", Result: pgn.BlackWin, Label: &Label{Status: LabelOK, CP: -15}},
		// 8: in check, Black won.
		{FEN: "rnb1kbnr/pppp1ppp/8/4p3/7q/5P2/PPPPP1PP/RNBQKBNR w KQkq - 1 3", Result: pgn.BlackWin, Label: ok(-200, 0, "g2g3")},
	}
}

func exportNNUE(t *testing.T, recs []*Record, opts ExportOptions) (string, ExportStats) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "ds")
	writeDataset(t, dir, WriteOptions{}, recs)
	d, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	var st ExportStats
	opts.Output, opts.Stdout, opts.Stats = "-", &buf, &st
	n, err := Export(context.Background(), d, opts)
	if err != nil {
		t.Fatal(err)
	}
	if n != st.Written {
		t.Errorf("Export returned %d, stats say %d written", n, st.Written)
	}
	return buf.String(), st
}

func TestExportPlain(t *testing.T) {
	var progress []int64
	got, st := exportNNUE(t, nnueRecords(), ExportOptions{Format: ExportPlain, Progress: func(done, total int64) {
		progress = append(progress, done, total)
	}})
	if len(progress) != 2 || progress[1] != int64(len(nnueRecords())) {
		t.Errorf("progress %v", progress)
	}
	want := `fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1
move e2e4
score 31
ply 0
result 1
e
fen rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 2
move d5e4
score -45
ply 3
result -1
e
fen 6k1/5ppp/8/8/8/8/5PPP/R5K1 b - - 4 30
move g8f8
score -32000
ply 59
result -1
e
fen rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2
move b8c6
score -20
ply 3
result 0
e
fen r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3
move f1b5
score 25
ply 4
result 0
e
fen rnb1kbnr/pppp1ppp/8/4p3/7q/5P2/PPPPP1PP/RNBQKBNR w KQkq - 1 3
move g2g3
score -200
ply 4
result -1
e
`
	if got != want {
		t.Errorf("plain export:\n%s\nwant\n%s", got, want)
	}
	if st != (ExportStats{Written: 6, Unlabelled: 2, NoMove: 1, UnknownResult: 1}) {
		t.Errorf("stats %+v", st)
	}
}

func TestExportBullet(t *testing.T) {
	got, st := exportNNUE(t, nnueRecords(), ExportOptions{Format: ExportBullet})
	// Scores and results from White's view.
	want := `rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 | 31 | 1.0
rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 2 | 45 | 1.0
6k1/5ppp/8/8/8/8/5PPP/R5K1 b - - 4 30 | 32000 | 1.0
rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2 | 20 | 0.5
r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3 | 25 | 0.5
r1bqkbnr/pppp1ppp/2n5/1B2p3/4P3/5N2/PPPP1PPP/RNBQK2R b KQkq - 3 3 | 15 | 0.0
rnb1kbnr/pppp1ppp/8/4p3/7q/5P2/PPPPP1PP/RNBQKBNR w KQkq - 1 3 | -200 | 0.0
`
	if got != want {
		t.Errorf("bullet export:\n%s\nwant\n%s", got, want)
	}
	if st != (ExportStats{Written: 7, Unlabelled: 2, UnknownResult: 1}) {
		t.Errorf("stats %+v", st)
	}
	got, st = exportNNUE(t, nnueRecords(), ExportOptions{Format: ExportBullet, SkipUnknownResult: true})
	if strings.Contains(got, "b8c6") || strings.Count(got, "\n") != 6 || st.UnknownResult != 1 || st.Written != 6 {
		t.Errorf("with SkipUnknownResult: %+v\n%s", st, got)
	}
}

// TestExportQuietOnly keeps the positions not in check whose best move
// does not capture, in every format.
func TestExportQuietOnly(t *testing.T) {
	quietFENs := []string{nnueRecords()[0].FEN, nnueRecords()[2].FEN, nnueRecords()[5].FEN, nnueRecords()[6].FEN, nnueRecords()[7].FEN}
	for _, format := range ExportFormats {
		got, st := exportNNUE(t, nnueRecords(), ExportOptions{Format: format, QuietOnly: true})
		if st.NotQuiet != 2 || st.Unlabelled != 2 {
			t.Errorf("%s: stats %+v, want 2 not quiet and 2 unlabelled", format, st)
		}
		if format == ExportBinpack {
			var fens []string
			r := binpack.NewReader(strings.NewReader(got))
			for {
				e, err := r.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				fens = append(fens, e.FEN)
			}
			got = strings.Join(fens, "\n")
		}
		for i, fen := range quietFENs {
			// plain and binpack cannot hold record 7, which has no move.
			want := !(i == 4 && (format == ExportPlain || format == ExportBinpack))
			if strings.Contains(got, fen) != want {
				t.Errorf("%s: quiet position %s written: %v, want %v", format, fen, !want, want)
			}
		}
		for _, i := range []int{1, 8} {
			if strings.Contains(got, nnueRecords()[i].FEN) {
				t.Errorf("%s: wrote the position %s, which is not quiet", format, nnueRecords()[i].FEN)
			}
		}
	}
}

// TestExportBinpackReadsBackAsPlain: the binpack export holds exactly the
// plain export's entries.
func TestExportBinpackReadsBackAsPlain(t *testing.T) {
	recs := nnueRecords()
	plain, _ := exportNNUE(t, recs, ExportOptions{Format: ExportPlain})
	bin, st := exportNNUE(t, recs, ExportOptions{Format: ExportBinpack})
	if st.Written != 6 {
		t.Errorf("stats %+v", st)
	}
	var back strings.Builder
	r := binpack.NewReader(strings.NewReader(bin))
	for {
		e, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		back.WriteString(e.String())
	}
	if back.String() != plain {
		t.Errorf("binpack reads back as\n%s\nwant\n%s", back.String(), plain)
	}
}

// gameRecords are the positions of a short game as dchess label writes
// them, for the golden files.
func gameRecords(t *testing.T) []*Record {
	t.Helper()
	b := board.New()
	moves := strings.Fields("e2e4 c7c5 g1f3 d7d6 d2d4 c5d4 f3d4 g8f6 b1c3 a7a6 c1e3 e7e5 d4b3 c8e6 f2f3 f8e7 d1d2 e8g8 e1c1 b8d7 g2g4 b7b5 g4g5 b5b4 c3e2 f6e8 f3f4 a6a5 f4f5 a5a4 b3d4 e5d4 e2d4 b4b3 c1b1 b3c2 d4c2 e6b3 a2b3 a4b3 c2a3 a8a3 b2a3 d8a5")
	var recs []*Record
	for i, mv := range moves {
		m, err := b.ParseUCI(mv)
		if err != nil {
			t.Fatalf("move %d %s: %v", i, mv, err)
		}
		cp := int32((i*97)%900 - 450)
		l := &Label{Status: LabelOK, CP: cp, BestMove: mv, PV: []string{mv}, Depth: 12, Engine: "Stockfish 16"}
		if i == len(moves)-1 {
			l.CP, l.Mate = 0, 4
		}
		recs = append(recs, &Record{FEN: b.FEN(), Move: mv, Result: pgn.BlackWin, Ply: uint16(i), GameID: 7, Label: l})
		b.Make(m)
	}
	return recs
}

// TestExportGolden compares the plain and binpack exports of a game with
// testdata/nnue/game.plain and game.binpack. game.binpack was written by
// Stockfish's own converter (tools branch, `convert game.plain
// game.binpack`; docs/dataset-format.md names the commit), and the same
// converter turns dchess's binpack back into game.plain.
func TestExportGolden(t *testing.T) {
	recs := gameRecords(t)
	plain, _ := exportNNUE(t, recs, ExportOptions{Format: ExportPlain})
	bin, _ := exportNNUE(t, recs, ExportOptions{Format: ExportBinpack})
	if *updateNNUEGolden {
		os.MkdirAll(filepath.Join("testdata", "nnue"), 0o755)
		os.WriteFile(filepath.Join("testdata", "nnue", "game.plain"), []byte(plain), 0o644)
		os.WriteFile(filepath.Join("testdata", "nnue", "game.dchess.binpack"), []byte(bin), 0o644)
		t.Skip("wrote testdata/nnue/game.plain and game.dchess.binpack: check them with Stockfish's converter")
	}
	wantPlain, err := os.ReadFile(filepath.Join("testdata", "nnue", "game.plain"))
	if err != nil {
		t.Fatal(err)
	}
	wantBin, err := os.ReadFile(filepath.Join("testdata", "nnue", "game.binpack"))
	if err != nil {
		t.Fatal(err)
	}
	if plain != string(wantPlain) {
		t.Errorf("plain export differs from testdata/nnue/game.plain:\n%s", plain)
	}
	if bin != string(wantBin) {
		t.Errorf("binpack export differs from Stockfish's:\n got % x\nwant % x", bin, wantBin)
	}
}

// TestExportNNUEProgress: the NNUE formats report progress as they scan,
// as jsonl and csv do.
func TestExportNNUEProgress(t *testing.T) {
	recs := make([]*Record, 4100)
	for i := range recs {
		recs[i] = nnueRecords()[0]
	}
	for _, format := range []string{ExportPlain, ExportBinpack, ExportBullet} {
		var seen []int64
		_, st := exportNNUE(t, recs, ExportOptions{Format: format, Progress: func(done, total int64) { seen = append(seen, done) }})
		if len(seen) != 2 || seen[1] != 4096 || st.Written != 4100 {
			t.Errorf("%s: progress %v, %d written", format, seen, st.Written)
		}
	}
}
