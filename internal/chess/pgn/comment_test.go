package pgn

import (
	"reflect"
	"testing"
	"time"
)

func TestCommentsFollowTheirMainLineMove(t *testing.T) {
	text := `[Event "x"]

{ before the first move } 1. e4 { [%eval 0.17] [%clk 0:03:00] } 1... e5 (1... c5 { in a variation }) 2. Nf3
{ one } { two } 2... Nc6 3. Bb5 1-0 { after the result }
`
	g, err := Parse([]byte(text), 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"[%eval 0.17] [%clk 0:03:00]", "", "one two", "", ""}
	if !reflect.DeepEqual(g.Comments, want) {
		t.Errorf("comments %q, want %q", g.Comments, want)
	}
	g, err = Parse([]byte("1. e4 e5 { x } 2. Nf3 *\n"), 1, 1)
	if err != nil || !reflect.DeepEqual(g.Comments, []string{"", "x", ""}) {
		t.Errorf("comments %q, %v", g.Comments, err)
	}
	// A game without comments after its moves has none.
	g, err = Parse([]byte("{ intro } 1. e4 (1. d4 { no }) e5 *\n"), 1, 1)
	if err != nil || g.Comments != nil {
		t.Errorf("comments %q, %v", g.Comments, err)
	}
}

func TestCommentEval(t *testing.T) {
	for _, tc := range []struct {
		comment string
		want    Eval
		ok      bool
		bad     bool
	}{
		{"[%eval 0.17] [%clk 0:03:00]", Eval{CP: 17}, true, false},
		{"[%clk 0:03:00] [%eval -1.5]", Eval{CP: -150}, true, false},
		{"[%eval -0.005]", Eval{CP: -1}, true, false},
		{"[%eval #3]", Eval{Mate: 3}, true, false},
		{"[%eval #-3]", Eval{Mate: -3}, true, false},
		{"good move [%eval 2.35,23]", Eval{CP: 235, Depth: 23}, true, false},
		{"[%evaluation 1.0] no eval here", Eval{}, false, false},
		{"[%clk 0:03:00]", Eval{}, false, false},
		{"", Eval{}, false, false},
		{"[%eval abc]", Eval{}, true, true},
		{"[%eval #0]", Eval{}, true, true},
		{"[%eval 0.3,x]", Eval{}, true, true},
		{"[%eval NaN]", Eval{}, true, true},
	} {
		e, ok, err := CommentEval(tc.comment)
		if e != tc.want || ok != tc.ok || (err != nil) != tc.bad {
			t.Errorf("CommentEval(%q) = %+v, %v, %v", tc.comment, e, ok, err)
		}
	}
}

func TestCommentClock(t *testing.T) {
	for _, tc := range []struct {
		comment string
		want    time.Duration
		ok, bad bool
	}{
		{"[%eval 0.17] [%clk 0:03:00]", 3 * time.Minute, true, false},
		{"[%clk 1:02:03]", time.Hour + 2*time.Minute + 3*time.Second, true, false},
		{"[%clk 0:00:09.8]", 9800 * time.Millisecond, true, false},
		{"[%clk 3:05]", 3*time.Minute + 5*time.Second, true, false},
		{"[%clk 0:00:00]", 0, true, false},
		{"[%eval 0.1]", 0, false, false},
		{"[%clk 0:61:00]", 0, true, true},
		{"[%clk 0:00:60]", 0, true, true},
		{"[%clk soon]", 0, true, true},
		{"[%clk 0:00:NaN]", 0, true, true},
		{"[%clk -1:00:00]", 0, true, true},
	} {
		d, ok, err := CommentClock(tc.comment)
		if d != tc.want || ok != tc.ok || (err != nil) != tc.bad {
			t.Errorf("CommentClock(%q) = %v, %v, %v", tc.comment, d, ok, err)
		}
	}
}
