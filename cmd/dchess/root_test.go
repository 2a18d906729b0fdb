package main

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
)

// runMain runs dchess with args as main does and returns its exit code and
// standard error.
func runMain(args ...string) (int, string) {
	s, _, errOut := playStreams("")
	root := newRootCmd(s)
	root.SetArgs(args)
	cmd, err := root.ExecuteContextC(context.Background())
	var report bytes.Buffer
	code := reportError(&report, cmd, err)
	return code, errOut.String() + report.String()
}

func TestExitCodesAndUsageMessages(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		want []string
	}{
		{[]string{"mach"}, 2, []string{`unknown command "mach" for "dchess"`, "Did you mean this?\n\tmatch\n", "Usage: dchess COMMAND [flags]"}},
		{[]string{"match", "--gmaes", "3"}, 2, []string{"unknown flag: --gmaes", "Did you mean this?\n\t--games\n", "Usage: dchess match --a SPEC --b SPEC [flags]", "Run 'dchess match --help'"}},
		{[]string{"match", "--qiuet"}, 2, []string{"Did you mean this?\n\t--quiet\n"}},
		{[]string{"match", "--games", "x"}, 2, []string{`invalid argument "x" for "--games"`, "Usage: dchess match"}},
		{[]string{"match", "--a", "heurstic", "--b", "random"}, 2, []string{"did you mean heuristic?", "Usage: dchess match"}},
		{[]string{"match", "--a", "heur", "--b", "random"}, 2, []string{"did you mean heuristic?"}}, // a prefix, not nnue
		{[]string{"perft", "a", "b", "c", "d"}, 2, []string{"Usage: dchess perft"}},
		{[]string{"version", "extra"}, 2, []string{`unknown command "extra" for "dchess version"`}},
		{[]string{"match", "--a", "random", "--b", "random", "--games", "2", "--pgn", "/nonexistent/dir/games.pgn"}, 1, []string{"--pgn: "}},
		{[]string{"version"}, 0, nil},
	} {
		code, stderr := runMain(c.args...)
		if code != c.code {
			t.Errorf("%v: exit %d, want %d\n%s", c.args, code, c.code, stderr)
		}
		for _, want := range c.want {
			if !strings.Contains(stderr, want) {
				t.Errorf("%v: stderr lacks %q:\n%s", c.args, want, stderr)
			}
		}
		if c.code == 1 && strings.Contains(stderr, "Usage:") {
			t.Errorf("%v: a failure printed the usage line:\n%s", c.args, stderr)
		}
	}
}

func TestReportErrorWithoutCommand(t *testing.T) {
	var out bytes.Buffer
	if code := reportError(&out, nil, usagef("bad")); code != 2 || out.String() != "dchess: bad\n" {
		t.Errorf("usage error: %d %q", code, out.String())
	}
	out.Reset()
	if code := reportError(&out, nil, errors.New("disk full")); code != 1 || out.String() != "dchess: disk full\n" {
		t.Errorf("failure: %d %q", code, out.String())
	}
}
