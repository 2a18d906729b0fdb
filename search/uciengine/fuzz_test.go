package uciengine

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/dchess/dchess/search/player"
)

// FuzzCommands: no input a GUI could send panics the engine or keeps it
// running after its input ends, and every line it answers is one a UCI
// client reads (id, option, uciok, readyok, info, bestmove).
func FuzzCommands(f *testing.F) {
	for _, s := range []string{
		"uci\nisready\nposition startpos moves e2e4\ngo depth 2\n",
		"position fen\ngo depth 1\n",
		"position fen 8/P6k/8/8/8/8/8/K7 w - - 0 1 moves a7a8q\ngo nodes 50\nstop\n",
		"setoption name Hash value 1\nsetoption name Depth value x\nucinewgame\ngo infinite\nstop\nquit\n",
		"go wtime 100 btime 100 winc 0 binc 0 movestogo 1\n",
		"position startpos moves e2e5\ngo\n",
		"\x00\n\n   \ngo movetime -5\n",
	} {
		f.Add(s)
	}
	spec, err := player.ParseSpec("random:seed=1")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, input string) {
		// A random player answers at once whatever the limits, so the only
		// wait is the engine's own.
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		var out bytes.Buffer
		done := make(chan error, 1)
		go func() { done <- Run(ctx, strings.NewReader(input), &out, spec, "fuzz") }()
		select {
		case <-done:
		case <-ctx.Done():
			t.Fatalf("the engine still runs after its input ended: %q", input)
		}
		for _, line := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
			word, _, _ := strings.Cut(line, " ")
			switch word {
			case "", "id", "option", "uciok", "readyok", "info", "bestmove":
			default:
				t.Fatalf("answered %q to %q", line, input)
			}
		}
	})
}
