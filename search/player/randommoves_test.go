package player

import (
	"context"
	"reflect"
	"testing"
)

func TestRandomMovesWrapper(t *testing.T) {
	ctx := context.Background()
	inner, err := New(ctx, "heuristic:depth=1")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := WithRandomMoves(inner, 1.5, 0, 1); err == nil {
		t.Error("rate 1.5 accepted")
	}
	// Rate 1 within the first 4 plies: those moves are random (no score),
	// the later ones the searcher's own (with a score).
	w, err := WithRandomMoves(inner, 1, 4, 7)
	if err != nil {
		t.Fatal(err)
	}
	play := func(gameSeed uint64) []string {
		w.SeedGame(gameSeed)
		var pos Position
		for ply := range 8 {
			mi, err := w.Move(ctx, pos, Limits{})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := Board(Position{Moves: append(pos.Moves, mi.Move)}); err != nil {
				t.Fatalf("ply %d: illegal move %s", ply, mi.Move)
			}
			if mi.HasScore != (ply >= 4) {
				t.Errorf("ply %d: HasScore %v", ply, mi.HasScore)
			}
			pos.Moves = append(pos.Moves, mi.Move)
		}
		return pos.Moves
	}
	if a, b := play(1), play(1); !reflect.DeepEqual(a, b) {
		t.Error("the same game seed gave different games")
	}
	if a, b := play(1), play(2); reflect.DeepEqual(a[:4], b[:4]) {
		t.Error("different game seeds gave the same random moves")
	}
	if Unwrap(w) != inner || w.Name() != inner.Name() {
		t.Error("the wrapper hides its player")
	}
}

// observer records the games it is told about.
type observer struct {
	*Random
	games []FinishedGame
}

func (o *observer) GameOver(_ context.Context, g FinishedGame) error {
	o.games = append(o.games, g)
	return nil
}

func TestNotifyGameOverReachesWrappedObserver(t *testing.T) {
	obs := &observer{Random: NewRandom("r", 1)}
	w, _ := WithRandomMoves(&renamed{Player: obs, name: "named"}, 0.1, 0, 1)
	game := FinishedGame{Position: Position{Moves: []string{"e2e4"}}, Result: "1-0"}
	if err := NotifyGameOver(context.Background(), w, game); err != nil {
		t.Fatal(err)
	}
	if len(obs.games) != 1 || obs.games[0].Result != "1-0" {
		t.Errorf("observer got %+v", obs.games)
	}
	if err := NotifyGameOver(context.Background(), NewRandom("plain", 1), game); err != nil {
		t.Errorf("a player that does not learn: %v", err)
	}
}
