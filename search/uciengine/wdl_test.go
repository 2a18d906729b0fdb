package uciengine

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/dchess/dchess/internal/chess/winprob"
)

// infoWDL reads an info line's score and wdl; hasWDL is false without one.
func infoWDL(t *testing.T, line string) (cp, mate int, wdl [3]int, hasScore, hasWDL bool) {
	t.Helper()
	f := strings.Fields(line)
	for i := 0; i < len(f); i++ {
		switch {
		case f[i] == "score" && i+2 < len(f):
			n, err := strconv.Atoi(f[i+2])
			if err != nil {
				t.Fatalf("score in %q: %v", line, err)
			}
			if f[i+1] == "mate" {
				mate = n
			} else {
				cp = n
			}
			hasScore = true
		case f[i] == "wdl" && i+3 < len(f):
			for j := range wdl {
				n, err := strconv.Atoi(f[i+1+j])
				if err != nil {
					t.Fatalf("wdl in %q: %v", line, err)
				}
				wdl[j] = n
			}
			hasWDL = true
		}
	}
	return
}

// UCI_ShowWDL is announced, off by default, and when on every scored info
// line carries wdl per mille that sums to 1000 and keeps the expected
// score of the centipawn mapping (issue #58, item 3).
func TestShowWDL(t *testing.T) {
	s := startConversation(t, "heuristic")
	s.send("uci")
	if hello := strings.Join(s.until("uciok"), "\n"); !strings.Contains(hello, "option name UCI_ShowWDL type check default false") {
		t.Errorf("no UCI_ShowWDL option in %q", hello)
	}
	s.send("position startpos moves e2e4 e7e5 g1f3")
	s.send("go depth 3")
	for _, l := range s.until("bestmove") {
		if _, _, _, _, has := infoWDL(t, l); has {
			t.Errorf("wdl without UCI_ShowWDL: %q", l)
		}
	}

	s.send("setoption name UCI_ShowWDL value maybe")
	if got := s.until("info string"); !strings.Contains(got[len(got)-1], "UCI_ShowWDL wants true or false") {
		t.Errorf("UCI_ShowWDL maybe answered %q", got)
	}
	s.send("setoption name UCI_ShowWDL value true")
	check := func(fen string, wantMate bool) {
		t.Helper()
		s.send("position fen " + fen)
		s.send("go depth 3")
		scored, mates := 0, 0
		for _, l := range s.until("bestmove") {
			if !strings.HasPrefix(l, "info ") || strings.HasPrefix(l, "info string") {
				continue
			}
			cp, mate, wdl, hasScore, hasWDL := infoWDL(t, l)
			if hasScore != hasWDL {
				t.Errorf("score and wdl not together: %q", l)
			}
			if !hasScore {
				continue
			}
			scored++
			w, d, lo := wdl[0], wdl[1], wdl[2]
			if w < 0 || d < 0 || lo < 0 || w+d+lo != 1000 {
				t.Errorf("wdl does not sum to 1000: %q", l)
			}
			if p := winprob.Of(cp, mate); math.Abs((float64(w)+float64(d)/2)/1000-p) > 0.001 {
				t.Errorf("(W + D/2)/1000 = %g, want p = %g: %q", (float64(w)+float64(d)/2)/1000, p, l)
			}
			if mate > 0 && w != 1000 || mate < 0 && lo != 1000 {
				t.Errorf("a mate score is not a certain result: %q", l)
			}
			if mate != 0 {
				mates++
			}
		}
		if scored == 0 {
			t.Errorf("no scored info line for %s", fen)
		}
		if wantMate && mates == 0 {
			t.Errorf("no mate score for %s", fen)
		}
	}
	check("rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2", false)
	// White a queen up: the side to move expects to win.
	check("4k3/8/8/8/8/8/3Q4/4K3 w - - 0 1", false)
	// Mate in one for white (Qxf7#).
	check("r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4", true)

	s.send("setoption name UCI_ShowWDL value false")
	s.send("position startpos")
	s.send("go depth 2")
	for _, l := range s.until("bestmove") {
		if _, _, _, _, has := infoWDL(t, l); has {
			t.Errorf("wdl after UCI_ShowWDL false: %q", l)
		}
	}
	s.send("quit")
	<-s.done
}
