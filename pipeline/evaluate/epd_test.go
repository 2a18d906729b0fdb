package evaluate

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/dchess/dchess/search/player"
)

// limitSpy plays Kg1 and keeps the limits of every move it was asked for.
type limitSpy struct{ seen *[]player.Limits }

func (limitSpy) Name() string                  { return "limitspy" }
func (limitSpy) NewGame(context.Context) error { return nil }
func (limitSpy) Close() error                  { return nil }
func (p limitSpy) Move(_ context.Context, _ player.Position, lim player.Limits) (player.MoveInfo, error) {
	*p.seen = append(*p.seen, lim)
	return player.MoveInfo{Move: "h1g1"}, nil
}

// TestEPDThinksASecondWithoutALimit: a suite played with no depth, nodes
// or time gets DefaultEPDMoveTime a position; a limit given is kept.
func TestEPDThinksASecondWithoutALimit(t *testing.T) {
	var seen []player.Limits
	player.Register("limitspy", func(context.Context, player.Spec) (player.Player, error) { return limitSpy{&seen}, nil })
	path := filepath.Join(t.TempDir(), "suite.epd")
	if err := os.WriteFile(path, []byte("k7/8/8/8/8/8/r7/7K w - - bm Kg1;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	given := []player.Limits{{}, {Depth: 3}, {Nodes: 100}, {MoveTime: time.Millisecond}}
	for _, lim := range given {
		rep, err := EPD(context.Background(), path, Options{Player: player.Spec{Family: "limitspy"}, Limits: lim}, nil)
		if err != nil || rep.Solved != 1 {
			t.Fatalf("limits %+v: %+v, %v", lim, rep, err)
		}
	}
	want := append([]player.Limits{{MoveTime: DefaultEPDMoveTime}}, given[1:]...)
	if len(seen) != len(want) {
		t.Fatalf("moves asked with %+v, want %+v", seen, want)
	}
	for i := range want {
		if !reflect.DeepEqual(seen[i], want[i]) {
			t.Errorf("given %+v, the player was asked with %+v, want %+v", given[i], seen[i], want[i])
		}
	}
}
