package epd_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/dchess/dchess/internal/chess/board"
	"github.com/dchess/dchess/internal/chess/epd"
)

func TestParseOperationsAndCounters(t *testing.T) {
	l, err := epd.Parse(`r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - bm Qxf7#; id "WAC; quoted"; c0 a b;`)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(l.Ops, map[string][]string{"bm": {"Qxf7#"}, "id": {"WAC; quoted"}, "c0": {"a", "b"}}) {
		t.Errorf("ops %q", l.Ops)
	}
	if got := l.Board.FEN(); got != "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 0 1" || l.FEN != got[:len(got)-4] {
		t.Errorf("FEN %s, as written %s", got, l.FEN)
	}
	// A full FEN line: the two numbers are its move counters.
	l, err = epd.Parse("rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2")
	if err != nil || l.Board.FEN() != "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2" || len(l.Ops) != 0 {
		t.Errorf("FEN line: %v %v", l, err)
	}
	// A lone number is an operand, not a halfmove clock.
	if _, err := epd.Parse("8/8/8/8/8/4k3/8/4K2R w K - 5"); err != nil {
		t.Error(err)
	}
	for _, bad := range []string{"8/8/8 w", "8/8/8/8 w - -", `8/8/8/8/8/4k3/8/4K2R w K - id "open`} {
		if _, err := epd.Parse(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// TestIllegalMovesSaidInPlayersWords: a bm, am or pv move that is not legal
// is an error naming the move and the side to move, never dropped.
func TestIllegalMovesSaidInPlayersWords(t *testing.T) {
	l, err := epd.Parse("4k3/8/8/8/8/8/8/2N1K1N1 w - - bm Nf3 Ke9; am Ne2; pv Kd2 Kd7 Kd4;")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Moves("bm"); err == nil || err.Error() != "bm Ke9 is not a legal move for White in this position" {
		t.Errorf("bm: %v", err)
	}
	if _, err := l.Moves("am"); err == nil || !strings.HasPrefix(err.Error(), "am Ne2 is ambiguous") {
		t.Errorf("am: %v", err)
	}
	if _, err := l.Variation("pv"); err == nil || err.Error() != "pv Kd4 is not a legal move for White in this position, after Kd2 Kd7" {
		t.Errorf("pv: %v", err)
	}
	l, _ = epd.Parse("4k3/8/8/8/8/8/8/2N1K1N1 w - - bm Nf3 Nb3; pv Kd2 Kd7 Kd3;")
	moves, err := l.Moves("bm")
	if err != nil || len(moves) != 2 || board.UCI(moves[0]) != "g1f3" || board.UCI(moves[1]) != "c1b3" {
		t.Errorf("bm %v %v", moves, err)
	}
	if pv, err := l.Variation("pv"); err != nil || !reflect.DeepEqual(pv, []string{"e1d2", "e8d7", "d2d3"}) {
		t.Errorf("pv %v %v", pv, err)
	}
	if moves, err := l.Moves("am"); err != nil || moves != nil {
		t.Errorf("absent am: %v %v", moves, err)
	}
}

func TestInt(t *testing.T) {
	l, _ := epd.Parse("4k3/8/8/8/8/8/8/4K3 w - - ce -35; acd x;")
	if v, ok, err := l.Int("ce"); v != -35 || !ok || err != nil {
		t.Errorf("ce %d %v %v", v, ok, err)
	}
	if _, ok, err := l.Int("acd"); !ok || err == nil {
		t.Errorf("acd x: %v %v", ok, err)
	}
	if _, ok, err := l.Int("dm"); ok || err != nil {
		t.Errorf("absent dm: %v %v", ok, err)
	}
}

func TestScanSkipsBlanksAndComments(t *testing.T) {
	var got []int
	err := epd.Scan(strings.NewReader("# head\n\n  a  \r\nb\n#c\nc"), func(n int, line string) error {
		got = append(got, n)
		if strings.TrimSpace(line) != line {
			t.Errorf("line %d not trimmed: %q", n, line)
		}
		return nil
	})
	if err != nil || !reflect.DeepEqual(got, []int{3, 4, 6}) {
		t.Errorf("lines %v, %v", got, err)
	}
}
