package match_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/dchess/dchess/internal/testenv"
	"github.com/dchess/dchess/search/board"
	"github.com/dchess/dchess/search/match"
)

func TestParseTimeControl(t *testing.T) {
	for in, want := range map[string]match.TimeControl{
		"10+0.1":    {Base: 10 * time.Second, Inc: 100 * time.Millisecond},
		"40/60":     {Moves: 40, Base: time.Minute},
		"40/60+0.6": {Moves: 40, Base: time.Minute, Inc: 600 * time.Millisecond},
		"0.5":       {Base: 500 * time.Millisecond},
	} {
		got, err := match.ParseTimeControl(in)
		if err != nil || got != want {
			t.Errorf("ParseTimeControl(%q) = %+v, %v; want %+v", in, got, err, want)
		}
		if got.String() != in {
			t.Errorf("%q prints as %q", in, got.String())
		}
	}
	for _, bad := range []string{"", "0", "10+", "x/10", "0/10", "10+-1", "-5"} {
		if _, err := match.ParseTimeControl(bad); err == nil {
			t.Errorf("ParseTimeControl(%q) succeeded", bad)
		}
	}
}

func TestParseAdjudication(t *testing.T) {
	d, err := match.ParseDrawAdjudication("movenumber=40,movecount=8,score=10")
	if err != nil || d != (match.DrawAdjudication{MoveNumber: 40, MoveCount: 8, Score: 10}) {
		t.Errorf("draw: %+v, %v", d, err)
	}
	r, err := match.ParseResignAdjudication("movecount=3,score=600")
	if err != nil || r != (match.ResignAdjudication{MoveCount: 3, Score: 600}) {
		t.Errorf("resign: %+v, %v", r, err)
	}
	for _, bad := range []string{"movecount=3", "score=600", "movecount=0,score=5", "movecount=3,score=x", "moves=3,score=5"} {
		if _, err := match.ParseResignAdjudication(bad); err == nil {
			t.Errorf("ParseResignAdjudication(%q) succeeded", bad)
		}
	}
	if _, err := match.ParseDrawAdjudication("movenumber=40,score=10"); err == nil {
		t.Error("draw adjudication without movecount accepted")
	}
}

func TestLoadOpenings(t *testing.T) {
	dir := t.TempDir()
	epd := filepath.Join(dir, "book.epd")
	os.WriteFile(epd, []byte("# comment\nrnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - bm Nf3; id \"x\";\n"+
		"rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2\n"), 0o644)
	list, err := match.LoadOpenings(epd)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 || list[1].FEN != "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2" {
		t.Errorf("EPD openings %+v", list)
	}

	pgn := filepath.Join(dir, "book.pgn")
	os.WriteFile(pgn, []byte(`[Event "a"]
[Result "*"]

1. e4 {best by test} e5 (1... c5 2. Nf3) 2. Nf3 $1 Nc6 *

[Event "b"]
[FEN "8/8/8/8/8/4k3/8/4K2R w K - 0 1"]

1. O-O Kd3 *
`), 0o644)
	list, err = match.LoadOpenings(pgn)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3", "8/8/8/8/8/3k4/8/5RK1 w - - 2 2"}
	if len(list) != 2 || list[0].FEN != want[0] || list[1].FEN != want[1] {
		t.Errorf("PGN openings %+v, want %q", list, want)
	}

	os.WriteFile(epd, []byte("rnbqkbnr/pppp1ppp/8/4p3 w KQkq -\n"), 0o644)
	if _, err := match.LoadOpenings(epd); err == nil || !strings.Contains(err.Error(), "book.epd:1") {
		t.Errorf("bad EPD: %v", err)
	}
	os.WriteFile(pgn, []byte("[Event \"a\"]\n\n1. e4 e4 *\n"), 0o644)
	if _, err := match.LoadOpenings(pgn); err == nil || !strings.Contains(err.Error(), "game 1") {
		t.Errorf("bad PGN: %v", err)
	}
}

func TestLoadSharedOpenings(t *testing.T) {
	for _, name := range []string{"openings/noob_2moves.epd", "openings/8moves_v3_first1000.pgn"} {
		list, err := match.LoadOpenings(testenv.SharedData(t, name))
		if err != nil {
			t.Fatal(err)
		}
		if len(list) < 600 {
			t.Errorf("%s: %d openings", name, len(list))
		}
	}
}

func TestGeneratedAndPickedOpenings(t *testing.T) {
	a, b := match.GenerateOpenings(5, 4, 1), match.GenerateOpenings(8, 4, 1)
	if !reflect.DeepEqual(a, b[:5]) {
		t.Error("opening i depends on how many were made")
	}
	for _, o := range b {
		bd, err := board.FromFEN(o.FEN)
		if err != nil || bd.FullmoveNumber() != 3 || bd.SideToMove() != board.White {
			t.Errorf("opening %q after 4 plies: %v", o.FEN, err)
		}
	}
	if reflect.DeepEqual(a, match.GenerateOpenings(5, 4, 2)) {
		t.Error("seed ignored")
	}
	seq := match.PickOpenings(a[:3], 7, false, 0)
	if seq[0] != a[0] || seq[3] != a[0] || seq[6] != a[0] {
		t.Errorf("sequential order does not wrap: %v", seq)
	}
	shuffled := match.PickOpenings(a, 5, true, 9)
	seen := map[string]bool{}
	for _, o := range shuffled {
		seen[o.FEN] = true
	}
	if len(seen) != 5 || reflect.DeepEqual(shuffled, a) && reflect.DeepEqual(match.PickOpenings(a, 5, true, 10), a) {
		t.Errorf("random order is not a shuffle: %v", shuffled)
	}
}
