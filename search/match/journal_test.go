package match_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/dchess/dchess/internal/safefile"

	"github.com/dchess/dchess/internal/chess/board"
	"github.com/dchess/dchess/search/match"
)

// journalGame is a finished game numbered n, as the match runner reports it.
func journalGame(n int) match.GameResult {
	return match.GameResult{Number: n, Opening: match.Opening{FEN: board.StartFEN}, White: "A", Black: "B", AIsWhite: n%2 == 1,
		Result: "1/2-1/2", Termination: match.TermMaxMoves, Start: time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)}
}

// TestJournalContinuesAndRefuses journals three games, tears the last line
// as a kill in the middle of writing would, and checks that reopening keeps
// the whole lines and cuts the torn one, that other settings are refused
// and that restart discards the games.
func TestJournalContinuesAndRefuses(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.jsonl")
	j, err := match.OpenJournal(path, "h1", false)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{3, 1, 2} {
		if err := j.Add("A", "B", journalGame(n), "e", "-"); err != nil {
			t.Fatal(err)
		}
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	lines := strings.SplitAfter(string(data), "\n")
	// The third line (game 2) is cut short: what a kill leaves.
	torn := lines[0] + lines[1] + lines[2][:len(lines[2])/2]
	if err := os.WriteFile(path, []byte(torn), 0o644); err != nil {
		t.Fatal(err)
	}

	j, err = match.OpenJournal(path, "h1", false)
	if err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(path); string(data) != lines[0]+lines[1] {
		t.Errorf("reopened journal keeps the torn line:\n%s", data)
	}
	var numbers []int
	for _, e := range j.Games() {
		numbers = append(numbers, e.Game.Number)
		pgn, err := j.PGN(e.Game.Number)
		if e.SettingsHash != "h1" || e.A != "A" || e.PGN != "" || err != nil || !strings.Contains(pgn, fmt.Sprintf("[Round \"%d\"]", e.Game.Number)) {
			t.Errorf("entry %+v, PGN %q, %v", e, pgn, err)
		}
	}
	if !reflect.DeepEqual(numbers, []int{1, 3}) || j.Len() != 2 {
		t.Fatalf("reopened journal holds games %v, want 1 and 3", numbers)
	}
	if rest := j.Remaining([]int{1, 2, 3, 4}); !reflect.DeepEqual(rest, []int{2, 4}) {
		t.Errorf("remaining %v, want 2 and 4", rest)
	}
	if rest := j.Remaining([]int{1}); rest == nil || len(rest) != 0 {
		t.Errorf("remaining of journalled games: %#v, want an empty list (nil plays every game)", rest)
	}
	// The torn line is gone, so a new game follows the whole ones and
	// reads back.
	if err := j.Add("A", "B", journalGame(2), "e", "-"); err != nil {
		t.Fatal(err)
	}
	if pgn, err := j.PGN(2); err != nil || !strings.Contains(pgn, `[Round "2"]`) {
		t.Errorf("game 2 added after the cut: %q, %v", pgn, err)
	}
	if _, err := j.PGN(4); err == nil {
		t.Error("PGN of a game the journal lacks")
	}
	if safefile.LocksWork {
		if _, err := match.OpenJournal(path, "h1", false); !errors.Is(err, safefile.ErrLocked) {
			t.Errorf("a second open of a journal in use: %v", err)
		}
	}
	j.Close()
	if data, _ := os.ReadFile(path); string(data) != lines[0]+lines[1]+lines[2] {
		t.Errorf("journal after the torn line was replaced:\n%s\nwant\n%s", data, lines[0]+lines[1]+lines[2])
	}

	if _, err := match.OpenJournal(path, "h2", false); !errors.Is(err, match.ErrJournalSettings) || !strings.Contains(err.Error(), path) {
		t.Fatalf("a journal of other settings: %v", err)
	}
	j, err = match.OpenJournal(path, "h2", true)
	if err != nil || j.Len() != 0 {
		t.Fatalf("restart over a journal of other settings: %v", err)
	}
	if err := j.Remove(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("removed journal still there: %v", err)
	}
}

// TestJournalData: a game's data is journalled in its line, kept out of
// memory and read back after a reopen; a game added without any has none.
func TestJournalData(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".g.pgn.journal.jsonl")
	j, err := match.OpenJournal(path, "h", false)
	if err != nil {
		t.Fatal(err)
	}
	if err := j.AddData("A", "B", journalGame(1), "e", "-", json.RawMessage(`{"moves":[1,2]}`)); err != nil {
		t.Fatal(err)
	}
	if err := j.Add("A", "B", journalGame(2), "e", "-"); err != nil {
		t.Fatal(err)
	}
	j.Close()
	if j, err = match.OpenJournal(path, "h", false); err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if e, _ := j.Game(1); e.Data != nil {
		t.Errorf("entry keeps its data in memory: %s", e.Data)
	}
	if data, err := j.Data(1); err != nil || string(data) != `{"moves":[1,2]}` {
		t.Errorf("game 1's data %s, %v", data, err)
	}
	if data, err := j.Data(2); err != nil || data != nil {
		t.Errorf("game 2, added without data: %s, %v", data, err)
	}
}
