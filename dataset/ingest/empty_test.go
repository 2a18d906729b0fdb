package ingest

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An input that gives no position fails the run with the reason, so no
// empty dataset is made while the command says it worked.
func TestInputsThatGiveNothingSayWhy(t *testing.T) {
	opts := func(f Format, set func(*Options)) Options {
		o := DefaultOptions()
		o.Format = f
		if set != nil {
			set(&o)
		}
		return o
	}
	for _, tc := range []struct {
		name string
		text string
		opts Options
		want string
	}{
		{"puzzles as csv", "PuzzleId,FEN,Moves,Rating\nx,8/8/8/8/8/8/8/K1k5 w - - 0 1,a1a2 c1c2,1500\n", opts(FormatCSV, nil),
			"none of its 2 lines gave one: 2 could not be read as csv; the first problem: line 1: the header names FEN and Moves columns: a Lichess puzzle CSV, which --format puzzles reads"},
		{"short puzzle header as csv", "FEN,Moves,Rating\n8/8/8/8/8/8/8/K1k5 w - - 0 1,a1a2 c1c2,1500\n", opts(FormatCSV, nil),
			"the first problem: line 1: the header names FEN and Moves columns"},
		{"empty pgn", "", opts(FormatPGN, nil), "it holds no game"},
		{"blank epd", "\n# only a comment\n\n", opts(FormatEPD, nil), "it holds no line of data"},
		{"csv as pgn", "fen,eval\n8/8/8/8/8/8/8/K1k5 w - - 0 1,+3\n", opts(FormatPGN, nil), "none of its 1 games gave one: 1 malformed; the first problem: game 1 (line 2): unexpected token"},
		{"filters", lichessPGN(t), opts(FormatPGN, func(o *Options) { o.TimeControl, o.MinElo = "classical", 1000 }),
			`none of its 4 games gave one: 4 filtered out by --min-elo 1000 --time-control "classical"`},
		{"variants", "[Variant \"Atomic\"]\n\n1. e4 *\n", opts(FormatPGN, nil), "none of its 1 games gave one: 1 not standard chess"},
		{"puzzles filtered", puzzleCSV, opts(FormatPuzzles, func(o *Options) { o.MinElo = 3000 }),
			"none of its 5 lines gave one: 2 could not be read as puzzles, 3 filtered out by --min-elo 3000; the first problem: line 5: invalid FEN"},
	} {
		_, why := ingestNothing(t, tc.text, tc.opts)
		if !strings.Contains(why, tc.want) {
			t.Errorf("%s: reason %q, want it to say %q", tc.name, why, tc.want)
		}
	}
}

func TestAnEmptyInputAmongOthers(t *testing.T) {
	dir := t.TempDir()
	good, bad := filepath.Join(dir, "good.pgn"), filepath.Join(dir, "bad.csv")
	os.WriteFile(good, []byte(twoGames), 0o644)
	os.WriteFile(bad, []byte("FEN,Moves,Rating\n"), 0o644)
	// Beside an input that gives positions it is reported and the run goes on.
	sink := &memSink{}
	sum, err := Run(context.Background(), []string{bad, good}, nil, DefaultOptions(), sink)
	if err != nil || len(sink.recs) != 12 || sum.Errors != 2 || sum.FirstErrors[1] != bad+" gave no position: none of its 1 games gave one: 1 malformed; the first problem: game 1 (line 1): unexpected character 'F' in movetext" {
		t.Errorf("%v, %d records, errors %q", err, len(sink.recs), sum.FirstErrors)
	}
	// --strict stops at it.
	empty := filepath.Join(dir, "empty.pgn")
	os.WriteFile(empty, nil, 0o644)
	o := DefaultOptions()
	o.Strict = true
	_, err = Run(context.Background(), []string{good, empty}, nil, o, &memSink{})
	var none *NoRecordsError
	if !errors.As(err, &none) || !strings.HasSuffix(err.Error(), "(stopping: --strict)") {
		t.Errorf("strict: %v", err)
	}
	// When no input gives any, the first says why and the others are counted.
	o.Strict = false
	_, err = Run(context.Background(), []string{bad, bad}, nil, o, &memSink{})
	if !errors.As(err, &none) || none.Input != bad || !strings.HasSuffix(err.Error(), "(and the 1 other inputs gave none either)") {
		t.Errorf("two empty inputs: %v", err)
	}
}
