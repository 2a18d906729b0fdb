package player

import (
	"strings"
	"testing"
)

// TestGameBoardFollowsTheGame: a player's board, kept from move to move,
// is the board Board builds from scratch whatever the next position is (the
// game going on, taken back, another game, another start), keeps the
// game's history for repetitions, and is the caller's to change.
func TestGameBoardFollowsTheGame(t *testing.T) {
	const other = "8/P6k/8/8/8/8/8/K7 w - - 0 1"
	steps := []Position{
		{StartFEN: "startpos"},
		{StartFEN: "startpos", Moves: []string{"g1f3"}},
		{StartFEN: "startpos", Moves: []string{"g1f3", "g8f6", "f3g1", "f6g8"}},
		{StartFEN: "startpos", Moves: []string{"g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6"}},
		{StartFEN: "startpos", Moves: []string{"g1f3", "g8f6"}},
		{StartFEN: "startpos", Moves: []string{"e2e4", "e7e5"}},
		{StartFEN: "", Moves: []string{"e2e4", "e7e5", "g1f3"}},
		{StartFEN: other, Moves: []string{"a7a8q"}},
		{StartFEN: other, Moves: []string{"a7a8q", "h7g6"}},
	}
	var g gameBoard
	for i, pos := range steps {
		want, err := Board(pos)
		if err != nil {
			t.Fatal(err)
		}
		got, err := g.board(pos)
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if got.FEN() != want.FEN() || got.Key() != want.Key() || got.Ply() != want.Ply() || got.IsRepeated() != want.IsRepeated() {
			t.Fatalf("step %d: kept board %s (ply %d, repeated %v), built %s (ply %d, repeated %v)",
				i, got.FEN(), got.Ply(), got.IsRepeated(), want.FEN(), want.Ply(), want.IsRepeated())
		}
		// The caller may play on; the kept board must not see it.
		for _, m := range got.LegalMoves()[:1] {
			got.Make(m)
		}
	}
	if _, err := g.board(Position{StartFEN: other, Moves: []string{"a7a8q", "h7g6", "a8b8", "g6f5", "a8a9"}}); err == nil || !strings.Contains(err.Error(), "move 5 (a8a9)") {
		t.Fatalf("an illegal fifth move: %v", err)
	}
	// A failed move leaves no half-made board behind.
	pos := Position{StartFEN: other, Moves: []string{"a7a8q", "h7g6", "a8b8"}}
	got, err := g.board(pos)
	want, _ := Board(pos)
	if err != nil || got.FEN() != want.FEN() {
		t.Fatalf("after the error: %v, %v", got, err)
	}
}
