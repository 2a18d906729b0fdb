package board

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// PerftCase is one position of a perft suite with its known node counts.
type PerftCase struct {
	Line   int // 1-based line in the suite file
	FEN    string
	Counts map[int]int64 // depth -> leaf nodes
}

// Depths returns the depths with known counts, shallowest first.
func (c PerftCase) Depths() []int {
	ds := make([]int, 0, len(c.Counts))
	for d := range c.Counts {
		ds = append(ds, d)
	}
	sort.Ints(ds)
	return ds
}

var perftCount = regexp.MustCompile(`D(\d+)\s+(\d+)`)

// ParsePerftSuite reads EPD perft suites: `FEN ;D1 20 ;D2 400 ...`, with
// the separator spacing, 4- or 6-field FENs, CRLF line ends and stray NUL
// bytes that the suites in circulation mix. Blank lines and lines starting
// with # are skipped.
func ParsePerftSuite(r io.Reader) ([]PerftCase, error) {
	var cases []PerftCase
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	line := 0
	for sc.Scan() {
		line++
		text := strings.Trim(sc.Text(), " \t\r\x00")
		if text == "" || text[0] == '#' {
			continue
		}
		fenPart, rest, ok := strings.Cut(text, ";")
		if !ok {
			return nil, fmt.Errorf("line %d: no ;D<depth> <nodes> fields in %q", line, text)
		}
		c := PerftCase{Line: line, FEN: strings.Join(strings.Fields(fenPart), " "), Counts: map[int]int64{}}
		for _, m := range perftCount.FindAllStringSubmatch(rest, -1) {
			d, err1 := strconv.Atoi(m[1])
			n, err2 := strconv.ParseInt(m[2], 10, 64)
			if err1 != nil || err2 != nil || d < 1 {
				return nil, fmt.Errorf("line %d: bad count %q", line, m[0])
			}
			c.Counts[d] = n
		}
		if len(c.Counts) == 0 {
			return nil, fmt.Errorf("line %d: no D<depth> <nodes> counts in %q", line, rest)
		}
		cases = append(cases, c)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return cases, nil
}

// ReadPerftSuites reads every *.epd suite in dir, by file name.
func ReadPerftSuites(dir string) (map[string][]PerftCase, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.epd"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no perft suites (*.epd) in %s", dir)
	}
	suites := map[string][]PerftCase{}
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			return nil, err
		}
		cases, err := ParsePerftSuite(fh)
		fh.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		suites[filepath.Base(f)] = cases
	}
	return suites, nil
}

// DivideEntry is one root move's share of a perft count.
type DivideEntry struct {
	Move  Move
	Nodes int64
}

// Divide splits Perft(depth) by root move, in generation order; comparing
// it with another generator's divide output finds the move that differs.
func (b *Board) Divide(depth int) []DivideEntry {
	moves := b.LegalMoves()
	out := make([]DivideEntry, 0, len(moves))
	for _, m := range moves {
		b.Make(m)
		out = append(out, DivideEntry{Move: m, Nodes: b.Perft(depth - 1)})
		b.Unmake()
	}
	return out
}
