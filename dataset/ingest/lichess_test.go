package ingest

import (
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/dchess/dchess/dataset"
)

// lichessPGN is four games written the way Lichess exports them: a blitz
// game won by mate and a bullet game lost by mate, both with [%eval] and
// [%clk] after every move, a rapid game lost on time, and an unrated
// correspondence game without comments.
func lichessPGN(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("testdata/lichess.pgn")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestEvalCommentsBecomeLabelsOfThePositionAfterTheMove(t *testing.T) {
	recs, sum := ingestText(t, lichessPGN(t), DefaultOptions())
	if len(recs) != 23 || sum.GamesKept != 4 || sum.Errors != 0 {
		t.Fatalf("%d records, summary %+v", len(recs), sum)
	}
	type want struct {
		cp, mate int32
		labelled bool
	}
	// [%eval] of move i scores the position after it, which is the record
	// of move i+1, from White's point of view: turned to the side to move.
	wants := []want{
		// Blitz: 1. e4 {0.17} e5 {0.2} 2. Bc4 {-0.1} Nc6 {0.0} 3. Qh5 {-0.5} Nf6 {#1} 4. Qxf7#
		{}, {-17, 0, true}, {20, 0, true}, {10, 0, true}, {0, 0, true}, {50, 0, true}, {0, 1, true},
		// Bullet: 1. f3 {-0.6} e5 {-0.9} 2. g4 {#-1} Qh4#: Black to move and mate in one is +1.
		{}, {60, 0, true}, {-90, 0, true}, {0, 1, true},
		// Rapid, every move scored.
		{}, {-18, 0, true}, {21, 0, true}, {-15, 0, true}, {32, 0, true}, {-25, 0, true}, {30, 0, true}, {-12, 0, true},
		// Correspondence, no comments.
		{}, {}, {}, {},
	}
	for i, r := range recs {
		w, l := wants[i], r.Label
		if !w.labelled {
			if l != nil {
				t.Errorf("record %d (%s): label %+v, want none", i, r.FEN, l)
			}
			continue
		}
		if l == nil || l.Status != dataset.LabelOK || l.CP != w.cp || l.Mate != w.mate {
			t.Errorf("record %d (%s): label %+v, want cp %d mate %d", i, r.FEN, l, w.cp, w.mate)
			continue
		}
		if l.WinProb != dataset.WinProbability(w.cp, w.mate) || l.Depth != 0 || l.Engine != "import:pgn" || l.BestMove != "" || l.PV != nil {
			t.Errorf("record %d: label %+v", i, l)
		}
	}
	// The mate in one scored for White before 4. Qxf7#.
	if recs[6].Move != "h5f7" || recs[6].Label.Mate != 1 {
		t.Errorf("record 6 %+v", recs[6])
	}
}

func TestClockCommentsAreKeptPerMove(t *testing.T) {
	recs, _ := ingestText(t, lichessPGN(t), DefaultOptions())
	var clocks []uint32
	for _, r := range recs {
		clocks = append(clocks, r.ClockMS)
	}
	// Each record keeps the mover's clock after its move; 0:00:00 (under
	// a second) is kept as 1 ms, a game without clocks has 0.
	want := []uint32{
		180000, 180000, 178000, 177000, 175000, 170000, 173000,
		60000, 59000, 1, 58000,
		600000, 600000, 598000, 601000, 580000, 595000, 121000, 590000,
		0, 0, 0, 0,
	}
	if !reflect.DeepEqual(clocks, want) {
		t.Errorf("clocks %v\nwant   %v", clocks, want)
	}
}

func TestUnreadableCommentsAreReportedAndLeftOut(t *testing.T) {
	text := "[Event \"x\"]\n\n1. e4 { [%eval big] [%clk 0:03:00] } e5 { [%clk later] [%eval 0.3] } 2. Nf3 *\n"
	recs, sum := ingestText(t, text, DefaultOptions())
	if len(recs) != 3 || recs[1].Label != nil || recs[0].ClockMS != 180000 || recs[1].ClockMS != 0 || recs[2].Label == nil || recs[2].Label.CP != 30 {
		t.Errorf("records %+v", recs)
	}
	// One warning per game: the first comment it could not read; the game is kept.
	if sum.GamesKept != 1 || sum.Errors != 1 || !strings.Contains(sum.FirstErrors[0], "game 1 (line 3): comment after e4: [%eval big]: want pawns") {
		t.Errorf("summary %+v", sum)
	}
}

// Games without [%eval] or [%clk] give the records they gave before.
func TestGamesWithoutCommandsAreUnchanged(t *testing.T) {
	plain := kasparovHead(t, 30)
	commented := strings.ReplaceAll(plain, " 2. ", " {a remark [%csl Gd4]} 2. ")
	a, _ := ingestText(t, plain, DefaultOptions())
	b, _ := ingestText(t, commented, DefaultOptions())
	if len(a) < 500 || !reflect.DeepEqual(a, b) {
		t.Errorf("comments without eval or clock changed the records (%d and %d)", len(a), len(b))
	}
	for _, r := range a {
		if r.Label != nil || r.ClockMS != 0 || r.Notes != "" {
			t.Fatalf("record %+v", r)
		}
	}
}

func TestTagFilters(t *testing.T) {
	text := lichessPGN(t)
	games := func(opts Options) []string {
		t.Helper()
		recs, sum := ingestText(t, text, opts)
		var sites []string
		seen := map[uint64]bool{}
		for _, r := range recs {
			if !seen[r.GameID] {
				seen[r.GameID] = true
				sites = append(sites, map[uint16]string{1500: "blitz", 1200: "bullet", 2100: "rapid", 0: "corr"}[r.WhiteElo])
			}
		}
		if sum.GamesKept+sum.SkippedFiltered != 4 {
			t.Errorf("summary %+v", sum)
		}
		return sites
	}
	for _, tc := range []struct {
		name string
		set  func(*Options)
		want []string
	}{
		{"blitz", func(o *Options) { o.TimeControl = "blitz" }, []string{"blitz"}},
		{"bullet", func(o *Options) { o.TimeControl = "Bullet" }, []string{"bullet"}},
		{"rapid by estimate", func(o *Options) { o.TimeControl = "rapid" }, []string{"rapid"}},
		{"correspondence", func(o *Options) { o.TimeControl = "correspondence" }, []string{"corr"}},
		{"exact list", func(o *Options) { o.TimeControl = "180+0, 60+0" }, []string{"blitz", "bullet"}},
		{"open range", func(o *Options) { o.TimeControl = "..179" }, []string{"bullet"}},
		{"range", func(o *Options) { o.TimeControl = "180..800" }, []string{"blitz", "rapid"}},
		{"time forfeit", func(o *Options) { o.Termination = "time forfeit" }, []string{"rapid"}},
		{"normal", func(o *Options) { o.Termination = "Normal,abandoned" }, []string{"blitz", "bullet", "corr"}},
		{"max elo", func(o *Options) { o.MaxElo = 1500 }, []string{"blitz", "bullet"}},
		{"elo range", func(o *Options) { o.MinElo, o.MaxElo = 1400, 1500 }, []string{"blitz"}},
		{"all together", func(o *Options) { o.MaxElo, o.TimeControl, o.Termination = 2000, "bullet,blitz", "normal" }, []string{"blitz", "bullet"}},
	} {
		opts := DefaultOptions()
		tc.set(&opts)
		if got := games(opts); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: kept %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestTimeControlSpecs(t *testing.T) {
	for _, bad := range []string{"fast", "180", "180+", "+2", "-1+0", "9..3", "..", "a..b", "180+-2"} {
		if _, err := ParseTimeControls(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	f, err := ParseTimeControls("blitz, 15+0")
	if err != nil {
		t.Fatal(err)
	}
	for tag, want := range map[string]bool{"180+0": true, "300+3": true, "180+8": false, "15+0": true, "-": false, "": false, "x": false, "479+0": true, "480+0": false} {
		if f.Match(tag) != want {
			t.Errorf("blitz,15+0 on %q: %v", tag, !want)
		}
	}
	opts := DefaultOptions()
	for _, set := range []func(*Options){
		func(o *Options) { o.MaxElo = -1 },
		func(o *Options) { o.MinElo, o.MaxElo = 2000, 1500 },
		func(o *Options) { o.TimeControl = "slow" },
		func(o *Options) { o.Format, o.TimeControl = FormatEPD, "blitz" },
		func(o *Options) { o.Format, o.Termination = FormatCSV, "normal" },
	} {
		o := opts
		set(&o)
		if o.Check() == nil {
			t.Errorf("options %+v accepted", o)
		}
	}
}
