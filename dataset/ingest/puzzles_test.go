package ingest

import (
	"context"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/dchess/dchess/internal/chess/board"
	"github.com/dchess/dchess/internal/chess/epd"
	"github.com/dchess/dchess/internal/testenv"
)

const puzzleCSV = `PuzzleId,FEN,Moves,Rating,RatingDeviation,Popularity,NbPlays,Themes,GameUrl,OpeningTags
00sHx,q3k1nr/1pp1nQpp/3p4/1P2p3/4P3/B1PP1b2/B5PP/5K2 b k - 0 17,e8d7 a2e6 d7d8 f7f8,1760,80,83,72,mate mateIn2 middlegame short,https://lichess.org/yyznGmXs/black#34,Italian_Game
00sJ9,r3r1k1/p4ppp/2p2n2/1p6/3P1qb1/2NQR3/PPB2PP1/R1B3K1 w - - 5 18,e3g3 e8e1 g1h2 e1c1 a1c1 f4h6 h2g1 h6c1,2671,105,87,325,advantage attraction fork long sacrifice veryLong,https://lichess.org/gyFeQsOE#35,French_Defense
00sJb,Q1b2r1k/p2np2p/5bp1/q7/5P1B/3P4/P4PBP/R4RK1 w - - 1 21,a8a7 a5a2,1460,74,95,406,fork middlegame short,https://lichess.org/yyznGmXs#41,
bad01,not a fen,e2e4 e7e5,1500,,,,,,
bad02,8/8/8/8/8/8/8/K1k5 w - - 0 1,a1a2,1500,,,,,,
`

func puzzleRun(t *testing.T, text string, set func(*Options)) ([]recordView, *Summary) {
	t.Helper()
	opts := DefaultOptions()
	opts.Format = FormatPuzzles
	if set != nil {
		set(&opts)
	}
	recs, sum := ingestText(t, text, opts)
	out := make([]recordView, len(recs))
	for i, r := range recs {
		out[i] = recordView{r.FEN, r.Move, r.Next, r.Ply, r.GameID, r.Notes, r.Label == nil}
	}
	return out, sum
}

type recordView struct {
	FEN        string
	Move       string
	Next       []string
	Ply        uint16
	GameID     uint64
	Notes      string
	Unlabelled bool
}

func TestPuzzlesArePositionsToSolve(t *testing.T) {
	recs, sum := puzzleRun(t, puzzleCSV, nil)
	if len(recs) != 3 || sum.LinesRead != 5 || sum.LinesKept != 3 || sum.LinesBad != 2 {
		t.Fatalf("%d records, summary %+v", len(recs), sum)
	}
	// The position after the opponent's e8d7, White to solve with a2e6.
	r := recs[0]
	want := recordView{FEN: "q5nr/1ppknQpp/3p4/1P2p3/4P3/B1PP1b2/B5PP/5K2 w - - 1 18", Move: "a2e6", Next: []string{"d7d8", "f7f8"}, Ply: 34,
		Notes: `id "00sHx"; rating 1760; themes "mate mateIn2 middlegame short"; site https://lichess.org/yyznGmXs/black#34;`, Unlabelled: true}
	want.GameID = r.GameID
	if !reflect.DeepEqual(r, want) {
		t.Errorf("record\n %+v\nwant\n %+v", r, want)
	}
	// --horizon bounds the solution kept, as it bounds a game's next moves.
	if got := recs[1].Next; !reflect.DeepEqual(got, []string{"g1h2", "e1c1", "a1c1", "f4h6"}) {
		t.Errorf("next %q", got)
	}
	// Puzzles of one game (yyznGmXs, once from each side) share a game id, so a split keeps them together.
	if recs[0].GameID != recs[2].GameID || recs[0].GameID == recs[1].GameID {
		t.Errorf("game ids %x %x %x", recs[0].GameID, recs[1].GameID, recs[2].GameID)
	}
	// The notes read back as EPD operations.
	l, err := epd.Parse(strings.Join(strings.Fields(r.FEN)[:4], " ") + " " + r.Notes)
	if err != nil || l.Ops["themes"][0] != "mate mateIn2 middlegame short" || l.Ops["rating"][0] != "1760" {
		t.Errorf("notes read back as %+v, %v", l, err)
	}
	if !strings.HasPrefix(sum.FirstErrors[0], "line 5: invalid FEN") || sum.FirstErrors[1] != "line 6: want a rating and at least two moves" {
		t.Errorf("errors %q", sum.FirstErrors)
	}
}

func TestPuzzleFilters(t *testing.T) {
	for _, tc := range []struct {
		name string
		set  func(*Options)
		kept int
	}{
		{"rating range", func(o *Options) { o.MinElo, o.MaxElo = 1500, 2000 }, 1},
		{"max rating", func(o *Options) { o.MaxElo = 1700 }, 1},
		{"plies", func(o *Options) { o.MinPly, o.MaxPly = 35, 40 }, 1},
		{"captures", func(o *Options) { o.SkipCaptures = true }, 2},
	} {
		recs, sum := puzzleRun(t, puzzleCSV, tc.set)
		if len(recs) != tc.kept || sum.LinesFiltered != int64(3-tc.kept) || sum.LinesBad != 2 {
			t.Errorf("%s: %d kept, summary %+v", tc.name, len(recs), sum)
		}
	}
}

func TestPuzzleFileWithoutHeaderIsRefused(t *testing.T) {
	opts := DefaultOptions()
	opts.Format = FormatPuzzles
	for text, want := range map[string]string{
		"00sHx,q3k1nr/1pp1nQpp/3p4/1P2p3/4P3/B1PP1b2/B5PP/5K2 b k - 0 17,e8d7 a2e6,1760\n": "-: line 1: the header needs FEN, Moves and Rating columns",
		"": "-: empty",
	} {
		_, err := Run(context.Background(), []string{Stdin}, strings.NewReader(text), opts, &memSink{})
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%q: err = %v, want %q", text, err, want)
		}
	}
}

// Every puzzle of the shared set gives the position after its first move,
// where its second move is legal.
func TestSharedPuzzles(t *testing.T) {
	data, err := os.ReadFile(testenv.SharedData(t, "puzzles/lichess_puzzles_a.csv"))
	if err != nil {
		t.Fatal(err)
	}
	recs, sum := puzzleRun(t, string(data), nil)
	if len(recs) != 5028 || sum.LinesBad != 0 {
		t.Fatalf("%d records, summary %+v", len(recs), sum)
	}
	for _, r := range recs {
		b, err := board.FromFEN(r.FEN)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := b.ParseUCI(r.Move); err != nil || !strings.HasPrefix(r.Notes, "rating ") || r.GameID == 0 {
			t.Fatalf("record %+v: %v", r, err)
		}
	}
}
