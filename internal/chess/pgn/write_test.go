package pgn

import (
	"strings"
	"testing"
)

// What Write writes, the reader reads back: tags (escaped and unescaped),
// moves, result; comments with braces stay one comment, and no line
// reaches 80 characters.
func TestWriteReadsBack(t *testing.T) {
	g := Export{
		Tags:   []Tag{{"Event", "a \"quoted\" \\ event"}, {"White", "two\nlines"}, {"SetUp", "1"}, {"FEN", "8/P6k/8/8/8/8/8/K7 w - - 0 1"}},
		FEN:    "8/P6k/8/8/8/8/8/K7 w - - 0 1",
		Result: "1-0",
	}
	for i, san := range []string{"a8=Q", "Kg6", "Qb8", "Kf5", "Qf8+", "Ke4", "Qf2", "Kd3"} {
		m := ExportMove{SAN: san}
		if i%3 == 0 {
			m.Comment = "+9.00/12 0.100s, {odd} comment"
		}
		g.Moves = append(g.Moves, m)
	}
	var b strings.Builder
	if err := Write(&b, g); err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(b.String(), "\n") {
		if len(line) >= 80 {
			t.Errorf("line of %d characters: %q", len(line), line)
		}
	}
	games, errs := readAll(t, b.String())
	if len(errs) > 0 || len(games) != 1 {
		t.Fatalf("read back %d games: %v\n%s", len(games), errs, b.String())
	}
	got := games[0]
	if got.Tag("Event") != `a "quoted" \ event` || got.Tag("White") != "two lines" || got.Result != WhiteWin {
		t.Errorf("tags or result read back wrong: %+v", got)
	}
	if strings.Join(got.Moves, " ") != "a8=Q Kg6 Qb8 Kf5 Qf8+ Ke4 Qf2 Kd3" {
		t.Errorf("moves read back %v\n%s", got.Moves, b.String())
	}
}
