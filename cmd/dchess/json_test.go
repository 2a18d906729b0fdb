package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/dchess/dchess/dataset"
	"github.com/dchess/dchess/dataset/datasettest"
	"github.com/dchess/dchess/internal/chess/pgn"
	"github.com/dchess/dchess/models/diffusion"
)

// jsonReference is docs/reference/json.md, which describes the JSON of
// each command, field by field; TestJSONOutputsMatchTheReference holds
// the commands to it.
const jsonReference = "../../docs/reference/json.md"

// jsonField is one row of a table of the reference: a field's type.
type jsonField struct {
	kind      string // string, integer, number, boolean, object, array, any, or ref
	elem      string // an array's element kind
	ref       string // for kind ref: the section whose fields the object has
	nullable  bool
	optional  bool
	inherited bool // copied from the section a top-level "*" names
}

// jsonSchema is one section of the reference: its fields by path.
type jsonSchema map[string]*jsonField

// parseJSONType reads a type cell: "number or null", "array of integer",
// "object, optional", "object: dchess match --json", "array of object:
// NAME".
func parseJSONType(cell string) (*jsonField, error) {
	f := &jsonField{}
	cell, f.optional = strings.CutSuffix(cell, ", optional")
	cell, f.nullable = strings.CutSuffix(cell, " or null")
	if ref, ok := strings.CutPrefix(cell, "object: "); ok {
		f.kind, f.ref = "ref", ref
		return f, nil
	}
	if ref, ok := strings.CutPrefix(cell, "array of object: "); ok {
		f.kind, f.elem, f.ref = "array", "ref", ref
		return f, nil
	}
	if elem, ok := strings.CutPrefix(cell, "array of "); ok {
		f.kind, f.elem = "array", elem
		cell = elem
	} else {
		f.kind = cell
	}
	switch cell {
	case "string", "integer", "number", "boolean", "object", "any":
		return f, nil
	}
	return nil, fmt.Errorf("unknown type %q", cell)
}

// readJSONReference parses the reference's tables into one schema per
// section, named by its heading ("dchess match --json").
func readJSONReference(t *testing.T) map[string]jsonSchema {
	t.Helper()
	f, err := os.Open(jsonReference)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sections := map[string]jsonSchema{}
	var current string
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		text := sc.Text()
		if heading, ok := strings.CutPrefix(text, "## "); ok {
			current = heading
			continue
		}
		if !strings.HasPrefix(text, "| `") || !strings.HasPrefix(current, "dchess ") {
			continue
		}
		cells := strings.Split(text, "|")
		if len(cells) < 4 {
			t.Fatalf("json.md:%d: a row of fewer than three cells", line)
		}
		path := strings.Trim(strings.TrimSpace(cells[1]), "`")
		field, err := parseJSONType(strings.TrimSpace(cells[2]))
		if err != nil {
			t.Fatalf("json.md:%d: %s: %v", line, path, err)
		}
		if sections[current] == nil {
			sections[current] = jsonSchema{}
		}
		if sections[current][path] != nil {
			t.Fatalf("json.md:%d: %s is listed twice in %s", line, path, current)
		}
		sections[current][path] = field
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	for name, schema := range sections {
		for path, f := range schema {
			if f.ref != "" && sections[f.ref] == nil {
				t.Fatalf("json.md: %s: %s names no section (%q)", name, path, f.ref)
			}
		}
	}
	// A top-level "*" gives the section every field of another.
	for name, schema := range sections {
		star := schema["*"]
		if star == nil {
			continue
		}
		base := sections[star.ref]
		if star.kind != "ref" || base == nil {
			t.Fatalf("json.md: %s: * names no section (%q)", name, star.ref)
		}
		delete(schema, "*")
		for path, f := range base {
			if schema[path] == nil {
				copied := *f
				copied.inherited = true
				schema[path] = &copied
			}
		}
	}
	return sections
}

// jsonCheck checks values against the reference and records which of a
// section's own fields they hold.
type jsonCheck struct {
	sections map[string]jsonSchema
	seen     map[string]map[string]bool // section → path → seen
	checked  map[string]bool            // sections some output was checked against
	errs     []string
}

func (c *jsonCheck) errorf(format string, args ...any) {
	c.errs = append(c.errs, fmt.Sprintf(format, args...))
}

func jsonPath(parent, key string) string {
	if parent == "" {
		return key
	}
	return parent + "." + key
}

// object checks the fields of obj, listed at path in section and found at
// at in the output.
func (c *jsonCheck) object(section, path, at string, obj map[string]any) {
	schema := c.sections[section]
	if c.checked != nil {
		c.checked[section] = true
	}
	for key, v := range obj {
		field, docPath := schema[jsonPath(path, key)], jsonPath(path, key)
		if field == nil {
			docPath = jsonPath(path, "*")
			field = schema[docPath]
		}
		if field == nil {
			c.errorf("%s: %s is not in docs/reference/json.md", section, jsonPath(at, key))
			continue
		}
		if !field.inherited {
			c.seen[section][docPath] = true
		}
		c.value(section, docPath, jsonPath(at, key), field, field.kind, v)
	}
	for docPath, field := range schema {
		parent, name := "", docPath
		if i := strings.LastIndex(docPath, "."); i >= 0 {
			parent, name = docPath[:i], docPath[i+1:]
		}
		if parent != path || name == "*" || field.optional {
			continue
		}
		if _, ok := obj[name]; !ok {
			c.errorf("%s: %s is listed but not printed", section, jsonPath(at, name))
		}
	}
}

// value checks one value against kind, the field's or its elements'.
func (c *jsonCheck) value(section, docPath, at string, field *jsonField, kind string, v any) {
	if v == nil {
		if !field.nullable || kind != field.kind {
			c.errorf("%s: %s is null, listed as %s", section, at, kind)
		}
		return
	}
	ok := true
	switch kind {
	case "any":
	case "string":
		_, ok = v.(string)
	case "boolean":
		_, ok = v.(bool)
	case "number":
		_, ok = v.(json.Number)
	case "integer":
		n, isNumber := v.(json.Number)
		ok = isNumber && !strings.ContainsAny(string(n), ".eE")
	case "object", "ref":
		obj, isObject := v.(map[string]any)
		switch {
		case !isObject:
			ok = false
		case kind == "ref":
			c.object(field.ref, "", at, obj)
		default:
			c.object(section, docPath, at, obj)
		}
	case "array":
		list, isArray := v.([]any)
		ok = isArray
		for i, e := range list {
			c.value(section, docPath+"[]", fmt.Sprintf("%s[%d]", at, i), field, field.elem, e)
		}
	default:
		ok = false
	}
	if !ok {
		c.errorf("%s: %s is %s, listed as %s", section, at, describeJSON(v), kind)
	}
}

func describeJSON(v any) string {
	data, _ := json.Marshal(v)
	if len(data) > 40 {
		data = append(data[:40], "..."...)
	}
	return fmt.Sprintf("%T %s", v, data)
}

// decodeOne reads exactly one JSON value, numbers kept as written.
func decodeOne(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("more than one JSON value")
	}
	return v, nil
}

// TestJSONOutputsMatchTheReference runs match, tournament, dataset info,
// eval and dataset export with --json (export: jsonl) in the situations
// that bring out every field (no games lost, an SPRT that stops the match,
// tasks and merges, SPECs that differ between merged files, a dataset
// whose split placed a game; a mate, a centipawn score and none; skipped
// lines; a decoder's sweep; labels with mates, centipawns and failures)
// and checks each output against docs/reference/json.md: no field printed
// that is not listed, none listed that is not printed, every value of its
// listed type.
func TestJSONOutputsMatchTheReference(t *testing.T) {
	sections := readJSONReference(t)
	tmp := t.TempDir()
	unsplit, _ := makeTestDataset(t)
	placed, _ := bigIDDataset(t)
	matchArgs := []string{"match", "--a", "heuristic:depth=1", "--b", "random", "--depth", "1", "--max-moves", "60"}
	tasks := filepath.Join(tmp, "m")
	epd, puzzles := writeJSONTestSuites(t, tmp)
	evalData, pairsData, exported := jsonTestDatasets(t, tmp)
	decoder := writeBiasWeights(t, diffusion.Family, map[string]float32{"a1a8": 10, "h2g3": 5}, false)
	const start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
	runs := []struct {
		section string
		args    []string
		file    string // where to keep the output for a later run
		lines   bool   // one JSON value a line (jsonl)
	}{
		{"dchess match --json", append(matchArgs, "--games", "4", "--json"), "", false},
		{"dchess match --json", append(matchArgs, "--games", "40", "--sprt", "elo0=0,elo1=200", "--json"), "", false},
		{"dchess match --json", []string{"match", "--a", "heuristic:depth=1", "--b", "heuristic:depth=1", "--depth", "1", "--games", "4",
			"--max-moves", "10", "--json"}, "", false},
		{"dchess match --shard --json", append(matchArgs, "--games", "4", "--shard", "0/2", "-o", tasks, "--json"), "", false},
		{"dchess match --shard --json", append(matchArgs, "--games", "4", "--shard", "1/2", "-o", tasks, "--json"), "", false},
		{"dchess match merge --json", []string{"match", "merge", tasks, "--json"}, "", false},
		{"dchess match merge --partial --json", []string{"match", "merge", tasks, "--partial", "--json"}, "", false},
		{"dchess tournament --json", []string{"tournament", "--players", "heuristic:depth=1,name=h", "--players", "random",
			"--players", "heuristic:depth=2", "--games-per-pair", "2", "--depth", "1", "--max-moves", "40", "--json"}, "t1.json", false},
		{"dchess tournament --json", []string{"tournament", "--players", "heuristic:depth=2,name=h", "--players", "random",
			"--games-per-pair", "2", "--depth", "1", "--max-moves", "40", "--anchor", "random=1000", "--json"}, "t2.json", false},
		{"dchess tournament merge --json", []string{"tournament", "merge", filepath.Join(tmp, "t1.json"), filepath.Join(tmp, "t2.json"),
			"--anchor", "random=1000", "--json"}, "", false},
		{"dchess dataset info --json", []string{"dataset", "info", unsplit, "--json"}, "", false},
		{"dchess dataset info --json", []string{"dataset", "info", placed, "--json", "--count-quiet"}, "", false},
		// A mate with the breakdown, a centipawn score, and a player that
		// gives none.
		{"dchess eval --fen --json", []string{"eval", "--player", "heuristic:depth=2", "--fen", scholarsMate, "--explain", "--json"}, "", false},
		{"dchess eval --fen --json", []string{"eval", "--player", "heuristic:depth=1", "--fen", start, "--json"}, "", false},
		{"dchess eval --fen --json", []string{"eval", "--player", "random", "--fen", start, "--json"}, "", false},
		{"dchess eval --epd --json", []string{"eval", "--player", "heuristic:depth=1", "--epd", epd, "--json"}, "", false},
		{"dchess eval --puzzles --json", []string{"eval", "--player", "heuristic:depth=2", "--puzzles", puzzles, "--json"}, "", false},
		{"dchess eval --data --json", []string{"eval", "--player", "heuristic:depth=1", "--data", evalData, "--json"}, "", false},
		{"dchess eval --data --json", []string{"eval", "--player", "diffusion:" + decoder, "--data", evalData, "--steps", "1,2", "--json"}, "", false},
		{"dchess eval --data --pairs --json", []string{"eval", "--player", "heuristic:depth=1", "--data", pairsData, "--pairs", "--json"}, "", false},
		{"dchess dataset export --format jsonl", []string{"dataset", "export", exported}, "", true},
	}
	c := &jsonCheck{sections: sections, seen: map[string]map[string]bool{}, checked: map[string]bool{}}
	for name := range sections {
		c.seen[name] = map[string]bool{}
	}
	for _, r := range runs {
		if sections[r.section] == nil {
			t.Fatalf("docs/reference/json.md has no section %q", r.section)
		}
		s, out, errOut := playStreams("")
		if err := runCLI(s, append([]string{"-q"}, r.args...)...); err != nil {
			t.Fatalf("dchess %s: %v\n%s", strings.Join(r.args, " "), err, errOut)
		}
		if r.file != "" {
			if err := os.WriteFile(filepath.Join(tmp, r.file), out.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		values := [][]byte{out.Bytes()}
		if r.lines {
			values = bytes.SplitAfter(bytes.TrimSuffix(out.Bytes(), []byte("\n")), []byte("\n"))
		}
		before := len(c.errs)
		for i, data := range values {
			v, err := decodeOne(data)
			if err != nil {
				t.Fatalf("dchess %s: value %d is not one JSON value: %v\n%s", strings.Join(r.args, " "), i+1, err, out)
			}
			c.value(r.section, "", "", &jsonField{kind: "ref", ref: r.section}, "ref", v)
		}
		if len(c.errs) > before {
			t.Logf("dchess %s printed:\n%s", strings.Join(r.args, " "), out)
		}
	}
	// Every section is checked, and every field it lists is printed by one
	// of its runs (fields named by data, "*", need not all appear).
	for name, schema := range sections {
		if !c.checked[name] {
			c.errorf("%s: no run checks this section", name)
			continue
		}
		for path, field := range schema {
			if !field.inherited && !strings.HasSuffix(path, "*") && !c.seen[name][path] {
				c.errorf("%s: %s is listed but no run printed it", name, path)
			}
		}
	}
	sort.Strings(c.errs)
	for _, e := range c.errs {
		t.Error(e)
	}
}

// writeJSONTestSuites writes an EPD suite (a bm position, an am position
// without an id, a line that is not EPD) and a puzzle CSV (two puzzles in
// two rating buckets, a row that is not a puzzle) under dir.
func writeJSONTestSuites(t *testing.T, dir string) (epd, puzzles string) {
	t.Helper()
	epd, puzzles = filepath.Join(dir, "suite.epd"), filepath.Join(dir, "puzzles.csv")
	if err := os.WriteFile(epd, []byte(`k7/8/8/8/8/8/r7/7K w - - bm Kg1; id "forced";
k7/8/8/8/8/8/8/7K w - - am Kg1 Kg2 Kh2;
k7/8/8/8/8/8/r7 w - - bm Kg1; id "seven ranks";
`), 0o644); err != nil {
		t.Fatal(err)
	}
	csv := "PuzzleId,FEN,Moves,Rating,Themes\n" +
		"a," + backRankMate + ",g8h8 a1a8,1510,mateIn1\n" +
		"b," + backRankMate + ",g8h8 a1a8,1890,mateIn1\n" +
		"c,not a position,g8h8 a1a8,1600,mateIn1\n"
	if err := os.WriteFile(puzzles, []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	return epd, puzzles
}

// jsonTestDatasets writes three small datasets under dir: labelled
// positions with best moves and lines for eval --data, positions from
// games each side won for --pairs, and records for an export that hold a
// centipawn label with a mate among its MultiPV lines, a clock and notes,
// a mate label, a failed label and no label.
func jsonTestDatasets(t *testing.T, dir string) (evalData, pairsData, exported string) {
	t.Helper()
	write := func(name string, recs []dataset.Record) string {
		ptrs := make([]*dataset.Record, len(recs))
		for i := range recs {
			if recs[i].Key == 0 {
				recs[i].Key = dataset.PositionKey(recs[i].FEN) + uint64(i)
			}
			ptrs[i] = &recs[i]
		}
		return datasettest.Write(t, filepath.Join(dir, name), dataset.WriteOptions{}, ptrs)
	}
	var positions []dataset.Record
	for i, pos := range []struct{ fen, pv string }{
		{"7k/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1", "a1a8"},
		{"7k/5ppp/8/8/8/7P/5PP1/R5K1 w - - 0 1", "a1a2 h7h6"},
		{"7k/8/8/8/8/8/7K/r7 w - - 0 1", "h2g3 a1a8"},
	} {
		pv := strings.Fields(pos.pv)
		positions = append(positions, dataset.Record{FEN: pos.fen, GameID: uint64(i),
			Label: &dataset.Label{Status: dataset.LabelOK, BestMove: pv[0], PV: pv, WinProb: 0.9}})
	}
	evalData = write("eval", positions)
	pairsData = write("pairs", []dataset.Record{
		{FEN: "4k3/8/8/8/8/8/8/R3K3 w - - 0 30", Result: pgn.WhiteWin, Move: "e1e2", GameID: 1, Ply: 20},
		{FEN: "not a position", Result: pgn.WhiteWin, Move: "e2e4", GameID: 2, Ply: 20, Key: 2},
		{FEN: "r3k3/8/8/8/8/8/8/4K3 w - - 0 30", Result: pgn.BlackWin, Move: "e1e2", GameID: 3, Ply: 20},
	})
	const fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
	exported = write("export", []dataset.Record{
		{FEN: fen, Move: "e2e4", Next: []string{"e7e5"}, Result: pgn.WhiteWin, GameID: 0xfedcba9876543210, ClockMS: 179_000, Notes: `id "x";`,
			Label: &dataset.Label{Status: dataset.LabelOK, CP: 31, WinProb: 0.53, BestMove: "e2e4", PV: []string{"e2e4", "e7e5"},
				Depth: 8, Nodes: 5000, Engine: "Stockfish 15.1",
				MultiPV: []dataset.PVLine{{CP: 31, PV: []string{"e2e4"}}, {Mate: -2, PV: []string{"f2f3"}}}}},
		{FEN: backRankMate, Move: "g8h8", Result: pgn.WhiteWin, GameID: 0xfedcba9876543210, Ply: 1,
			Label: &dataset.Label{Status: dataset.LabelOK, Mate: -1, WinProb: 0, BestMove: "g8h8", PV: []string{"g8h8", "a1a8"}, Engine: "Stockfish 15.1"}},
		{FEN: fen, Move: "d2d4", Result: pgn.Draw, GameID: 7, Label: &dataset.Label{Status: dataset.LabelFailed, Error: "no answer"}},
		{FEN: fen, Move: "c2c4", Result: pgn.ResultUnknown, GameID: 8},
	})
	return evalData, pairsData, exported
}

// The checker finds what it is for: a field the reference lacks, a field
// it lists that is missing, a value of another type, a null where none is
// allowed, a 64-bit id written as a number.
func TestJSONCheckFindsDrift(t *testing.T) {
	sections := map[string]jsonSchema{"s": {}}
	for path, typ := range map[string]string{"a": "string", "n": "number or null", "i": "integer", "o": "object, optional",
		"o.*": "integer", "l": "array of object", "l[].id": "string"} {
		f, err := parseJSONType(typ)
		if err != nil {
			t.Fatal(err)
		}
		sections["s"][path] = f
	}
	for in, want := range map[string]string{
		`{"a":"x","n":null,"i":1,"o":{"k":2},"l":[{"id":"00ff"}]}`: "",
		`{"a":"x","n":1.5,"i":1,"l":[],"extra":true}`:              "extra is not in",
		`{"a":"x","n":1.5,"l":[]}`:                                 "i is listed but not printed",
		`{"a":"x","n":"+inf","i":1,"l":[]}`:                        "n is string",
		`{"a":null,"n":1,"i":1,"l":[]}`:                            "a is null",
		`{"a":"x","n":1,"i":1.5,"l":[]}`:                           "i is json.Number 1.5, listed as integer",
		`{"a":"x","n":1,"i":1,"l":[{"id":18364758544493064720}]}`:  "l[0].id is json.Number",
		`{"a":"x","n":1,"i":1,"o":{"k":"2"},"l":[]}`:               "o.k is string",
	} {
		v, err := decodeOne([]byte(in))
		if err != nil {
			t.Fatal(err)
		}
		c := &jsonCheck{sections: sections, seen: map[string]map[string]bool{"s": {}}}
		c.value("s", "", "", &jsonField{kind: "ref", ref: "s"}, "ref", v)
		got := strings.Join(c.errs, "; ")
		if (want == "") != (got == "") || !strings.Contains(got, want) {
			t.Errorf("%s: checker says %q, want %q", in, got, want)
		}
	}
	if _, err := parseJSONType("strng"); err == nil {
		t.Error("a misspelt type parses")
	}
}
