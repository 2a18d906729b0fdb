package puzzle

import (
	"encoding/csv"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/dchess/dchess/internal/testenv"
)

func TestHeaderAndRows(t *testing.T) {
	if _, err := ReadHeader([]string{"FEN", "Moves"}); !errors.Is(err, ErrHeader) {
		t.Errorf("header without Rating: %v", err)
	}
	c, err := ReadHeader([]string{"\ufeffPuzzleId", "FEN", "Moves", "Rating", "Themes", "GameUrl"})
	if err != nil {
		t.Fatal(err)
	}
	p, err := c.Parse([]string{"00sHx", "q3k1nr/1pp1nQpp/3p4/1P2p3/4P3/B1PP1b2/B5PP/5K2 b k - 0 17", "e8d7 a2e6 d7d8 f7f8", "1760", "mate mateIn2 short", "https://lichess.org/yyznGmXs/black#34"})
	want := Puzzle{FEN: "q3k1nr/1pp1nQpp/3p4/1P2p3/4P3/B1PP1b2/B5PP/5K2 b k - 0 17", Moves: []string{"e8d7", "a2e6", "d7d8", "f7f8"}, Rating: 1760,
		ID: "00sHx", Themes: "mate mateIn2 short", GameURL: "https://lichess.org/yyznGmXs/black#34"}
	if err != nil || !reflect.DeepEqual(p, want) {
		t.Errorf("Parse = %+v, %v", p, err)
	}
	for _, bad := range [][]string{
		{"x", "8/8/8/8/8/8/8/8 w - - 0 1"},
		{"x", "q3k1nr/1pp1nQpp/3p4/1P2p3/4P3/B1PP1b2/B5PP/5K2 b k - 0 17", "e8d7", "1760"},
		{"x", "q3k1nr/1pp1nQpp/3p4/1P2p3/4P3/B1PP1b2/B5PP/5K2 b k - 0 17", "e8d7 a2e6", "hard"},
		{"x", "q3k1nr/1pp1nQpp/3p4/1P2p3/4P3/B1PP1b2/B5PP/5K2 b k - 0 17", "e8d7 a2a9", "1760"},
	} {
		if _, err := c.Parse(bad); err == nil {
			t.Errorf("row %q accepted", bad)
		}
	}
}

// Every row of both shared puzzle files reads, with the columns they have.
func TestSharedPuzzleFiles(t *testing.T) {
	for name, full := range map[string]bool{"puzzles/lichess_puzzles_a.csv": false, "puzzles/lichess_puzzles_kagi1000.csv": true} {
		f, err := os.Open(testenv.SharedData(t, name))
		if err != nil {
			t.Fatal(err)
		}
		rows, err := csv.NewReader(f).ReadAll()
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		c, err := ReadHeader(rows[0])
		if err != nil {
			t.Fatal(err)
		}
		for _, row := range rows[1:] {
			p, err := c.Parse(row)
			if err != nil {
				t.Fatalf("%s: %q: %v", name, row, err)
			}
			if (p.ID != "" && strings.HasPrefix(p.GameURL, "https://lichess.org/")) != full {
				t.Fatalf("%s: %+v", name, p)
			}
		}
	}
}
