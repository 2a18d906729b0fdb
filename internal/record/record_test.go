package record

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/dchess/dchess/internal/testenv"
)

// readRecord reads a file of the record by its path from the repository's
// root.
func readRecord(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(testenv.RepoRoot(), filepath.FromSlash(path)))
	if err != nil {
		t.Fatalf("%s: %v", File, err)
	}
	return string(data)
}

// TestEveryFigureIsInItsFile: each figure a sentence prints is in the file
// of the record it names, verbatim or as the rounding of the passage it
// quotes, so the sentences cannot drift from the record.
func TestEveryFigureIsInItsFile(t *testing.T) {
	s := Load()
	for _, name := range s.FigureNames() {
		f := s.Figures[name]
		if err := f.FindIn(readRecord(t, f.From)); err != nil {
			t.Errorf("figure %s: %v", name, err)
		}
	}
}

// TestRefitsQuoteTheirGames: what a refit fits is the record's, so
// cmd/dchess's refit reads the record: the results files of a merge exist,
// and the counts of a pentanomial or anchored refit are the entry's.
func TestRefitsQuoteTheirGames(t *testing.T) {
	s := Load()
	refits := 0
	for _, name := range s.FigureNames() {
		f := s.Figures[name]
		if f.Refit == nil {
			continue
		}
		refits++
		entry := Squash(readRecord(t, f.From))
		for _, path := range f.Refit.Merge {
			if !strings.HasSuffix(path, ".json") {
				t.Errorf("figure %s merges %s, not a results file", name, path)
			}
			readRecord(t, path)
		}
		if p := f.Refit.Pentanomial; p != "" && !strings.Contains(entry, p) {
			t.Errorf("figure %s: %s does not print the pentanomial %s", name, f.From, p)
		}
		for _, g := range f.Refit.Anchored {
			if !strings.Contains(entry, g.WDL) {
				t.Errorf("figure %s: %s does not print the result %s", name, f.From, g.WDL)
			}
		}
	}
	if refits < 3 {
		t.Errorf("%d figures have a refit; the record's Elo figures have theirs", refits)
	}
}

// recordPath is a file of the record as a sentence names it.
var recordPath = regexp.MustCompile(`\b(?:docs|models)/[\w./-]+\.(?:md|json)\b`)

// TestSentencesNameTheirFiles: a reader of a sentence can find each of its
// figures: the sentence names the file of every figure it prints, and every
// file it names is there.
func TestSentencesNameTheirFiles(t *testing.T) {
	s := Load()
	for _, p := range s.PlayerNames() {
		sentence := s.Sentence(p)
		if sentence == "" || strings.ContainsAny(sentence, "{}\n") {
			t.Errorf("%s: sentence %q", p, sentence)
		}
		for _, name := range s.FiguresOf(p) {
			if from := s.Figures[name].From; !strings.Contains(sentence, from) {
				t.Errorf("%s's sentence prints %s without naming %s: %q", p, name, from, sentence)
			}
		}
		for _, path := range recordPath.FindAllString(sentence, -1) {
			readRecord(t, path)
		}
	}
	if got := Standing("heuristic"); !strings.HasPrefix(got, "about 2,061 Elo against") {
		t.Errorf("Standing(heuristic) = %q", got)
	}
	if Standing("random") != "" {
		t.Error("random has no standing in the record")
	}
}

func TestParseRefusesWhatItCannotPrint(t *testing.T) {
	const figure = "figures:\n  a: {text: \"1\", from: docs/x.md}\n"
	for _, c := range []struct{ name, yaml, want string }{
		{"unknown figure", "players:\n  p: \"{a} {b}\"\n" + figure, "{b}, which is no figure"},
		{"unused figure", "players:\n  p: \"x\"\n" + figure, "figure a is in no sentence"},
		{"brace", "players:\n  p: \"{a} }\"\n" + figure, "unmatched brace"},
		{"no file", "players:\n  p: \"{a}\"\nfigures:\n  a: {text: \"1\"}\n", "needs its text and the file"},
		{"unknown key", "players:\n  p: \"{a}\"\nfigures:\n  a: {text: \"1\", from: docs/x.md, form: y}\n", "field form not found"},
		{"two refits", "players:\n  p: \"{a}\"\nfigures:\n  a: {text: \"1\", from: docs/x.md, refit: {merge: [x.json], player: n, pentanomial: \"[1, 2, 3, 4, 5]\"}}\n", "one of merge"},
		{"no player", "players:\n  p: \"{a}\"\nfigures:\n  a: {text: \"1\", from: docs/x.md, refit: {merge: [x.json]}}\n", "names the player"},
		{"bad value", "players:\n  p: \"{a}\"\nfigures:\n  a: {text: \"1\", from: docs/x.md, refit: {merge: [x.json], player: n, value: score}}\n", "not \"score\""},
		{"stray player", "players:\n  p: \"{a}\"\nfigures:\n  a: {text: \"1\", from: docs/x.md, refit: {pentanomial: \"[1, 2, 3, 4, 5]\", player: n}}\n", "belong to a merge"},
	} {
		_, err := Parse([]byte(c.yaml))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Parse gave %v, want %q", c.name, err, c.want)
		}
	}
	s, err := Parse([]byte("players:\n  p: \"at {a} and {a}\"\n" + figure))
	if err != nil || s.Sentence("p") != "at 1 and 1" {
		t.Errorf("Parse: %v, %q", err, s.Sentence("p"))
	}
}

func TestNumbers(t *testing.T) {
	for _, c := range []struct {
		s    string
		want []Number
	}{
		{"2,361 ± 30", []Number{{2361, 1}, {30, 1}}},
		{"+159 ± 49", []Number{{159, 1}, {49, 1}}},
		{"(-12.5 %)", []Number{{-12.5, 0.1}}},
		{"5.3 million", []Number{{5.3e6, 1e5}}},
		{"0-20", []Number{{0, 1}, {20, 1}}},
		{"0.0187", []Number{{0.0187, 0.0001}}},
		{"[0, 8, 21]", []Number{{0, 1}, {8, 1}, {21, 1}}},
	} {
		got := Numbers(c.s)
		ok := len(got) == len(c.want)
		for i := 0; ok && i < len(got); i++ {
			ok = got[i].Rounds(c.want[i].Value) && got[i].Unit > c.want[i].Unit*0.999 && got[i].Unit < c.want[i].Unit*1.001
		}
		if !ok {
			t.Errorf("Numbers(%q) = %v, want %v", c.s, got, c.want)
		}
	}
	n := Numbers("5.3 million")[0]
	if !n.Rounds(5_304_647) || n.Rounds(5_350_001) {
		t.Error("5.3 million should hold 5,304,647 and not 5,350,001")
	}
}

func TestFindIn(t *testing.T) {
	file := "the network rates\nabout 2,361 ± 30 over 400 games, from 5,304,647 positions"
	for _, c := range []struct {
		f  Figure
		ok bool
	}{
		{Figure{Text: "2,361 ± 30", From: "x"}, true},
		{Figure{Text: "400", Quote: "rates about 2,361 ± 30 over 400 games", From: "x"}, true},
		{Figure{Text: "5.3 million", Quote: "5,304,647 positions", From: "x"}, true},
		{Figure{Text: "5.4 million", Quote: "5,304,647 positions", From: "x"}, false},
		{Figure{Text: "401", Quote: "over 400 games", From: "x"}, false},
		{Figure{Text: "2,362 ± 30", From: "x"}, false},
		{Figure{Text: "2,361 ± 31", Quote: "about 2,361 ± 30", From: "x"}, false},
		{Figure{Text: "2.36 ± 0.03", Quote: "about 2,361 ± 30", From: "x"}, false},
	} {
		if err := c.f.FindIn(file); (err == nil) != c.ok {
			t.Errorf("%+v: %v, want found %v", c.f, err, c.ok)
		}
	}
}
