package docs

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/dchess/dchess/internal/testenv"
)

// The manual says how to do a task; what was measured (a speed, a rating,
// a loss, a share, a data size) is the record's, docs/status.md and the
// dated entries of docs/results, each figure with its date, commit and
// command. The manual links there instead of repeating a figure, so that a
// measurement is written, dated and superseded in one place.

// recordFreePages are the manual's pages: the README, the guide, the
// formats and the family pages, and the two pages that now point into the
// record.
func recordFreePages(t *testing.T) []string {
	t.Helper()
	guide, err := filepath.Glob(filepath.Join(testenv.RepoRoot(), "docs", "guide", "*.md"))
	if err != nil || len(guide) == 0 {
		t.Fatalf("no guide pages: %v", err)
	}
	pages := []string{"README.md"}
	for _, p := range guide {
		rel, _ := filepath.Rel(testenv.RepoRoot(), p)
		pages = append(pages, filepath.ToSlash(rel))
	}
	return append(pages, "docs/nnue.md", "docs/flow.md", "docs/training.md",
		"docs/dataset-format.md", "docs/weights-format.md", "docs/strength.md", "docs/benchmarks.md")
}

// number is a figure as the pages write it: 1,024, −0.5, +66.
const number = `[-+−]?\d[\d,]*(?:\.\d+)?`

// measuredRE matches what a measurement looks like in prose: a number with
// a unit of time, a rate, a share, an Elo or its margin, a data size in
// millions, a ratio (0.89×, 1.5x faster) or centipawns to two places. Whole
// numbers of centipawns and products such as 8×8 are left alone: in the
// manual they are settings and shapes.
var measuredRE = regexp.MustCompile(`(?:^|[^\w.])(` +
	number + `\s?(?:%|ns\b|µs\b|ms\b|s\b|min\b|Elo\b|±\s?\d[\d,]*(?:\.\d+)?|(?:samples|positions|games|nodes|moves)/s|times (?:faster|slower|as)\b|million\b)` +
	`|` + number + `×(?:$|[^\d\s×]|\s\D)` +
	`|\d+\.\d+\s?(?:cp|x)\b)`)

// definitions are the figures of the manual that measure nothing: each is
// text on some page, found verbatim (lines joined by one space), and must
// still be found there, so that an entry cannot outlive its text.
var definitions = []struct{ text, why string }{
	{"95 %", "the confidence of every interval and bound dchess reports"},
	{"100 % or 0 %", "the scores at which an interval has no finite end"},
	{"5 % probability", "the one-sided 95 % bound's definition"},
	{"100 % by construction", "what legal_mask guarantees"},
	{"W136 L96 D111 gives +40.70 ± 30.43", "a worked example: search/elo's test vector"},
	{"a line every 30 s", "how often progress is logged"},
	{"the default `1%`", "--max-failures' default"},
	{"271.6 cp per logit unit", "the nnue scale constant"},
	{"150 ns a node", "issue #19's goal"},
	{"chunks made 5 million", "issue #19's goal"},
	{"17 million multiply-adds", "counted from the table's shapes"},
	{"under 70 % of the player's median", "the match's slow-game threshold (search/match slowShare)"},
}

// recordLinkRE is a link; one into the record may name its figure in the
// link's text.
var (
	recordLinkRE   = regexp.MustCompile(`\[([^\]]*)\]\(([^)\s]*)\)`)
	recordTargetRE = regexp.MustCompile(`(?:^|/)(?:results/|status\.md)`)
)

// joinedPage is a page's lines, each trimmed and followed by one space,
// and where each line starts, so a figure wrapped over two lines is one.
type joinedPage struct {
	text   string
	starts []int
}

func joinPage(data string) joinedPage {
	var p joinedPage
	var b strings.Builder
	for _, l := range strings.Split(data, "\n") {
		p.starts = append(p.starts, b.Len())
		b.WriteString(strings.TrimSpace(l))
		b.WriteByte(' ')
	}
	p.text = b.String()
	return p
}

// line is the page's line, from 1, holding the joined text's offset.
func (p joinedPage) line(offset int) int {
	return sort.Search(len(p.starts), func(i int) bool { return p.starts[i] > offset })
}

// blank replaces text[from:to] with spaces, keeping every offset.
func blank(text string, from, to int) string {
	return text[:from] + strings.Repeat(" ", to-from) + text[to:]
}

// figure is a measured-looking figure and the line it is on, from 1.
type figure struct {
	line int
	text string
}

// measuredFigures lists the measured-looking figures of a page's text,
// leaving out the text of links into the record and the definitions, and
// counts each definition found in used.
func measuredFigures(data string, used []int) []figure {
	p := joinPage(data)
	text := p.text
	for _, m := range recordLinkRE.FindAllStringSubmatchIndex(text, -1) {
		if recordTargetRE.MatchString(text[m[4]:m[5]]) {
			text = blank(text, m[2], m[3])
		}
	}
	for i, d := range definitions {
		for {
			at := strings.Index(text, d.text)
			if at < 0 {
				break
			}
			text = blank(text, at, at+len(d.text))
			used[i]++
		}
	}
	var found []figure
	for _, m := range measuredRE.FindAllStringSubmatchIndex(text, -1) {
		f := text[m[2]:m[3]]
		if i := strings.Index(f, "×"); i >= 0 {
			f = f[:i+len("×")] // not what follows it
		}
		found = append(found, figure{p.line(m[2]), strings.TrimSpace(f)})
	}
	return found
}

func TestManualQuotesNoMeasurements(t *testing.T) {
	used := make([]int, len(definitions))
	var found []string
	for _, page := range recordFreePages(t) {
		data, err := os.ReadFile(filepath.Join(testenv.RepoRoot(), page))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range measuredFigures(string(data), used) {
			found = append(found, fmt.Sprintf("%s:%d: %s", page, f.line, f.text))
		}
	}
	if len(found) > 0 {
		t.Errorf("%d figures in the manual look measured; put each in the dated entry under docs/results it comes from "+
			"(and docs/status.md if it is a headline) and link there, or, if it measures nothing, add it to definitions with why:\n%s",
			len(found), strings.Join(found, "\n"))
	}
	for i, d := range definitions {
		if used[i] == 0 {
			t.Errorf("definitions: %q (%s) is on no manual page any more; remove it", d.text, d.why)
		}
	}
}

// TestMeasuredFigures pins what counts as a measured figure: the forms the
// manual used to quote, and the settings, shapes and links it keeps.
func TestMeasuredFigures(t *testing.T) {
	for _, c := range []struct {
		text string
		want []string
	}{
		{"the pairwise node costs 24 % less", []string{"1:24 %"}},
		{"trains on several. About 69 % of\n  the positions are quiet", []string{"1:69 %"}},
		{"beat the same recipe by 66 ± 29 Elo at depth 6", []string{"1:66 ± 29"}},
		{"costs 131.8-138.8 ns a node", []string{"1:138.8 ns"}},
		{"5.3 µs in pure Go,\nat 0.89× the heuristic's", []string{"1:5.3 µs", "2:0.89×"}},
		{"2.30 cp from the graph", []string{"1:2.30 cp"}},
		{"(5.3 million quiet positions)", []string{"1:5.3 million"}},
		{"in 3 min 19 s, 44,829 samples/s", []string{"1:3 min", "1:19 s", "1:44,829 samples/s"}},
		{"[+90 ± 34](results/2026-11-29-nnue-ten-chunk-ship.md)", nil},
		{"[+90 ± 34](../status.md#players)", nil},
		{"[+90 ± 34](guide/play.md)", []string{"1:+90 ± 34"}},
		{"conv 13×3×3, 8×8 → 6×6, 0.005 × 0.98 per epoch, ×0.99 an epoch", nil},
		{"a pawn is 100 cp, the lead beyond 500 cp, clamped to ±2000", nil},
		{"N = 256, 1,968 moves, 24 GiB, `--hash 1`, 10+0.1", nil},
	} {
		var got []string
		for _, f := range measuredFigures(c.text, make([]int, len(definitions))) {
			got = append(got, fmt.Sprintf("%d:%s", f.line, f.text))
		}
		if strings.Join(got, ",") != strings.Join(c.want, ",") {
			t.Errorf("%q: found %v, want %v", c.text, got, c.want)
		}
	}
}
