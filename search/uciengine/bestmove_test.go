package uciengine

import (
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dchess/dchess/search/player"
)

// lastPV returns the first move and the score of the last info line with
// a pv, and false when there is none.
func lastPV(lines []string) (move, score string, ok bool) {
	for _, l := range lines {
		f := strings.Fields(l)
		if len(f) == 0 || f[0] != "info" {
			continue
		}
		for i := 0; i+1 < len(f); i++ {
			switch f[i] {
			case "score":
				if i+2 < len(f) {
					score = f[i+1] + " " + f[i+2]
				}
			case "pv":
				move, ok = f[i+1], true
			}
		}
	}
	return move, score, ok
}

// bestMoveIsLastPV fails the test when the bestmove line of lines is not
// the first move of the last pv sent before it.
func bestMoveIsLastPV(t *testing.T, what string, lines []string) {
	t.Helper()
	last := strings.Fields(lines[len(lines)-1])
	if len(last) < 2 || last[0] != "bestmove" {
		t.Fatalf("%s: no bestmove in %q", what, lines)
	}
	pv, _, ok := lastPV(lines)
	if !ok || pv != last[1] {
		t.Errorf("%s: bestmove %s, but the last pv sent starts with %q (ok=%v): %q", what, last[1], pv, ok, lines)
	}
}

// The best move is the first move of the last PV sent, and with it the
// score shown, however the search ends: a node limit that cuts an
// iteration (where a root move that beat the last iteration's is played),
// a depth, a move time, or stop (issue #58, item 3).
func TestBestMoveIsTheLastPV(t *testing.T) {
	s := startConversation(t, "heuristic")
	positions := []string{
		"position startpos",
		"position startpos moves e2e4 e7e5 g1f3 b8c6 f1b5",
		"position fen r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4",
		"position fen 2r3k1/pp3ppp/8/3p4/3P4/1Q6/PP3PPP/6K1 w - - 0 1",
	}
	for _, pos := range positions {
		for nodes := 50; nodes <= 20000; nodes = nodes * 5 / 4 {
			s.send(pos)
			s.send("go nodes " + itoa(nodes))
			bestMoveIsLastPV(t, pos+" nodes "+itoa(nodes), s.until("bestmove"))
		}
		s.send(pos)
		s.send("go depth 3")
		bestMoveIsLastPV(t, pos+" depth 3", s.until("bestmove"))
		s.send(pos)
		s.send("go movetime 30")
		bestMoveIsLastPV(t, pos+" movetime 30", s.until("bestmove"))
	}
	s.send("position startpos")
	s.send("go infinite")
	s.send("stop")
	bestMoveIsLastPV(t, "go infinite, stop", s.until("bestmove"))
	s.send("quit")
	if err := <-s.done; err != nil {
		t.Fatal(err)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// "go searchmoves" restricts the moves played, wherever it stands among
// the parameters; moves that are not legal are reported and left out,
// and with none legal every move is searched (issue #58, item 3).
func TestSearchMoves(t *testing.T) {
	const mate = "position fen 6k1/5ppp/8/8/8/8/1Q6/R5K1 w - - 0 1" // Ra8# and Qb8#
	for _, spec := range []string{"heuristic", "heuristic:search=minimax", "random"} {
		s := startConversation(t, spec)
		for _, goCmd := range []string{"go depth 3 searchmoves b2b7 g1f1", "go searchmoves b2b7 g1f1 depth 3", "go searchmoves g1f1 b2b7 wtime 1000 btime 1000"} {
			s.send(mate)
			s.send(goCmd)
			lines := s.until("bestmove")
			if f := strings.Fields(lines[len(lines)-1]); f[1] != "b2b7" && f[1] != "g1f1" {
				t.Errorf("%s %q: %q", spec, goCmd, lines)
			}
			bestMoveIsLastPV(t, spec+" "+goCmd, lines)
		}
		s.send(mate)
		s.send("go depth 2 searchmoves a1a8 e2e4")
		lines := s.until("bestmove")
		if !strings.Contains(lines[0], "e2e4") || !strings.HasPrefix(lines[0], "info string") || lines[len(lines)-1] != "bestmove a1a8" {
			t.Errorf("%s: searchmoves with an illegal move: %q", spec, lines)
		}
		s.send("quit")
		<-s.done
	}
}

// "id name" names the weights a player plays, in brackets after its
// family and settings; name= is shown as given.
func TestIDNameNamesTheWeights(t *testing.T) {
	for spec, want := range map[string]string{
		"heuristic":                      "dchess heuristic v1",
		"cnn:runs/a/model.dcw":           "dchess cnn (runs/a/model.dcw) v1",
		"cnn:runs/a/model.dcw?depth=3":   "dchess cnn:depth=3 (runs/a/model.dcw) v1",
		"cnn:runs/a/model.dcw?name=Mine": "dchess Mine (runs/a/model.dcw) v1",
		"heuristic:depth=2":              "dchess heuristic:depth=2 v1",
	} {
		s, err := player.ParseSpec(spec)
		if err != nil {
			t.Fatal(err)
		}
		e := &Engine{spec: s, cfg: Config{Version: "v1"}}
		if got := e.idName(); got != want {
			t.Errorf("%s: id name %q, want %q", spec, got, want)
		}
	}
}

// Move Overhead is announced and reaches the search; info lines of a
// searching player carry hashfull (issue #58, item 3).
func TestMoveOverheadAndHashfull(t *testing.T) {
	s := startConversation(t, "heuristic")
	s.send("uci")
	if hello := strings.Join(s.until("uciok"), "\n"); !strings.Contains(hello, "option name Move Overhead type spin default 10 min 1 max 5000") {
		t.Errorf("no Move Overhead option in %q", hello)
	}
	s.send("setoption name Move Overhead value 0")
	if got := s.until("info string"); !strings.Contains(got[len(got)-1], "Move Overhead wants 1..5000") {
		t.Errorf("Move Overhead 0 answered %q", got)
	}
	// With 900 ms of a 1000 ms clock kept back, the search gets little.
	s.send("setoption name Move Overhead value 900")
	s.send("position startpos")
	start := time.Now()
	s.send("go wtime 1000 btime 1000 movestogo 1")
	s.until("bestmove")
	if took := time.Since(start); took > 400*time.Millisecond {
		t.Errorf("with Move Overhead 900 a move of a 1000 ms clock took %v", took)
	}
	s.send("setoption name Hash value 1")
	s.send("position startpos")
	s.send("go depth 6")
	lines := s.until("bestmove")
	var full bool
	for _, l := range lines {
		f := strings.Fields(l)
		for i := range f {
			if f[i] == "hashfull" && i+1 < len(f) && f[i+1] != "0" {
				full = true
			}
		}
	}
	if !full {
		t.Errorf("no hashfull in %q", lines)
	}
	s.send("quit")
	<-s.done
}

// MultiPV is announced as UCI says (spin, default 1), and with MultiPV k
// every iteration sends k lines together, numbered 1 to k, best first,
// each with its own first move; bestmove is the first move of the last
// line 1. Here Ra8# and Qb8# mate: they are lines 1 and 2.
func TestMultiPV(t *testing.T) {
	s := startConversation(t, "heuristic")
	s.send("uci")
	if hello := strings.Join(s.until("uciok"), "\n"); !strings.Contains(hello, "option name MultiPV type spin default 1 min 1 max 500") {
		t.Errorf("no MultiPV option in %q", hello)
	}
	s.send("setoption name MultiPV value 3")
	s.send("position fen 6k1/5ppp/8/8/8/8/1Q6/R5K1 w - - 0 1")
	s.send("go depth 3")
	lines := s.until("bestmove")
	type line struct {
		depth, multipv int
		score, pv      string
	}
	var infos []line
	for _, l := range lines[:len(lines)-1] {
		f := strings.Fields(l)
		var in line
		for i := 0; i+1 < len(f); i++ {
			switch f[i] {
			case "depth":
				in.depth, _ = strconv.Atoi(f[i+1])
			case "multipv":
				in.multipv, _ = strconv.Atoi(f[i+1])
			case "score":
				in.score = f[i+1] + " " + f[i+2]
			case "pv":
				in.pv = f[i+1]
			}
		}
		infos = append(infos, in)
	}
	if len(infos) == 0 || len(infos)%3 != 0 {
		t.Fatalf("want 3 info lines an iteration, got %q", lines)
	}
	for i := 0; i < len(infos); i += 3 {
		seen := map[string]bool{}
		for j, in := range infos[i : i+3] {
			if in.multipv != j+1 || in.depth != infos[i].depth || in.pv == "" || seen[in.pv] {
				t.Errorf("line %d of depth %d: %+v in %q", j+1, infos[i].depth, in, lines)
			}
			seen[in.pv] = true
		}
	}
	last := infos[len(infos)-3:]
	if got := lines[len(lines)-1]; !strings.HasPrefix(got, "bestmove "+last[0].pv) {
		t.Errorf("%q after line 1 %+v", got, last[0])
	}
	if last[0].score != "mate 1" || last[1].score != "mate 1" || strings.HasPrefix(last[2].score, "mate") ||
		!slices.Contains([]string{"a1a8", "b2b8"}, last[0].pv) || !slices.Contains([]string{"a1a8", "b2b8"}, last[1].pv) {
		t.Errorf("last iteration's lines %+v, want the two mates in 1 then no mate", last)
	}

	s.send("setoption name MultiPV value 0")
	if got := s.until("info string"); len(got) != 1 || !strings.Contains(got[0], "MultiPV wants 1..500") {
		t.Errorf("MultiPV 0 answered %q", got)
	}
	// Back to one line: no numbers.
	s.send("setoption name MultiPV value 1")
	s.send("go depth 2")
	if got := strings.Join(s.until("bestmove"), "\n"); strings.Contains(got, "multipv") {
		t.Errorf("MultiPV 1 numbered its lines: %q", got)
	}
	s.send("quit")
	<-s.done

	// A player without a search says it reports one line.
	s = startConversation(t, "random")
	s.send("setoption name MultiPV value 2")
	s.send("position startpos")
	s.send("go depth 1")
	if got := s.until("bestmove"); !strings.Contains(got[0], "info string random reports one line") {
		t.Errorf("random with MultiPV 2 answered %q", got)
	}
	s.send("quit")
	<-s.done
}
