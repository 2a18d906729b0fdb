package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// guiStreams feed "dchess uci" commands and then, as a GUI does, keep its
// input open until it has sent a bestmove: end of input stops a search.
// After 30 s without one the input ends, so a broken engine fails the test
// rather than hanging it.
func guiStreams(commands string) (*IOStreams, *answerWatch) {
	out := &answerWatch{answered: make(chan struct{})}
	held := waitThenEOF{out.answered, time.After(30 * time.Second)}
	in := io.MultiReader(strings.NewReader(commands), held)
	return &IOStreams{In: in, Out: out, ErrOut: &bytes.Buffer{}}, out
}

// answerWatch is an engine's output that notes its first bestmove. The
// search writes from its own goroutine, hence the lock.
type answerWatch struct {
	mu       sync.Mutex
	buf      bytes.Buffer
	answered chan struct{}
	once     sync.Once
}

func (w *answerWatch) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n, err := w.buf.Write(p)
	if bytes.Contains(w.buf.Bytes(), []byte("bestmove ")) {
		w.once.Do(func() { close(w.answered) })
	}
	return n, err
}

func (w *answerWatch) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// waitThenEOF is an input that ends once answered is closed or giveUp fires.
type waitThenEOF struct {
	answered <-chan struct{}
	giveUp   <-chan time.Time
}

func (w waitThenEOF) Read([]byte) (int, error) {
	select {
	case <-w.answered:
	case <-w.giveUp:
	}
	return 0, io.EOF
}

// A GUI that is gone closes the engine's input: "dchess uci" must then stop
// even a long search and return, not search on as an orphan.
func TestUCIReturnsAtEndOfInput(t *testing.T) {
	var out bytes.Buffer
	s := &IOStreams{In: strings.NewReader("uci\nposition startpos\ngo depth 40\n"), Out: &out, ErrOut: &bytes.Buffer{}}
	done := make(chan error, 1)
	go func() { done <- runUCI(context.Background(), &uciOptions{Player: "heuristic"}, s) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("dchess uci still running 30 s after its input ended")
	}
	if lines := strings.Split(strings.TrimSpace(out.String()), "\n"); !strings.HasPrefix(lines[len(lines)-1], "bestmove ") {
		t.Errorf("output %q, want the stopped search's bestmove last", lines)
	}
}

// A bare family name plays the newest weights under the runs/ of the
// folder the engine is started in, else the shipped ones: "id name" names
// the file and an "info string" says where it came from (issue #58, item 3).
func TestUCINamesTheWeightsOfABareFamilyName(t *testing.T) {
	shipped, err := filepath.Abs(filepath.Join("..", "..", "models", "shipped", "nnue.dcw"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	t.Chdir(dir)
	talk := func() string {
		s, out := guiStreams("uci\nisready\nposition startpos\ngo depth 1\n")
		if err := runUCI(context.Background(), &uciOptions{Player: "nnue"}, s); err != nil {
			t.Fatal(err)
		}
		return out.String()
	}
	got := talk()
	if !strings.Contains(got, "id name dchess nnue (models/shipped/nnue.dcw)") ||
		!strings.Contains(got, "info string nnue: no nnue weights under "+filepath.Join(dir, "runs")+", so playing the weights shipped with dchess") {
		t.Errorf("shipped weights announced as %q", got)
	}
	data, err := os.ReadFile(shipped)
	if err != nil {
		t.Fatal(err)
	}
	run := filepath.Join(dir, "runs", "mine", "model.dcw")
	if err := os.MkdirAll(filepath.Dir(run), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(run, data, 0o644); err != nil {
		t.Fatal(err)
	}
	got = talk()
	if !strings.Contains(got, "id name dchess nnue ("+run+")") ||
		!strings.Contains(got, "info string nnue: playing "+run+", the newest nnue weights under "+filepath.Join(dir, "runs")) {
		t.Errorf("weights under runs/ announced as %q", got)
	}
}

// The help's match-tool examples are in the forms fastchess and
// cutechess-cli take: the binary in cmd=, its arguments in args="..."
// (fastchess) or one arg= each (cutechess-cli); a whole command line in
// cmd= starts nothing in either (issue #58, item 3).
func TestUCIHelpExamplesStartInMatchTools(t *testing.T) {
	ex := newUCICmd(&IOStreams{}).Example
	for _, want := range []string{
		`fastchess -engine cmd=dchess args="uci --player nnue"`,
		`cutechess-cli -engine cmd=dchess arg=uci arg=--player arg=nnue`,
	} {
		if !strings.Contains(ex, want) {
			t.Errorf("no %q in the examples:\n%s", want, ex)
		}
	}
	for _, line := range strings.Split(ex, "\n") {
		if strings.Contains(line, `cmd="`) {
			t.Errorf("a whole command line in cmd=: %s", line)
		}
	}
}
