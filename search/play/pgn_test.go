package play

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/notnil/chess"

	"github.com/dchess/dchess/internal/chess/board"
	"github.com/dchess/dchess/search/match"
	"github.com/dchess/dchess/search/player"
)

// matedGame is a game of two moves that ends in White's mate.
func matedGame(white string) Result {
	return Result{White: white, Black: "scripted", FEN: "6k1/p4ppp/8/8/8/8/5PPP/1R4K1 b - - 0 1",
		Moves:   []match.PlayedMove{{UCI: "a7a6", SAN: "a6", Info: player.MoveInfo{Move: "a7a6"}}, {UCI: "b1b8", SAN: "Rb8#", Info: player.MoveInfo{Move: "b1b8"}}},
		Outcome: "1-0", Termination: match.TermCheckmate, Reason: "White mates", Started: time.Date(2025, 3, 9, 12, 0, 0, 0, time.Local)}
}

const matedPGN = `[Event "dchess play"]
[Site "?"]
[Date "2025.03.09"]
[Round "1"]
[White "Tester"]
[Black "scripted"]
[Result "1-0"]
[Termination "normal"]
[TimeControl "-"]
[SetUp "1"]
[FEN "6k1/p4ppp/8/8/8/8/5PPP/1R4K1 b - - 0 1"]
[PlyCount "2"]

1... a6 2. Rb8# {White mates} 1-0

`

// readBack reads a PGN file's games with notnil/chess, an independent reader.
func readBack(t *testing.T, pgn string) []*chess.Game {
	t.Helper()
	all, err := chess.GamesFromPGN(strings.NewReader(pgn))
	if err != nil {
		t.Fatalf("notnil/chess cannot read the PGN: %v\n%s", err, pgn)
	}
	var games []*chess.Game
	for _, g := range all {
		if g.GetTagPair("Event") != nil { // not the empty game after the last blank line
			games = append(games, g)
		}
	}
	return games
}

func TestThePGNOfAPlayedGame(t *testing.T) {
	res, _ := run(t, Options{Human: board.White, FEN: "6k1/p4ppp/8/8/8/8/5PPP/1R4K1 b - - 0 1"}, map[string]string{"": "a7a6"}, "Rb8#\n")
	var b bytes.Buffer
	if err := res.WritePGN(&b); err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(matedPGN, "2025.03.09", res.Started.Format("2006.01.02"), 1)
	if b.String() != want {
		t.Errorf("PGN:\n%s\nwant:\n%s", b.String(), want)
	}
}

// tagLine is a tag pair as the PGN standard allows it: printing characters,
// quotes and backslashes escaped.
var tagLine = regexp.MustCompile(`^\[[A-Za-z0-9_]+ "([^"\\\x00-\x1f\x7f]|\\["\\])*"\]$`)

func TestPGNTagValuesAreLegal(t *testing.T) {
	var b bytes.Buffer
	if err := matedGame("  Te\"st\\er\nx\ty\x00z\x7f\u0085\xff \r\n").WritePGN(&b); err != nil {
		t.Fatal(err)
	}
	tags, _, _ := strings.Cut(b.String(), "\n\n")
	for _, line := range strings.Split(tags, "\n") {
		if !tagLine.MatchString(line) {
			t.Errorf("illegal tag line %q", line)
		}
	}
	if want := `[White "Te\"st\\er x y z  ` + "\uFFFD" + `"]`; !strings.Contains(tags, want+"\n") {
		t.Errorf("tags:\n%s\nwant %s", tags, want)
	}
	if games := readBack(t, b.String()); len(games) != 1 || games[0].GetTagPair("Black").Value != "scripted" {
		t.Errorf("notnil/chess reads %v", games)
	}
}

func TestAppendPGN(t *testing.T) {
	path := filepath.Join(t.TempDir(), "games.pgn")
	game := matedGame("Tester")
	for _, tc := range []struct {
		name, before, after string
	}{
		{"a new file", "", matedPGN},
		{"after a game", matedPGN, matedPGN + matedPGN},
		{"after a game without its last newline", strings.TrimSuffix(matedPGN, "\n\n"), matedPGN + matedPGN},
		{"after a game without its blank line", strings.TrimSuffix(matedPGN, "\n"), matedPGN + matedPGN},
		{"after a game with CRLF line ends", strings.ReplaceAll(matedPGN, "\n", "\r\n"), strings.ReplaceAll(matedPGN, "\n", "\r\n") + matedPGN},
		{"after a game with CRLF and no newline", strings.TrimSuffix(strings.ReplaceAll(matedPGN, "\n", "\r\n"), "\r\n\r\n"),
			strings.TrimSuffix(strings.ReplaceAll(matedPGN, "\n", "\r\n"), "\r\n\r\n") + "\n\n" + matedPGN},
	} {
		os.Remove(path)
		if tc.before != "" {
			if err := os.WriteFile(path, []byte(tc.before), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := AppendPGN(path, game); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if string(data) != tc.after {
			t.Errorf("%s: the file is\n%q\nwant\n%q", tc.name, data, tc.after)
		}
		if games := readBack(t, string(data)); len(games) != strings.Count(tc.after, "[Event ") {
			t.Errorf("%s: notnil/chess reads %d games", tc.name, len(games))
		}
	}
	if err := AppendPGN(t.TempDir(), game); err == nil {
		t.Error("appending to a folder: no error")
	}
}

func TestSeparator(t *testing.T) {
	for tail, want := range map[string]string{
		"": "", "1-0": "\n\n", "\n": "\n", "0\n": "\n", "0\n\n": "", "\n\n\n": "",
		"0\r\n": "\n", "\r\n\r\n": "", "\n  ": "\n\n",
	} {
		if got := separator([]byte(tail)); got != want {
			t.Errorf("after %q: %q, want %q", tail, got, want)
		}
	}
}
