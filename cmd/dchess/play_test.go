package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dchess/dchess/models/experience"
)

func TestPlayThroughStdin(t *testing.T) {
	pgn := filepath.Join(t.TempDir(), "play.pgn")
	s, out, _ := playStreams("e4\nKe4\nmoves\nundo\nundo\ng1f3\nresign\n")
	opts := &playOptions{Player: "heuristic:depth=1", Color: "white", PGN: pgn, Name: "Tester"}
	if err := runPlay(context.Background(), opts, s); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	for _, want := range []string{
		// Black's back rank at the top in lower case, each side labelled.
		"  Black (lower case): heuristic:depth=1\n8 r n b q k b n r",
		"1 R N B Q K B N R \n  a b c d e f g h\n  White (capitals): Tester\n",
		`"Ke4" is not a legal move here. Legal moves: a3 `,
		"Took back 2 plies.",
		"Nothing to take back.",
		"0-1: White resigns",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
	data, err := os.ReadFile(pgn)
	if err != nil {
		t.Fatal(err)
	}
	game := string(data)
	if !strings.Contains(game, `[White "Tester"]`) || !strings.Contains(game, "1. Nf3 ") || strings.Contains(game, "e4") ||
		!strings.Contains(game, `[Result "0-1"]`) {
		t.Errorf("PGN:\n%s", game)
	}
}

func TestPlayAsBlackTeachesExperience(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	dbPath := filepath.Join(dir, "exp.db")
	db, err := experience.Open(ctx, dbPath)
	if err != nil {
		t.Fatal(err)
	}
	// The tree knows only the fool's mate line for White, so the experience
	// player walks into it.
	err = db.Record(ctx, experience.Game{Moves: []string{"f2f3", "e7e5", "g2g4", "d8h4"}, Result: "0-1"})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	pgn := filepath.Join(dir, "play.pgn")
	s, out, _ := playStreams("e5\nQh4#\n")
	opts := &playOptions{Player: "experience:" + dbPath + "?learn=true", Color: "black", PGN: pgn, Name: "Tester", Seed: 1}
	if err := runPlay(ctx, opts, s); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "0-1: Black mates") || !strings.Contains(out.String(), "  h g f e d c b a") {
		t.Errorf("output:\n%s", out)
	}
	data, _ := os.ReadFile(pgn)
	if !strings.Contains(string(data), "1. f3 e5 2. g4 Qh4#") {
		t.Errorf("PGN:\n%s", data)
	}
	db, err = experience.Open(ctx, dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	st, err := db.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Games != 2 || st.Learnt != 1 || st.BlackWins != 2 {
		t.Errorf("after the game the tree has %+v, want 2 games, 1 learnt, 2 Black wins", st)
	}
}

func TestPlayBadInput(t *testing.T) {
	for _, opts := range []*playOptions{
		{Color: "white"},
		{Player: "heuristic", Color: "green"},
		{Player: "heuristic", Color: "white", FEN: "not a fen"},
		{Player: "heuristic", Color: "white", Depth: -1},
	} {
		s, _, _ := playStreams("")
		if err := runPlay(context.Background(), opts, s); err == nil || strings.Contains(err.Error(), "\n") {
			t.Errorf("%+v: want a one-line error, got %v", opts, err)
		}
	}
}

func TestPlayUnicodeBoardAndNarrowMoveList(t *testing.T) {
	s, out, _ := playStreams("moves\nquit\n")
	opts := &playOptions{Player: "random", Color: "black", PGN: filepath.Join(t.TempDir(), "p.pgn"), Name: "Tester",
		Seed: 3, Pieces: "unicode", Width: 24}
	if err := runPlay(context.Background(), opts, s); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	for _, want := range []string{"  White (♔ ♕ ♖): random\n", "  Black (♚ ♛ ♜): Tester\n", "Legal moves: "} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
	i := strings.Index(text, "Legal moves: ")
	for _, line := range strings.Split(text[i:], "\n") {
		if line == "" { // the board drawn again
			break
		}
		if len(line) > 24 {
			t.Errorf("move list line %q passes --width 24", line)
		}
	}
	s, _, _ = playStreams("")
	if err := runPlay(context.Background(), &playOptions{Player: "random", Color: "white", Pieces: "emoji"}, s); err == nil || !strings.Contains(err.Error(), "--pieces") {
		t.Errorf("--pieces emoji: %v", err)
	}
}
