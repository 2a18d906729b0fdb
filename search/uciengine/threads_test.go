package uciengine

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/dchess/dchess/search/player"
)

// TestThreadsOption: Threads is announced, a valid value remakes the
// player with threads=, a bad one is refused and changes nothing.
func TestThreadsOption(t *testing.T) {
	s := startConversation(t, "heuristic")
	s.send("uci")
	if hello := strings.Join(s.until("uciok"), "\n"); !strings.Contains(hello, "option name Threads type spin default 1 min 1 max ") {
		t.Errorf("no Threads option in %q", hello)
	}
	s.send("setoption name Threads value 0")
	if got := s.until("info string"); !strings.Contains(got[len(got)-1], "Threads wants 1..") {
		t.Errorf("Threads 0 answered %q", got)
	}
	s.send("setoption name Threads value 2")
	s.send("position fen r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4")
	s.send("go depth 4")
	if got := s.until("bestmove"); got[len(got)-1] != "bestmove h5f7" {
		t.Errorf("two threads answered %q", got[len(got)-1])
	}
	s.send("quit")

	spec, _ := player.ParseSpec("heuristic")
	e := &Engine{spec: spec, out: io.Discard, hashMB: defaultHashMB}
	defer e.close()
	for _, c := range []struct {
		value string
		want  int
	}{{"", 1}, {"2", 2}, {"x", 2}, {"1", 1}} {
		if c.value != "" {
			e.setOption([]string{"name", "Threads", "value", c.value})
		}
		if err := e.ensurePlayer(context.Background()); err != nil {
			t.Fatal(err)
		}
		if got := player.Unwrap(e.p).(*player.Searcher).Threads(); got != c.want {
			t.Errorf("after Threads %q: %d threads, want %d", c.value, got, c.want)
		}
	}
}
