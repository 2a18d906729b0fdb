package label

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dchess/dchess/dataset"
	"github.com/dchess/dchess/dataset/datasettest"
	"github.com/dchess/dchess/internal/chess/board"
	"github.com/dchess/dchess/internal/testenv"
)

// Environment variables that turn the test binary into a helper process.
const (
	fakeEngineEnv = "DCHESS_LABEL_FAKE_ENGINE" // a UCI engine, see runFakeEngine
	childRunEnv   = "DCHESS_LABEL_CHILD_RUN"   // a labelling run, Options as JSON
)

func TestMain(m *testing.M) {
	if spec := os.Getenv(fakeEngineEnv); spec != "" {
		os.Exit(runFakeEngine(spec))
	}
	if raw := os.Getenv(childRunEnv); raw != "" {
		var opts Options
		if err := json.Unmarshal([]byte(raw), &opts); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		if _, err := Run(context.Background(), opts, nil); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	code := m.Run()
	if reference.input != "" {
		os.RemoveAll(filepath.Dir(reference.input))
	}
	os.Exit(code)
}

// runFakeEngine is a minimal UCI engine whose behaviour on some positions is
// set by spec, ";"-separated rules "crash=S", "crashonce=S", "hang=S",
// "illegal=S", "shallow=S", "boundlast=S" and "state=DIR": a position whose
// FEN contains S (or any position for "*") crashes the engine, crashes it
// the first time only (remembered in DIR), makes it stop answering, gets the
// illegal best move e1e8, a search of depth 1 whatever was asked, or, as
// Stockfish 15.1 gives in a few endgames, an exact score a ply short of the
// depth asked and then, at that depth, an upperbound 100 cp below it. Other
// positions get a score derived from the FEN, a legal line of the first
// legal moves, and the depth asked for (3 when none was).
func runFakeEngine(spec string) int {
	rules := map[string]string{}
	for _, r := range strings.Split(spec, ";") {
		if k, v, ok := strings.Cut(r, "="); ok {
			rules[k] = v
		}
	}
	matches := func(fen, rule string) bool {
		return rules[rule] == "*" || rules[rule] != "" && strings.Contains(fen, rules[rule])
	}
	out := bufio.NewWriter(os.Stdout)
	say := func(s string) { out.WriteString(s + "\n"); out.Flush() }
	in := bufio.NewScanner(os.Stdin)
	fen := ""
	for in.Scan() {
		line := in.Text()
		switch {
		case line == "uci":
			say("id name FakeFish 1\noption name Threads type spin default 1 min 1 max 8\n" +
				"option name Hash type spin default 16 min 1 max 1024\noption name MultiPV type spin default 1 min 1 max 8\nuciok")
		case line == "isready":
			say("readyok")
		case line == "quit":
			return 0
		case strings.HasPrefix(line, "position fen "):
			fen = strings.TrimPrefix(line, "position fen ")
		case strings.HasPrefix(line, "go"):
			switch {
			case matches(fen, "crash"):
				return 9
			case matches(fen, "crashonce"):
				marker := filepath.Join(rules["state"], fmt.Sprintf("%x", sha256.Sum256([]byte(fen))))
				if _, err := os.Stat(marker); err != nil {
					os.WriteFile(marker, nil, 0o644)
					return 9
				}
			case matches(fen, "hang"):
				time.Sleep(time.Hour)
			}
			depth := 3
			if f := strings.Fields(line); len(f) == 3 && f[1] == "depth" {
				depth, _ = strconv.Atoi(f[2])
			}
			pv := firstMovesLine(fen, 3)
			switch {
			case matches(fen, "illegal"):
				pv = []string{"e1e8"}
			case matches(fen, "shallow"):
				depth = 1
			}
			sum := sha256.Sum256([]byte(fen))
			cp := int(sum[0]) - 128
			if matches(fen, "boundlast") {
				say(fmt.Sprintf("info depth %d score cp %d nodes 50 pv %s", depth-1, cp, strings.Join(pv, " ")))
				say(fmt.Sprintf("info depth %d score cp %d upperbound nodes 90 pv %s", depth, cp-100, pv[0]))
				say("bestmove " + pv[0])
				break
			}
			say(fmt.Sprintf("info depth %d score cp %d nodes %d pv %s\nbestmove %s", depth, cp, 100+int(sum[1]), strings.Join(pv, " "), pv[0]))
		}
	}
	return 0
}

// firstMovesLine is up to n plies of the first legal move from fen.
func firstMovesLine(fen string, n int) []string {
	b, err := board.FromFEN(fen)
	if err != nil {
		return []string{"0000"}
	}
	var line []string
	for len(line) < n {
		moves := b.LegalMoves()
		if len(moves) == 0 {
			break
		}
		line = append(line, board.UCI(moves[0]))
		b.Make(moves[0])
	}
	return line
}

// fakeEngine returns the path and environment for the fake engine with spec.
func fakeEngine(t *testing.T, spec string) string {
	t.Helper()
	t.Setenv(fakeEngineEnv, spec)
	return os.Args[0]
}

// wacFENs reads n positions (all when n <= 0) of the WAC suite.
func wacFENs(t *testing.T, n int) []string {
	t.Helper()
	f, err := os.Open(testenv.SharedData(t, "epd/wac.epd"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var fens []string
	sc := bufio.NewScanner(f)
	for sc.Scan() && (n <= 0 || len(fens) < n) {
		fields := strings.Fields(sc.Text())
		if len(fields) < 4 || strings.HasPrefix(fields[0], "#") {
			continue
		}
		fens = append(fens, strings.Join(fields[:4], " ")+" 0 1")
	}
	return fens
}

// writeInput stores fens as a dataset with one game per position.
func writeInput(t *testing.T, dir string, fens []string) string {
	t.Helper()
	recs := make([]*dataset.Record, len(fens))
	for i, fen := range fens {
		recs[i] = &dataset.Record{FEN: fen, Key: dataset.PositionKey(fen), GameID: uint64(i + 1), Ply: uint16(i)}
	}
	return datasettest.Write(t, dir, dataset.WriteOptions{Command: []string{"test"}}, recs)
}

func readRecords(t *testing.T, dir string) []*dataset.Record {
	t.Helper()
	d, err := dataset.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	var recs []*dataset.Record
	if err := d.Scan(context.Background(), dataset.AllSplits, func(r *dataset.Record) error {
		recs = append(recs, r)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return recs
}

// sameLabels fails unless got holds exactly the input positions, in order,
// each with the label want has for it.
func sameLabels(t *testing.T, got, want []*dataset.Record) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d records, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i].FEN != want[i].FEN || got[i].GameID != want[i].GameID {
			t.Fatalf("record %d is %q (game %d), want %q (game %d)", i, got[i].FEN, got[i].GameID, want[i].FEN, want[i].GameID)
		}
		if !reflect.DeepEqual(got[i].Label, want[i].Label) {
			t.Fatalf("record %d (%s):\n got %+v\nwant %+v", i, want[i].FEN, got[i].Label, want[i].Label)
		}
	}
}
