package tournament_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dchess/dchess/search/match"
	"github.com/dchess/dchess/search/tournament"
)

// TestPlayTo: a stopped tournament with a journal says where its games
// are and how to go on, and leaves no PGN file; the rerun writes it, and a
// third run does not replace it without replace.
func TestPlayTo(t *testing.T) {
	dir := t.TempDir()
	pgn, journal := filepath.Join(dir, "t.pgn"), filepath.Join(dir, ".t.pgn.journal.jsonl")
	play := func(stopAfter int, replace bool) (*tournament.Standings, error) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		games := 0
		tour, err := tournament.New(ctx, tournament.Config{Players: specs(t, "heuristic:depth=1", "random"), GamesPerPair: 4, Journal: journal,
			Match: match.Config{Concurrency: 1, RandomPlies: 2, Seed: 1, Depth: 1, MaxMoves: 60,
				OnGame: func(match.GameResult, *match.Report) {
					if games++; games == stopAfter {
						cancel()
					}
				}}})
		if err != nil {
			t.Fatal(err)
		}
		return tour.PlayTo(ctx, pgn, replace)
	}
	_, err := play(2, false)
	if !errors.Is(err, tournament.ErrInterrupted) || !strings.Contains(err.Error(), fmt.Sprintf("kept in %s and %s was not written: run the same command again", journal, pgn)) {
		t.Fatalf("stopped: %v", err)
	}
	if _, err := os.Stat(pgn); !os.IsNotExist(err) {
		t.Fatalf("a stopped tournament left its file: %v", err)
	}
	if st, err := play(0, false); err != nil || st.Games() != 4 {
		t.Fatalf("continued: %v, %+v", err, st)
	}
	if _, err := play(0, false); err == nil || !strings.Contains(err.Error(), "--force") {
		t.Errorf("over the file: %v", err)
	}
	if _, err := play(0, true); err != nil {
		t.Errorf("replacing the file: %v", err)
	}
}

func TestIsAnchorError(t *testing.T) {
	_, err := tournament.New(context.Background(), tournament.Config{Players: specs(t, "heuristic", "random"), GamesPerPair: 2,
		Anchors: []tournament.Anchor{{Name: "nobody", Elo: 1}}})
	if !tournament.IsAnchorError(err) || tournament.IsAnchorError(fmt.Errorf("x")) || tournament.IsAnchorError(nil) {
		t.Errorf("IsAnchorError(%v) is not the only one", err)
	}
}
