// Package record gives dchess the figures it prints about where each
// player stands, from standing.yaml beside this file: one sentence a
// player, whose figures each name the file of the record they come from
// (an entry under docs/results, a shipped weights' note under
// models/shipped) and, where the record holds what they were fitted from,
// how to refit them. The record (docs/status.md) links to that file; a new
// result changes it and its entry, and no Go code. The file is embedded,
// so the binary prints the sentences anywhere.
//
// This package's tests find each figure in its file; cmd/dchess's refit
// those the record can refit (a `dchess tournament merge` of results
// files, a pentanomial or W-L-D counts an entry quotes).
package record

import (
	"bytes"
	_ "embed"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"
)

// File is standing.yaml's path in the repository, for messages.
const File = "internal/record/standing.yaml"

//go:embed standing.yaml
var standingYAML []byte

// Standings is standing.yaml: the figures by name, and each player's
// sentence, in which {name} stands for that figure's text.
type Standings struct {
	Figures map[string]Figure `yaml:"figures"`
	Players map[string]string `yaml:"players"`
}

// Figure is one figure a sentence prints.
type Figure struct {
	// Text is the figure as printed: "2,361 ± 30", "13.2 %", "5.3 million".
	Text string `yaml:"text"`
	// From is the file of the record the figure comes from, relative to
	// the repository's root; the sentences that print it name it.
	From string `yaml:"from"`
	// Quote is the passage of From that holds the figure, when Text alone
	// would be too short to find or From writes it more exactly (Text's
	// numbers are then the passage's first ones, rounded: "5,304,647 of
	// them quiet" for "5.3 million"). Empty: From holds Text itself.
	Quote string `yaml:"quote,omitempty"`
	// Refit, when set, says how the figure is fitted again from what the
	// record keeps.
	Refit *Refit `yaml:"refit,omitempty"`
}

// Refit says how a figure is fitted again. One of Merge, Pentanomial and
// Anchored is set.
type Refit struct {
	// Merge lists the results files (the JSON of `dchess tournament
	// --json`) whose `dchess tournament merge` rates Player: the figure is
	// its Elo ± the 95 % interval, or with Value "games" its games.
	Merge  []string `yaml:"merge,omitempty"`
	Player string   `yaml:"player,omitempty"`
	Value  string   `yaml:"value,omitempty"`
	// Pentanomial is a match's game pairs as From prints them ("[0, 8,
	// 21, 21, 26]", `dchess match`'s Ptnml(0-2)): the figure is the Elo
	// difference ± the 95 % interval they give.
	Pentanomial string `yaml:"pentanomial,omitempty"`
	// Anchored are a player's results against opponents of known rating,
	// each as From prints it: the figure is the rating that fits them all.
	Anchored []AnchoredGames `yaml:"anchored,omitempty"`
}

// AnchoredGames are a player's wins, losses and draws ("82-42-26", as From
// prints them) against an opponent rated Elo.
type AnchoredGames struct {
	Elo float64 `yaml:"elo"`
	WDL string  `yaml:"wdl"`
}

// The values a merge refit can give.
const (
	ValueElo   = ""
	ValueGames = "games"
)

var placeholder = regexp.MustCompile(`\{([^{}]*)\}`)

// Parse reads a standings file strictly: every key known, every figure
// with its text and file, every placeholder a figure and every figure
// printed by some sentence, each refit of one kind.
func Parse(data []byte) (*Standings, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var s Standings
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("%s: %w", File, err)
	}
	used := map[string]bool{}
	for _, p := range s.PlayerNames() {
		for _, name := range s.FiguresOf(p) {
			if _, ok := s.Figures[name]; !ok {
				return nil, fmt.Errorf("%s: the sentence of %s prints {%s}, which is no figure", File, p, name)
			}
			used[name] = true
		}
		if strings.ContainsAny(placeholder.ReplaceAllString(s.Players[p], ""), "{}") {
			return nil, fmt.Errorf("%s: the sentence of %s has an unmatched brace", File, p)
		}
	}
	for _, name := range s.FigureNames() {
		f := s.Figures[name]
		switch {
		case !used[name]:
			return nil, fmt.Errorf("%s: figure %s is in no sentence", File, name)
		case f.Text == "" || f.From == "":
			return nil, fmt.Errorf("%s: figure %s needs its text and the file it comes from", File, name)
		}
		if err := f.Refit.check(); err != nil {
			return nil, fmt.Errorf("%s: figure %s: %w", File, name, err)
		}
	}
	return &s, nil
}

func (r *Refit) check() error {
	if r == nil {
		return nil
	}
	kinds := 0
	for _, set := range []bool{len(r.Merge) > 0, r.Pentanomial != "", len(r.Anchored) > 0} {
		if set {
			kinds++
		}
	}
	switch {
	case kinds != 1:
		return fmt.Errorf("a refit is one of merge, pentanomial and anchored")
	case len(r.Merge) > 0 && r.Player == "":
		return fmt.Errorf("a merge refit names the player it rates")
	case r.Value != ValueElo && r.Value != ValueGames:
		return fmt.Errorf("a merge refit's value is the Elo (no value) or %q, not %q", ValueGames, r.Value)
	case len(r.Merge) == 0 && (r.Player != "" || r.Value != ValueElo):
		return fmt.Errorf("player and value belong to a merge refit")
	}
	return nil
}

// Load is the embedded standing.yaml. A malformed file is a defect of the
// build, which this package's tests rule out, so Load panics on it.
var Load = sync.OnceValue(func() *Standings {
	s, err := Parse(standingYAML)
	if err != nil {
		panic(err)
	}
	return s
})

// Standing is where player stands, in the sentence the record gives it
// with its figures filled in; "" when the record has none.
func Standing(player string) string {
	return Load().Sentence(player)
}

// Sentence is player's sentence with its figures filled in ("" for none).
func (s *Standings) Sentence(player string) string {
	return placeholder.ReplaceAllStringFunc(s.Players[player], func(m string) string {
		return s.Figures[m[1:len(m)-1]].Text
	})
}

// FiguresOf names the figures player's sentence prints, in order.
func (s *Standings) FiguresOf(player string) []string {
	var names []string
	for _, m := range placeholder.FindAllStringSubmatch(s.Players[player], -1) {
		names = append(names, m[1])
	}
	return names
}

// PlayerNames are the players with a sentence, sorted.
func (s *Standings) PlayerNames() []string { return sortedKeys(s.Players) }

// FigureNames are the figures' names, sorted.
func (s *Standings) FigureNames() []string { return sortedKeys(s.Figures) }

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// Number is a number as a figure writes it: its value and the unit of its
// last digit, so that a fitted value can be checked against its rounding.
type Number struct {
	Value float64
	Unit  float64
}

// Rounds says whether x, rounded as n is written, is n.
func (n Number) Rounds(x float64) bool {
	return math.Abs(x-n.Value) <= n.Unit/2*(1+1e-9)
}

// number matches a figure's number: a sign where one stands alone ("+159"
// but not the 20 of "0-20"), thousands separated by commas, decimals, and
// a scale word.
var number = regexp.MustCompile(`([+\-−]?)(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(\s+(?:million|thousand)\b)?`)

// Numbers are the numbers written in s, in order: "2,361 ± 30" holds 2361
// and 30, "+159 ± 49" +159 and 49, "5.3 million" 5,300,000 to the
// hundred thousand, "0-20" 0 and 20.
func Numbers(s string) []Number {
	var out []Number
	for _, m := range number.FindAllStringSubmatchIndex(s, -1) {
		sign, digits, decimals, scale := sub(s, m, 1), sub(s, m, 2), sub(s, m, 3), strings.TrimSpace(sub(s, m, 4))
		if sign != "" && m[0] > 0 && !strings.ContainsRune(" ([", rune(s[m[0]-1])) {
			sign = "" // a hyphen between numbers, as in 0-20
		}
		v, err := strconv.ParseFloat(strings.ReplaceAll(digits, ",", "")+decimals, 64)
		if err != nil {
			continue
		}
		unit := 1.0
		if decimals != "" {
			unit = math.Pow(10, -float64(len(decimals)-1))
		}
		mult := map[string]float64{"": 1, "thousand": 1e3, "million": 1e6}[scale]
		if sign == "-" || sign == "−" {
			v = -v
		}
		out = append(out, Number{Value: v * mult, Unit: unit * mult})
	}
	return out
}

func sub(s string, m []int, i int) string {
	if m[2*i] < 0 {
		return ""
	}
	return s[m[2*i]:m[2*i+1]]
}

// Quoted is the passage of the figure's file that holds it: Quote, or the
// text itself.
func (f Figure) Quoted() string {
	if f.Quote != "" {
		return f.Quote
	}
	return f.Text
}

// FindIn checks the figure against its file's text: the file holds the
// quoted passage (runs of white space, line breaks included, count as one
// space, as Markdown reads them), and the passage holds the text or, where
// the text is rounded, first numbers that round to the text's.
func (f Figure) FindIn(file string) error {
	quote := Squash(f.Quoted())
	if !strings.Contains(Squash(file), quote) {
		return fmt.Errorf("%s does not hold %q", f.From, quote)
	}
	if strings.Contains(quote, f.Text) {
		return nil
	}
	text, quoted := Numbers(f.Text), Numbers(quote)
	if len(text) == 0 || len(quoted) < len(text) {
		return fmt.Errorf("%q is not in %q, nor its numbers rounded", f.Text, quote)
	}
	for i, n := range text {
		if !n.Rounds(quoted[i].Value) {
			return fmt.Errorf("%q is not in %q, nor its numbers rounded", f.Text, quote)
		}
	}
	return nil
}

// Squash turns every run of white space in s into one space.
func Squash(s string) string { return strings.Join(strings.Fields(s), " ") }
