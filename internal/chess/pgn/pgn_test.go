package pgn

import (
	"errors"
	"io"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/dchess/dchess/internal/testenv"
)

// readAll collects every game and every error from a stream.
func readAll(t testing.TB, text string) ([]*Game, []*Error) {
	t.Helper()
	r := NewReader(strings.NewReader(text))
	var games []*Game
	var errs []*Error
	for {
		g, err := r.Next()
		if err == io.EOF {
			return games, errs
		}
		var pe *Error
		if err != nil && !errors.As(err, &pe) {
			t.Fatalf("unexpected error type: %v", err)
		}
		if pe != nil {
			errs = append(errs, pe)
		}
		if g != nil {
			games = append(games, g)
		}
	}
}

func TestTagsCommentsVariationsNAGs(t *testing.T) {
	text := `[Event "Casual \"blitz\" game"]
[Site "C:\\chess"]
[White "A"] [Black "B"]
[Result "1-0"]

1. e4 {best by test
 spanning two lines} e5 $1 2. Nf3 (2. f4 exf4 (2... d5) 3. Nf3) 2... Nc6!? ; rest of line ignored
3.Bb5 a6 $14 4. Ba4 (4. Bxc6 {exchange} dxc6) Nf6 1-0
`
	games, errs := readAll(t, text)
	if len(errs) != 0 {
		t.Fatalf("errors: %v", errs)
	}
	if len(games) != 1 {
		t.Fatalf("got %d games", len(games))
	}
	g := games[0]
	if got := g.Tag("Event"); got != `Casual "blitz" game` {
		t.Errorf("Event = %q", got)
	}
	if got := g.Tag("Site"); got != `C:\chess` {
		t.Errorf("Site = %q", got)
	}
	if g.Tag("White") != "A" || g.Tag("Black") != "B" {
		t.Errorf("two tags on one line: %+v", g.Tags)
	}
	want := []string{"e4", "e5", "Nf3", "Nc6!?", "Bb5", "a6", "Ba4", "Nf6"}
	if !reflect.DeepEqual(g.Moves, want) {
		t.Errorf("moves = %q, want %q", g.Moves, want)
	}
	if g.Result != WhiteWin {
		t.Errorf("result = %v", g.Result)
	}
	if g.Line != 1 || g.MoveLines[0] != 6 || g.MoveLines[1] != 7 || g.MoveLines[4] != 8 {
		t.Errorf("lines: game %d, moves %v", g.Line, g.MoveLines)
	}
}

func TestMoveNumbersAndResults(t *testing.T) {
	for _, tc := range []struct {
		movetext string
		moves    []string
		result   Result
	}{
		{"1.e4 e5 2.Nf3 0-1", []string{"e4", "e5", "Nf3"}, BlackWin},
		{"1. e4 1... e5 2. O-O 1/2-1/2", []string{"e4", "e5", "O-O"}, Draw},
		{"12. ... Qxd1+ 13. Kxd1 *", []string{"Qxd1+", "Kxd1"}, ResultUnknown},
		{"1. 0-0-0 0-0 1-0", []string{"0-0-0", "0-0"}, WhiteWin},
		{"1. e8=Q# 1-0", []string{"e8=Q#"}, WhiteWin},
	} {
		games, errs := readAll(t, "[Event \"x\"]\n\n"+tc.movetext+"\n")
		if len(errs) != 0 || len(games) != 1 {
			t.Errorf("%q: games %d errors %v", tc.movetext, len(games), errs)
			continue
		}
		if !reflect.DeepEqual(games[0].Moves, tc.moves) || games[0].Result != tc.result {
			t.Errorf("%q: moves %q result %v", tc.movetext, games[0].Moves, games[0].Result)
		}
	}
}

func TestFENStart(t *testing.T) {
	text := `[Event "Study"]
[SetUp "1"]
[FEN "4k3/8/8/8/8/8/4P3/4K3 w - - 0 40"]

40. e4 Kd7 *
`
	games, errs := readAll(t, text)
	if len(errs) != 0 || len(games) != 1 {
		t.Fatalf("games %d errors %v", len(games), errs)
	}
	if got := games[0].StartFEN(); got != "4k3/8/8/8/8/8/4P3/4K3 w - - 0 40" {
		t.Errorf("StartFEN = %q", got)
	}
}

// The reported bug: a [Variant "Crazyhouse"] game was read as chess. Any
// Variant but standard chess's names gives no game and an *Error at the
// tag's line that wraps ErrNotStandardChess; the next game reads normally.
func TestOtherVariantsAreNotReadAsChess(t *testing.T) {
	for _, tc := range []struct {
		variant string
		want    string // "" for standard chess
	}{
		{"Standard", ""}, {"Chess", ""}, {"", ""}, {"From Position", ""}, {"fromPosition", ""},
		{"from_position", ""}, {"STANDARD", ""}, {"Normal", ""},
		{"Crazyhouse", `variant "Crazyhouse" is not standard chess`},
		{"Atomic", `variant "Atomic" is not standard chess`},
		{"Three-check", `variant "Three-check" is not standard chess`},
		{"Chess960", `variant "Chess960" is not standard chess: Chess960 castling differs`},
		{"chess960", `variant "chess960" is not standard chess: Chess960 castling differs`},
		{"Fischer Random", `variant "Fischer Random" is not standard chess: Chess960 castling differs`},
	} {
		// A set-up position, as Chess960 and From Position games have, and
		// a Crazyhouse drop, which would read as malformed movetext.
		text := "[Event \"Odd\"]\n[Variant \"" + tc.variant + "\"]\n[SetUp \"1\"]\n" +
			"[FEN \"bqnbrkrn/pppppppp/8/8/8/8/PPPPPPPP/BQNBRKRN w GEge - 0 1\"]\n\n1. e4 N@f6 1-0\n\n" +
			"[Event \"Next\"]\n\n1. d4 d5 1-0\n"
		games, errs := readAll(t, text)
		if tc.want == "" {
			if len(games) != 2 || len(errs) != 0 || games[0].Tag("Variant") != tc.variant {
				t.Errorf("variant %q: %d games, errors %v", tc.variant, len(games), errs)
			}
			continue
		}
		if len(games) != 1 || games[0].Tag("Event") != "Next" || len(errs) != 1 {
			t.Errorf("variant %q: %d games, errors %v", tc.variant, len(games), errs)
			continue
		}
		if e := errs[0]; e.Game != 1 || e.Line != 2 || e.Reason != tc.want || !errors.Is(e, ErrNotStandardChess) {
			t.Errorf("variant %q: %+v (%v), want game 1, line 2: %s", tc.variant, e, e, tc.want)
		}
	}
}

// Each malformed game is reported with its number and the line of the
// fault, is skipped, and the game after it is read normally.
func TestMalformedGamesResync(t *testing.T) {
	good := "[Event \"good\"]\n\n1. d4 d5 1/2-1/2\n\n"
	for _, tc := range []struct {
		name, bad string
		line      int // line of the fault, counted inside bad (1 = its first line)
		reason    string
	}{
		{"bad tag line", "[Event \"bad\"]\n[White Kasparov]\n\n1. e4 e5 1-0\n\n", 2, "bad tag line"},
		{"unterminated tag value", "[Event \"bad\"]\n[White \"Kasparov]\n\n1. e4 1-0\n\n", 2, "unterminated tag value"},
		{"unterminated comment", "[Event \"bad\"]\n\n1. e4 {never closed\n2. Nf3 1-0\n\n", 3, "unterminated comment"},
		{"unterminated variation", "[Event \"bad\"]\n\n1. e4 e5\n2. Nf3 (2. f4 exf4 1-0\n\n", 4, "unterminated variation"},
		{"unmatched paren", "[Event \"bad\"]\n\n1. e4 ) e5 1-0\n\n", 3, "unmatched ')'"},
		{"missing result", "[Event \"bad\"]\n\n1. e4 e5\n\n", 3, "no game result"},
		{"bad character", "[Event \"bad\"]\n\n1. e4 @ e5 1-0\n\n", 3, "unexpected character"},
		{"bad number token", "[Event \"bad\"]\n\n1. e4 2x3 1-0\n\n", 3, "unexpected token"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			games, errs := readAll(t, good+tc.bad+good)
			if len(games) != 2 {
				t.Fatalf("got %d good games, want 2", len(games))
			}
			if games[1].Number != 3 {
				t.Errorf("game after the bad one is number %d, want 3", games[1].Number)
			}
			if len(errs) != 1 {
				t.Fatalf("errors %v, want one", errs)
			}
			e := errs[0]
			goodLines := strings.Count(good, "\n")
			if e.Game != 2 || e.Line != goodLines+tc.line || !strings.Contains(e.Reason, tc.reason) {
				t.Errorf("error %v, want game 2 line %d reason %q", e, goodLines+tc.line, tc.reason)
			}
		})
	}
}

func TestGarbageBetweenGames(t *testing.T) {
	text := "[Event \"a\"]\n\n1. e4 e5 1-0\n\nthis is not pgn\n\n[Event \"b\"]\n\n1. d4 0-1\n"
	games, errs := readAll(t, text)
	if len(games) != 2 || games[1].Tag("Event") != "b" {
		t.Fatalf("games %d", len(games))
	}
	if len(errs) != 1 || errs[0].Game != 1 || errs[0].Line != 5 || !strings.Contains(errs[0].Reason, "text after the game result") {
		t.Errorf("errors %v", errs)
	}
}

func TestTruncatedFile(t *testing.T) {
	for _, tail := range []string{
		"[Event \"cut\"]\n[White \"X\"",
		"[Event \"cut\"]\n\n1. e4 e5 2. Nf",
		"[Event \"cut\"]\n\n1. e4 {comm",
	} {
		games, errs := readAll(t, "[Event \"a\"]\n\n1. e4 e5 1-0\n\n"+tail)
		if len(games) != 1 || len(errs) != 1 || errs[0].Game != 2 {
			t.Errorf("%q: games %d errors %v", tail, len(games), errs)
		}
	}
}

func TestTooLongGameIsSkipped(t *testing.T) {
	long := "[Event \"long\"]\n\n" + strings.Repeat("{"+strings.Repeat("x", 1000)+"}\n", MaxGameBytes/1000+10) + "1-0\n\n"
	games, errs := readAll(t, long+"[Event \"b\"]\n\n1. d4 0-1\n")
	if len(games) != 1 || games[0].Number != 2 || len(errs) != 1 || !strings.Contains(errs[0].Reason, "longer than") {
		t.Errorf("games %d errors %v", len(games), errs)
	}
}

func TestKasparovFile(t *testing.T) {
	f, err := os.Open(testenv.SharedData(t, "pgn/Kasparov.pgn"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := NewReader(f)
	n, moves := 0, 0
	for {
		g, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("game %d: %v", n+1, err)
		}
		n++
		moves += len(g.Moves)
	}
	if n != 2128 {
		t.Errorf("read %d games, want 2128", n)
	}
	if moves < 100*n/2 {
		t.Errorf("only %d moves in %d games", moves, n)
	}
}

// FuzzReader checks that no input makes the reader panic or loop, and that
// every error it reports names a game and a line inside the input.
func FuzzReader(f *testing.F) {
	f.Add("[Event \"a\"]\n[White \"x\\\"y\"]\n\n1. e4 {c} e5 (1... c5 (1... e6)) $2 2. Nf3 ; x\n1-0\n")
	f.Add("[Event \"a\"]\n\n1. e4 {open\n\n[Event \"b\"]\n\n1. d4 *\n")
	f.Add("garbage\n[Event \"a\"]\n1.e4 1/2-1/2 junk\n")
	f.Add("[Event \"a\"\n\n1. e4 (\n")
	f.Add("1. e4 { [%eval 0.1] } { [%clk 0:01:00] } e5 {x} *\n")
	f.Fuzz(func(t *testing.T, text string) {
		lines := strings.Count(text, "\n") + 1
		games, errs := readAll(t, text)
		for _, e := range errs {
			if e.Game < 1 || e.Line < 1 || e.Line > lines {
				t.Fatalf("error outside the input: %v (input has %d lines)", e, lines)
			}
		}
		for _, g := range games {
			if len(g.Moves) != len(g.MoveLines) || g.Comments != nil && len(g.Comments) != len(g.Moves) || g.Line < 1 || g.Line > lines {
				t.Fatalf("inconsistent game %+v", g)
			}
		}
	})
}

func TestGamesOnOneLine(t *testing.T) {
	text := `[Event "a"] [Result "1-0"] 1. e4 {[%clk 0:03:00] [x} e5 2. Nf3 1-0 [Event "b"][White "w \"]\" w"] 1. d4 d5 0-1 ` +
		`[Site "c"] [Result "*"] 1. c4 ; [Event "no"]` + "\n" + `e5 *` + "\n"
	games, errs := readAll(t, text)
	if len(errs) != 0 || len(games) != 3 {
		t.Fatalf("%d games, errors %v", len(games), errs)
	}
	want := [][]string{{"e4", "e5", "Nf3"}, {"d4", "d5"}, {"c4", "e5"}}
	for i, g := range games {
		if !reflect.DeepEqual(g.Moves, want[i]) {
			t.Errorf("game %d: moves %v, want %v", i+1, g.Moves, want[i])
		}
	}
	if games[1].Tag("White") != `w "]" w` || games[2].Tag("Site") != "c" || games[2].Line != 1 {
		t.Errorf("tags %v %v, line %d", games[1].Tags, games[2].Tags, games[2].Line)
	}
}

// The reported bug: thousands of games on one line were one game over the
// limit, all dropped. Now only a single game over the limit is skipped.
func TestManyGamesOnOneLongLine(t *testing.T) {
	var b strings.Builder
	const n = 30000 // about 1.6 MiB, over the read buffer and MaxGameBytes
	for i := range n {
		if i == n/2 {
			b.WriteString(`[Event "long"] 1. e4 {` + strings.Repeat("x", MaxGameBytes) + `} 1-0 `)
		}
		b.WriteString(`[Event "g"] [Round "` + strings.Repeat("1", i%7) + `"] 1. e4 e5 2. Nf3 Nc6 1/2-1/2 `)
	}
	games, errs := readAll(t, b.String())
	if len(games) != n || len(errs) != 1 || !strings.Contains(errs[0].Reason, "longer than") || errs[0].Game != n/2+1 {
		t.Fatalf("%d games (want %d), errors %v", len(games), n, errs)
	}
	for _, g := range games {
		if len(g.Moves) != 4 || g.Tag("Event") != "g" {
			t.Fatalf("game %d: %v %v", g.Number, g.Tags, g.Moves)
		}
	}
}
