package uciengine

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/dchess/dchess/search/player"
)

// conversation drives Run through pipes, line by line, like a GUI.
type conversation struct {
	t    *testing.T
	in   *io.PipeWriter
	out  *bufio.Scanner
	done chan error
}

func startConversation(t *testing.T, spec string) *conversation {
	t.Helper()
	s, err := player.ParseSpec(spec)
	if err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := &conversation{t: t, in: inW, out: bufio.NewScanner(outR), done: make(chan error, 1)}
	go func() {
		err := Run(context.Background(), inR, outW, s, "test")
		// A conversation that ended early fails the test's next send or read
		// instead of blocking it.
		inR.CloseWithError(fmt.Errorf("the conversation ended (Run returned %v)", err))
		outW.Close()
		c.done <- err
	}()
	return c
}

func (s *conversation) send(line string) {
	s.t.Helper()
	if _, err := io.WriteString(s.in, line+"\n"); err != nil {
		s.t.Fatal(err)
	}
}

// until reads lines up to and including the first that starts with prefix.
func (s *conversation) until(prefix string) []string {
	s.t.Helper()
	var lines []string
	for s.out.Scan() {
		lines = append(lines, s.out.Text())
		if strings.HasPrefix(s.out.Text(), prefix) {
			return lines
		}
	}
	s.t.Fatalf("output ended before %q; got %q", prefix, lines)
	return nil
}

func TestScriptedConversation(t *testing.T) {
	s := startConversation(t, "heuristic")
	s.send("uci")
	hello := s.until("uciok")
	if !strings.HasPrefix(hello[0], "id name dchess heuristic") {
		t.Errorf("first line %q", hello[0])
	}
	if !strings.Contains(strings.Join(hello, "\n"), "option name Hash type spin") {
		t.Errorf("no Hash option in %q", hello)
	}
	s.send("setoption name Hash value 8")
	s.send("isready")
	s.until("readyok")
	s.send("ucinewgame")
	s.send("position fen r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4")
	s.send("go depth 3")
	lines := s.until("bestmove")
	if got := lines[len(lines)-1]; !strings.HasPrefix(got, "bestmove h5f7") {
		t.Errorf("bestmove line %q, want h5f7", got)
	}
	var sawInfo bool
	for _, l := range lines {
		if strings.HasPrefix(l, "info depth ") && strings.Contains(l, " score mate 1 ") &&
			strings.Contains(l, " nodes ") && strings.Contains(l, " nps ") && strings.Contains(l, " time ") && strings.Contains(l, " pv h5f7") {
			sawInfo = true
		}
	}
	if !sawInfo {
		t.Errorf("no full info line in %q", lines)
	}

	s.send("position startpos moves e2e4 e7e5")
	s.send("go wtime 2000 btime 2000 winc 10 binc 10 movestogo 20")
	if got := s.until("bestmove"); !strings.HasPrefix(got[len(got)-1], "bestmove ") || strings.Contains(got[len(got)-1], "0000") {
		t.Errorf("clock search answered %q", got[len(got)-1])
	}

	// go infinite holds its answer until stop.
	s.send("position startpos")
	s.send("go infinite")
	s.send("isready")
	if got := s.until("readyok"); strings.Contains(strings.Join(got, "\n"), "bestmove") {
		t.Errorf("go infinite answered before stop: %q", got)
	}
	s.send("stop")
	s.until("bestmove")

	s.send("position startpos moves e2e5")
	if got := s.until("info string"); !strings.Contains(got[len(got)-1], "e2e5") {
		t.Errorf("illegal move reported as %q", got[len(got)-1])
	}
	// A refused position gets no move, not one for the position before it.
	s.send("go depth 2")
	if got := s.until("bestmove"); len(got) != 2 || !strings.Contains(got[0], "refused") || !strings.Contains(got[0], "e2e5") || got[1] != "bestmove 0000" {
		t.Errorf("go after a refused position answered %q", got)
	}
	s.send("position fen 4k3/8/8/8/8/8/3P4/4K3 w - d6 0 1")
	s.send("go depth 2")
	if got := s.until("bestmove"); len(got) != 3 || !strings.Contains(got[0], "en-passant") || got[2] != "bestmove 0000" {
		t.Errorf("go after an impossible en-passant square answered %q", got)
	}
	s.send("position startpos moves e2e4")
	s.send("setoption name Depth value 2")
	s.send("go")
	lines = s.until("bestmove")
	for _, l := range lines {
		if strings.HasPrefix(l, "info depth 3") {
			t.Errorf("Depth 2 cap ignored: %q", l)
		}
	}
	s.send("quit")
	if err := <-s.done; err != nil {
		t.Fatal(err)
	}
}

func TestParseGo(t *testing.T) {
	lim, wait, err := parseGo(strings.Fields("wtime 1000 btime 900 winc 10 binc 20 movestogo 5 nodes 4000"))
	if err != nil || wait || lim.WTime.Milliseconds() != 1000 || lim.BTime.Milliseconds() != 900 || lim.WInc.Milliseconds() != 10 ||
		lim.BInc.Milliseconds() != 20 || lim.MovesToGo != 5 || lim.Nodes != 4000 || lim.Infinite {
		t.Errorf("got %+v wait=%v err=%v", lim, wait, err)
	}
	if lim, wait, _ := parseGo([]string{"infinite"}); !lim.Infinite || !wait {
		t.Error("infinite not parsed")
	}
	for _, bad := range []string{"depth", "depth x", "frobnicate 3"} {
		if _, _, err := parseGo(strings.Fields(bad)); err == nil {
			t.Errorf("parseGo(%q) succeeded", bad)
		}
	}
}

func TestParsePosition(t *testing.T) {
	pos, err := parsePosition(strings.Fields("fen 8/8/8/8/8/4k3/8/4K2R w K - 0 1 moves e1g1"))
	if err != nil || pos.StartFEN != "8/8/8/8/8/4k3/8/4K2R w K - 0 1" || len(pos.Moves) != 1 {
		t.Errorf("got %+v, %v", pos, err)
	}
	for _, bad := range []string{"", "fen 8/8 w", "startpos e2e4", "startpos moves e2e5", "fen", "fen moves e2e4"} {
		if _, err := parsePosition(strings.Fields(bad)); err == nil {
			t.Errorf("parsePosition(%q) succeeded", bad)
		}
	}
}

// End of input is "quit", as for Stockfish: a GUI that is gone reads no
// answer, so even a long bounded search is stopped at once; it still sends
// the best move it has (issue #53, item 12).
func TestEndOfInputStopsTheSearch(t *testing.T) {
	s, _ := player.ParseSpec("heuristic")
	var out strings.Builder
	in := strings.NewReader("position startpos moves e2e4\ngo depth 40\n")
	done := make(chan error, 1)
	go func() { done <- Run(context.Background(), in, &out, s, "test") }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("still searching 30 s after its input ended")
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, "bestmove ") || last == "bestmove 0000" {
		t.Errorf("output %q, want a bestmove last", lines)
	}
}

// A "position fen" without a FEN is refused, not read as the start
// position, and the next "go" answers no move (issue #53, item 16).
func TestMissingFENIsRefused(t *testing.T) {
	s := startConversation(t, "heuristic")
	for _, cmd := range []string{"position fen", "position fen moves e2e4"} {
		s.send("position startpos moves e2e4")
		s.send(cmd)
		s.send("isready")
		if got := s.until("readyok"); len(got) != 2 || !strings.HasPrefix(got[0], "info string") || !strings.Contains(got[0], "FEN") {
			t.Errorf("%q reported as %q", cmd, got)
		}
		s.send("go depth 1")
		if got := s.until("bestmove"); len(got) != 2 || !strings.Contains(got[0], "refused") || got[1] != "bestmove 0000" {
			t.Errorf("go after %q answered %q", cmd, got)
		}
	}
	s.send("quit")
	if err := <-s.done; err != nil {
		t.Fatal(err)
	}
}

// A line longer than any buffer (here a game of 240,000 plies, over 1 MiB)
// is read whole, and junk that long is reported briefly; neither ends the
// conversation (issue #53, item 13).
func TestLongLinesDoNotEndTheConversation(t *testing.T) {
	s := startConversation(t, "heuristic")
	// Knights out and back: legal for ever, and it ends where it began.
	game := "position startpos moves" + strings.Repeat(" g1f3 g8f6 f3g1 f6g8", 60000)
	if len(game) <= 1<<20 {
		t.Fatalf("the game line is only %d bytes", len(game))
	}
	s.send(game + " e2e4")
	s.send("go depth 1")
	lines := s.until("bestmove")
	if got := lines[len(lines)-1]; got == "bestmove 0000" || !strings.HasPrefix(got, "bestmove ") {
		t.Fatalf("go after a %d-byte position answered %q", len(game), lines)
	}
	// Black is to move after e2e4: a White move would mean the line was cut.
	if mv := strings.Fields(lines[len(lines)-1])[1]; mv[1] != '7' && mv[1] != '8' {
		t.Errorf("bestmove %s is not Black's", mv)
	}
	junk := strings.Repeat("x", 2<<20)
	for _, line := range []string{junk, "setoption name Hash value " + junk, "position startpos moves " + junk} {
		s.send(line)
		s.send("isready")
		got := s.until("readyok")
		if len(got) != 2 || !strings.HasPrefix(got[0], "info string ") || len(got[0]) > 2048 {
			t.Errorf("%.40q... answered %d lines, the first %d bytes", line, len(got), len(got[0]))
		}
	}
	s.send("quit")
	if err := <-s.done; err != nil {
		t.Fatal(err)
	}
}
