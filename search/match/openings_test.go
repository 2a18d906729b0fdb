package match

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dchess/dchess/internal/testenv"
)

func TestLoadOpenings(t *testing.T) {
	dir := t.TempDir()
	epd := filepath.Join(dir, "book.epd")
	os.WriteFile(epd, []byte("# comment\nrnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - bm Nf3; id \"x\";\n"+
		"rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2\n"), 0o644)
	list, err := LoadOpenings(epd)
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
	list, err = LoadOpenings(pgn)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3", "8/8/8/8/8/3k4/8/5RK1 w - - 2 2"}
	if len(list) != 2 || list[0].FEN != want[0] || list[1].FEN != want[1] {
		t.Errorf("PGN openings %+v, want %q", list, want)
	}

	os.WriteFile(epd, []byte("rnbqkbnr/pppp1ppp/8/4p3 w KQkq -\n"), 0o644)
	if _, err := LoadOpenings(epd); err == nil || !strings.Contains(err.Error(), "book.epd:1") {
		t.Errorf("bad EPD: %v", err)
	}
	os.WriteFile(pgn, []byte("[Event \"a\"]\n\n1. e4 e4 *\n"), 0o644)
	if _, err := LoadOpenings(pgn); err == nil || !strings.Contains(err.Error(), "game 1") {
		t.Errorf("bad PGN: %v", err)
	}
}

func TestLoadSharedOpenings(t *testing.T) {
	for _, name := range []string{"openings/noob_2moves.epd", "openings/8moves_v3_first1000.pgn"} {
		list, err := LoadOpenings(testenv.SharedData(t, name))
		if err != nil {
			t.Fatal(err)
		}
		if len(list) < 600 {
			t.Errorf("%s: %d openings", name, len(list))
		}
	}
}
