package label

import (
	"context"
	"crypto/sha256"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dchess/dchess/dataset"
	"github.com/dchess/dchess/internal/chess/board"
	"github.com/dchess/dchess/internal/testenv"
)

// nodesOptions label with a node limit: fast, and the same on every run.
func nodesOptions(stockfish, in, out string) Options {
	return Options{Stockfish: stockfish, Input: in, Output: out, Nodes: 3000, Workers: 2, Hash: 16, PV: 4}
}

var reference struct {
	once    sync.Once
	input   string
	records []*dataset.Record
	err     error
}

// referenceRun labels the first 60 WAC positions once, uninterrupted, with
// nodesOptions; tests compare interrupted and repeated runs against it.
func referenceRun(t *testing.T) (input string, want []*dataset.Record) {
	t.Helper()
	sf := testenv.Stockfish(t)
	fens := wacFENs(t, 60)
	reference.once.Do(func() {
		dir, err := os.MkdirTemp("", "dchess-label-ref-")
		if err != nil {
			reference.err = err
			return
		}
		reference.input = writeInput(t, filepath.Join(dir, "in"), fens)
		out := filepath.Join(dir, "out")
		if _, reference.err = Run(context.Background(), nodesOptions(sf, reference.input, out), nil); reference.err == nil {
			reference.records = readRecords(t, out)
		}
	})
	if reference.err != nil {
		t.Fatal(reference.err)
	}
	return reference.input, reference.records
}

func TestLabelWACWithStockfish(t *testing.T) {
	sf := testenv.Stockfish(t)
	fens := wacFENs(t, 50)
	dir := t.TempDir()
	in := writeInput(t, filepath.Join(dir, "in"), fens)
	out := filepath.Join(dir, "out")
	var last Progress
	sum, err := Run(context.Background(), Options{Stockfish: sf, Input: in, Output: out, Depth: 6, Workers: 2, PV: 3, MultiPV: 2},
		func(p Progress) { last = p })
	if err != nil {
		t.Fatal(err)
	}
	if sum.Records != 50 || sum.Labelled != 50 || sum.Resumed != 0 || sum.Failed != 0 || !strings.HasPrefix(sum.Engine, "Stockfish") {
		t.Fatalf("summary %+v", sum)
	}
	if last != (Progress{Done: 50, Total: 50}) {
		t.Fatalf("last progress %+v", last)
	}
	if _, err := os.Stat(partialDir(out)); !os.IsNotExist(err) {
		t.Fatalf("journal left behind: %v", err)
	}
	recs := readRecords(t, out)
	if len(recs) != len(fens) {
		t.Fatalf("%d records, want %d", len(recs), len(fens))
	}
	mates := 0
	for i, r := range recs {
		l := r.Label
		if r.FEN != fens[i] || l == nil || l.Status != dataset.LabelOK || l.Engine != sum.Engine {
			t.Fatalf("record %d: %q %+v", i, r.FEN, l)
		}
		b, err := board.FromFEN(r.FEN)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := b.ParseUCI(l.BestMove); err != nil {
			t.Fatalf("record %d: best move %q is not legal: %v", i, l.BestMove, err)
		}
		if len(l.PV) == 0 || len(l.PV) > 3 || l.PV[0] != l.BestMove || l.Depth < 6 || l.Nodes == 0 {
			t.Fatalf("record %d: %+v", i, l)
		}
		if l.WinProb != dataset.WinProbability(l.CP, l.Mate) {
			t.Fatalf("record %d: win probability %v for cp %d mate %d", i, l.WinProb, l.CP, l.Mate)
		}
		if l.Mate != 0 {
			mates++
		}
		if len(l.MultiPV) != 1 || len(l.MultiPV[0].PV) == 0 || l.MultiPV[0].PV[0] == l.BestMove {
			t.Fatalf("record %d: second line %+v", i, l.MultiPV)
		}
		// The second line is no better than the first, from the same side.
		if second := l.MultiPV[0]; second.Mate == 0 && l.Mate == 0 && second.CP > l.CP {
			t.Fatalf("record %d: second line %d cp beats the first %d cp", i, second.CP, l.CP)
		}
	}
	// WAC is tactics: some positions are forced mates at depth 6.
	if mates == 0 {
		t.Fatal("no mate scores in 50 WAC positions")
	}
	m, err := dataset.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	if c := m.Manifest().Counts; c.Records != 50 || c.Labelled != 50 {
		t.Fatalf("manifest counts %+v", c)
	}
	if s, ok := m.Manifest().Settings["label"].(map[string]any); !ok || s["depth"] != float64(6) || s["engine"] != sum.Engine {
		t.Fatalf("manifest settings %+v", m.Manifest().Settings)
	}
}

// TestStockfishLastIterationOnABound: at depth 8 Stockfish 15.1 ends this
// endgame's search on an upperbound at depth 8 after an exact depth 7 (one
// of 19 positions of 779,581 in the NNUE study's data, all failed three
// times before): labelled with the depth-7 score, not failed.
func TestStockfishLastIterationOnABound(t *testing.T) {
	sf := testenv.Stockfish(t)
	const fen = "1k6/1P6/3p4/2pB1p1p/2P2P1P/1b4P1/p4K2/8 b - - 1 49"
	dir := t.TempDir()
	in := writeInput(t, filepath.Join(dir, "in"), []string{fen})
	out := filepath.Join(dir, "out")
	sum, err := Run(context.Background(), Options{Stockfish: sf, Input: in, Output: out, Depth: 8, Workers: 1, PV: 3}, nil)
	if err != nil {
		t.Fatal(err)
	}
	l := readRecords(t, out)[0].Label
	if sum.Failed != 0 || l.Status != dataset.LabelOK || l.Depth < 7 || l.BestMove == "" {
		t.Fatalf("summary %+v, label %+v", sum, l)
	}
}

func TestNodesLabelsRepeatAcrossRunsAndWorkerCounts(t *testing.T) {
	input, want := referenceRun(t)
	opts := nodesOptions(testenv.Stockfish(t), input, filepath.Join(t.TempDir(), "out"))
	opts.Workers = 1
	if _, err := Run(context.Background(), opts, nil); err != nil {
		t.Fatal(err)
	}
	sameLabels(t, readRecords(t, opts.Output), want)
}

func TestInterruptKeepsLabelsAndResumes(t *testing.T) {
	input, want := referenceRun(t)
	opts := nodesOptions(testenv.Stockfish(t), input, filepath.Join(t.TempDir(), "out"))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, err := Run(ctx, opts, func(p Progress) {
		if p.Done >= 10 {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "run the same command again to resume") {
		t.Fatalf("got %v", err)
	}
	if _, err := os.Stat(opts.Output); !os.IsNotExist(err) {
		t.Fatalf("output written by an interrupted run: %v", err)
	}

	// Other settings are refused, naming the difference.
	other := opts
	other.Nodes = 4000
	if _, err := Run(context.Background(), other, nil); err == nil || !strings.Contains(err.Error(), "--nodes 3000 then, 4000 now") {
		t.Fatalf("resume with other settings: %v", err)
	}

	sum, err := Run(context.Background(), opts, nil)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Resumed < 10 || sum.Resumed+sum.Labelled != int64(len(want)) {
		t.Fatalf("resumed %d + labelled %d, want at least 10 and a total of %d", sum.Resumed, sum.Labelled, len(want))
	}
	sameLabels(t, readRecords(t, opts.Output), want)
}

func TestBadOptionsFailBeforeLabelling(t *testing.T) {
	dir := t.TempDir()
	in := writeInput(t, filepath.Join(dir, "in"), []string{"8/8/8/8/8/8/k7/K6R w - - 0 1"})
	notDataset := filepath.Join(dir, "notes")
	os.MkdirAll(notDataset, 0o755)
	os.WriteFile(filepath.Join(notDataset, "keep.txt"), []byte("mine"), 0o644)
	existing := writeInput(t, filepath.Join(dir, "existing"), []string{board.StartFEN})
	engine := fakeEngine(t, "normal")
	cases := map[string]struct {
		opts Options
		want string
	}{
		"two limits":      {Options{Stockfish: engine, Input: in, Output: dir + "/o", Depth: 5, Nodes: 100}, "at most one of"},
		"same folder":     {Options{Stockfish: engine, Input: in, Output: in + "/."}, "must differ"},
		"foreign output":  {Options{Stockfish: engine, Input: in, Output: notDataset}, "not a dchess dataset"},
		"existing output": {Options{Stockfish: engine, Input: in, Output: existing}, "pass --force"},
		"missing input":   {Options{Stockfish: engine, Input: dir + "/nothing", Output: dir + "/o"}, "nothing"},
		"missing engine":  {Options{Stockfish: dir + "/no-engine", Input: in, Output: dir + "/o"}, "no such file"},
		"negative pv":     {Options{Stockfish: engine, Input: in, Output: dir + "/o", PV: -1}, "must not be negative"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := Run(context.Background(), c.opts, nil)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error containing %q", err, c.want)
			}
		})
	}
	if _, err := os.Stat(partialDir(dir + "/o")); !os.IsNotExist(err) {
		t.Fatalf("a failed start left a journal: %v", err)
	}
}

// fakeInput is a small dataset whose positions the fake engine rules pick
// out by their piece placement.
var fakeInput = []string{
	"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
	"r1bqkbnr/pppppppp/2n5/8/8/2N5/PPPPPPPP/R1BQKBNR w KQkq - 2 2", // crashonce
	"rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2", // crash
	"rnbqkb1r/pppppppp/5n2/8/8/5N2/PPPPPPPP/RNBQKB1R w KQkq - 2 2", // hang
	"not a fen",
	"R5k1/5ppp/8/8/8/8/8/6K1 b - - 1 1", // black is mated
	"7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",    // black is stalemated
	"rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq - 0 1",
}

func TestCrashesHangsAndBadPositions(t *testing.T) {
	dir := t.TempDir()
	in := writeInput(t, filepath.Join(dir, "in"), fakeInput)
	engine := fakeEngine(t, "crashonce=r1bqkbnr/pppppppp/2n5;crash=rnbqkbnr/pppp1ppp/8/4p3;hang=rnbqkb1r/pppppppp/5n2;state="+t.TempDir())
	out := filepath.Join(dir, "out")
	sum, err := Run(context.Background(), Options{Stockfish: engine, Input: in, Output: out, Nodes: 100, Workers: 2, PV: 2, Timeout: 300 * time.Millisecond,
		MaxFailures: "3"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Restarts: one after the crash-once position, three each for the
	// position that always crashes and the one that hangs (the third
	// failure's restart happens when the worker's next position arrives,
	// or not at all, so count at least 1+2+2).
	if sum.Failed != 3 || sum.Labelled != int64(len(fakeInput)) || sum.Restarts < 5 {
		t.Fatalf("summary %+v", sum)
	}
	recs := readRecords(t, out)
	get := func(i int) dataset.Label { return *recs[i].Label }
	for _, i := range []int{0, 1, 7} {
		if l := get(i); l.Status != dataset.LabelOK || l.Engine != "FakeFish 1" || l.BestMove != firstMovesLine(fakeInput[i], 1)[0] || len(l.PV) != 2 || l.Depth != 3 {
			t.Errorf("record %d: %+v", i, l)
		}
	}
	for i, want := range map[int]string{2: "3 attempts failed, last: uci engine", 3: "no answer within 300ms", 4: "invalid FEN"} {
		if l := get(i); l.Status != dataset.LabelFailed || !strings.Contains(l.Error, want) {
			t.Errorf("record %d: %+v, want a failure containing %q", i, l, want)
		}
	}
	if l := get(5); l.Status != dataset.LabelOK || l.CP != MatedCP || l.Mate != 0 || l.WinProb != 0 || l.BestMove != "" {
		t.Errorf("mated: %+v", l)
	}
	if l := get(6); l.Status != dataset.LabelOK || l.CP != 0 || l.WinProb != 0.5 || l.BestMove != "" {
		t.Errorf("stalemate: %+v", l)
	}
}

func TestEngineThatCannotRestartStopsTheRun(t *testing.T) {
	dir := t.TempDir()
	in := writeInput(t, filepath.Join(dir, "in"), fakeInput[:3])
	// A wrapper that works once, then is gone: restarts fail.
	wrapper := filepath.Join(dir, "engine.sh")
	script := "#!/bin/sh\nrm -f \"$0\"\nexec " + os.Args[0] + "\n"
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv(fakeEngineEnv, "crash=r1bqkbnr/pppppppp/2n5")
	out := filepath.Join(dir, "out")
	_, err := Run(context.Background(), Options{Stockfish: wrapper, Input: in, Output: out, Nodes: 100, Workers: 1}, nil)
	if err == nil || !strings.Contains(err.Error(), "restarting the engine") || !strings.Contains(err.Error(), "run the same command again") {
		t.Fatalf("got %v", err)
	}
	// The label finished before the crash is journalled.
	if got := journalEntries(t, partialDir(out)); len(got) != 1 || got[0].Index != 0 || got[0].Label.Status != dataset.LabelOK {
		t.Fatalf("journal holds %+v", got)
	}
}

func TestWrongAnswersFailLikeCrashes(t *testing.T) {
	dir := t.TempDir()
	in := writeInput(t, filepath.Join(dir, "in"), fakeInput)
	// Record 7 is Black to move; the fake engine answers e1e8 there.
	// Record 3's search ends on a bound at the depth asked: labelled, with
	// the exact score a ply shallower.
	engine := fakeEngine(t, "illegal=rnbqkbnr/pppppppp/8/8/3P4;shallow=r1bqkbnr/pppppppp/2n5;boundlast=rnbqkb1r/pppppppp/5n2")
	out := filepath.Join(dir, "out")
	sum, err := Run(context.Background(), Options{Stockfish: engine, Input: in, Output: out, Depth: 4, Workers: 2, PV: 3, MaxFailures: "3"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Failed != 3 {
		t.Fatalf("summary %+v, want the bad FEN and the two wrong answers failed", sum)
	}
	recs := readRecords(t, out)
	for i, want := range map[int]string{1: "engine reported depth 1, depth 4 was asked", 7: "best move e1e8 is not legal"} {
		if l := recs[i].Label; l.Status != dataset.LabelFailed || !strings.Contains(l.Error, want) || !strings.Contains(l.Error, "3 attempts") {
			t.Errorf("record %d: %+v, want a failure after retries containing %q", i, l, want)
		}
	}
	if l := recs[0].Label; l.Status != dataset.LabelOK || l.Depth != 4 {
		t.Errorf("record 0: %+v", l)
	}
	b, err := board.FromFEN(fakeInput[3])
	if err != nil {
		t.Fatal(err)
	}
	exact := int32(sha256.Sum256([]byte(b.FEN()))[0]) - 128
	if l := recs[3].Label; l.Status != dataset.LabelOK || l.Depth != 3 || l.CP != exact {
		t.Errorf("record 3, its last iteration ending on a bound: %+v, want depth 3 and the exact cp %d", l, exact)
	}
	d, err := dataset.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Verify(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func TestTooManyFailuresWriteNoOutput(t *testing.T) {
	dir := t.TempDir()
	in := writeInput(t, filepath.Join(dir, "in"), fakeInput)
	engine := fakeEngine(t, "illegal=*")
	out := filepath.Join(dir, "out")
	opts := Options{Stockfish: engine, Input: in, Output: out, Depth: 4, Workers: 2}
	sum, err := Run(context.Background(), opts, nil)
	// Mate and stalemate need no engine; the other 6 fail.
	if err == nil || !strings.Contains(err.Error(), "6 of 8 positions failed") || !strings.Contains(err.Error(), "max failures 1%") || sum.Failed != 6 {
		t.Fatalf("got %v, summary %+v", err, sum)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Fatalf("an output was written: %v", err)
	}
	// The labels are kept: a rerun accepting the failures writes them
	// without asking the engine again.
	opts.MaxFailures = "75%"
	sum, err = Run(context.Background(), opts, nil)
	if err != nil || sum.Resumed != 8 || sum.Failed != 6 {
		t.Fatalf("rerun: %v, summary %+v", err, sum)
	}
	if _, err := parseFailureLimit("ten"); err == nil {
		t.Fatal("a bad --max-failures was accepted")
	}
}

// docs/dataset-format.md said `label -i D -o D` was safe, but label refuses
// it: the doc must quote the refusal label really gives.
func TestDatasetFormatDocSaysWhatLabelDoesWithItsOwnInput(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join(testenv.RepoRoot(), "docs", "dataset-format.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(strings.Fields(string(doc)), " ") // lines unwrapped
	const claim = "`label -i D -o D`"
	i := strings.Index(text, claim)
	if i < 0 {
		t.Fatalf("docs/dataset-format.md no longer mentions %s", claim)
	}
	sentence, _, _ := strings.Cut(text[i:], ". ")
	_, quoted, _ := strings.Cut(sentence, `"`)
	quoted, _, found := strings.Cut(quoted, `"`)
	in := writeInput(t, filepath.Join(t.TempDir(), "D"), []string{board.StartFEN})
	_, err = Run(context.Background(), Options{Stockfish: fakeEngine(t, "normal"), Input: in, Output: in}, nil)
	if !found || quoted == "" || err == nil || !strings.Contains(err.Error(), quoted) {
		t.Errorf("the doc says of %s: %q\nlabel says: %v", claim, sentence, err)
	}
}
