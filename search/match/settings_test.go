package match_test

import (
	"reflect"
	"testing"
	"time"

	"github.com/dchess/dchess/internal/chess/board"
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
