package uci

import (
	"reflect"
	"testing"
)

func TestParseInfo(t *testing.T) {
	cases := []struct {
		line string
		want Info
	}{
		{
			"info depth 8 seldepth 10 multipv 1 score cp 41 nodes 11262 nps 1126200 hashfull 3 tbhits 0 time 10 pv e2e4 e7e5 g1f3",
			Info{Depth: 8, SelDepth: 10, MultiPV: 1, Score: Score{Kind: ScoreCP, Value: 41}, Nodes: 11262, NPS: 1126200,
				HashFull: 3, TimeMs: 10, PV: []string{"e2e4", "e7e5", "g1f3"}},
		},
		{
			"info depth 21 seldepth 30 multipv 3 score mate -4 upperbound nodes 5 pv a1a2",
			Info{Depth: 21, SelDepth: 30, MultiPV: 3, Score: Score{Kind: ScoreMate, Value: -4, Bound: BoundUpper}, Nodes: 5, PV: []string{"a1a2"}},
		},
		{
			"info depth 12 score cp -17 lowerbound wdl 30 900 70 nodes 9",
			Info{Depth: 12, MultiPV: 1, Score: Score{Kind: ScoreCP, Value: -17, Bound: BoundLower}, WDL: [3]int32{30, 900, 70}, Nodes: 9},
		},
		{"info depth 0 score mate 0", Info{MultiPV: 1, Score: Score{Kind: ScoreMate}}},
		{"info depth 5 currmove e2e4 currmovenumber 1", Info{Depth: 5, MultiPV: 1, CurrMove: "e2e4", CurrMoveNumber: 1}},
		{"info string NNUE evaluation using nn.nnue enabled", Info{MultiPV: 1, Text: "NNUE evaluation using nn.nnue enabled"}},
		// Move lists end at the next keyword; unknown tokens are skipped.
		{"info pv e2e4 e7e5 depth 3 refutation d1h5 g7g6 custom 7 nodes 4", Info{Depth: 3, MultiPV: 1, PV: []string{"e2e4", "e7e5"}, Nodes: 4}},
		{"info", Info{MultiPV: 1}},
	}
	for _, c := range cases {
		got, ok := ParseInfo(c.line)
		if !ok || !reflect.DeepEqual(got, c.want) {
			t.Errorf("ParseInfo(%q)\n got %+v, %v\nwant %+v", c.line, got, ok, c.want)
		}
	}
}

func TestParseInfoRejectsGarbage(t *testing.T) {
	for _, line := range []string{
		"", "bestmove e2e4", "information depth 3", "info depth", "info depth x", "info depth -1",
		"info nodes -5", "info multipv 0", "info score", "info score cp", "info score cp 1e3",
		"info score cp 5 mate 2", "info score lowerbound", "info time 9999999999999999999999",
		"info wdl 1 2", "info score cp 99999999999",
	} {
		if info, ok := ParseInfo(line); ok {
			t.Errorf("ParseInfo(%q) accepted: %+v", line, info)
		}
	}
}

func TestInfoStringRoundTrips(t *testing.T) {
	line := "info depth 8 seldepth 10 multipv 2 score cp 41 lowerbound wdl 1 2 3 nodes 11262 nps 1126200 hashfull 3 tbhits 4 cpuload 500 time 10 currmove e2e4 currmovenumber 3 pv e2e4 e7e5 string hello  world"
	info, ok := ParseInfo(line)
	if !ok {
		t.Fatal("not parsed")
	}
	again, ok := ParseInfo(info.String())
	if !ok || !reflect.DeepEqual(again, info) {
		t.Fatalf("round trip:\n%s\n%+v\n%+v", info.String(), info, again)
	}
	if info.String() != "info depth 8 seldepth 10 multipv 2 score cp 41 lowerbound wdl 1 2 3 nodes 11262 nps 1126200 hashfull 3 tbhits 4 cpuload 500 time 10 currmove e2e4 currmovenumber 3 pv e2e4 e7e5 string hello world" {
		t.Fatalf("formatted %q", info.String())
	}
}

// FuzzParseInfo checks that no input panics and that whatever is accepted
// formats to a line that parses back to the same Info.
func FuzzParseInfo(f *testing.F) {
	f.Add("info depth 8 seldepth 10 multipv 1 score cp 41 nodes 11262 nps 1126200 time 10 pv e2e4 e7e5")
	f.Fuzz(func(t *testing.T, line string) {
		info, ok := ParseInfo(line)
		if !ok {
			return
		}
		again, ok := ParseInfo(info.String())
		if !ok {
			t.Fatalf("formatted line %q of %q does not parse", info.String(), line)
		}
		if !reflect.DeepEqual(again, info) {
			t.Fatalf("round trip of %q via %q:\n%+v\n%+v", line, info.String(), info, again)
		}
	})
}
