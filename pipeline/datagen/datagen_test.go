package datagen

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/dchess/dchess/dataset"
	"github.com/dchess/dchess/internal/chess/board"
	"github.com/dchess/dchess/internal/jobarray"
	"github.com/dchess/dchess/internal/safefile"
	"github.com/dchess/dchess/pipeline/selfplay"
	"github.com/dchess/dchess/search/match"
	"github.com/dchess/dchess/search/player"
)

// tiny is a run of 4 games of the heuristic at depth 1 against itself,
// with random moves early so the games of a pair differ and some positions
// have no score.
func tiny(out string) Options {
	return Options{
		Play: selfplay.Options{Match: match.Config{Depth: 1, Concurrency: 2, MaxMoves: 40, Seed: 7},
			A: "heuristic", Games: 4, OpeningPlies: 4, BalanceCP: 150, RandomRate: 0.2, RandomPlies: 10},
		Output: out,
	}
}

// moveKey names a move in a position.
type moveKey struct{ fen, move string }

func readAll(t *testing.T, dir string) []dataset.Record {
	t.Helper()
	d, err := dataset.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	var recs []dataset.Record
	if err := d.Scan(context.Background(), dataset.AllSplits, func(r *dataset.Record) error {
		recs = append(recs, *r)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return recs
}

// TestRecordsCarryTheMovesScores: every position before a scored move is a
// record whose label is the mover's search (score, depth, nodes, PV, the
// move as the best), with the game's result and ply; moves without a score
// leave theirs out; the games are kept beside the dataset and the journal
// is gone.
func TestRecordsCarryTheMovesScores(t *testing.T) {
	out := filepath.Join(t.TempDir(), "gen")
	opts := tiny(out)
	infos := map[moveKey][]player.MoveInfo{}
	results := map[string]bool{}
	opts.Play.OnGame = func(g match.GameResult, _ *match.Report) {
		b, err := board.FromFEN(g.Opening.FEN)
		if err != nil {
			t.Error(err)
			return
		}
		for _, m := range g.Moves {
			k := moveKey{b.FEN(), m.UCI}
			infos[k] = append(infos[k], m.Info)
			mv, _ := b.ParseUCI(m.UCI)
			b.Make(mv)
		}
		results[g.Result] = true
	}
	res, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	recs := readAll(t, out)
	if len(recs) == 0 || int64(len(recs)) != res.Records {
		t.Fatalf("%d records, result says %d", len(recs), res.Records)
	}
	if res.Unscored == 0 {
		t.Errorf("no position without a score among %d with random moves", res.Positions)
	}
	if got := res.Records + res.Unscored + res.Duplicates; got != res.Positions {
		t.Errorf("records %d + unscored %d + duplicates %d != positions %d", res.Records, res.Unscored, res.Duplicates, res.Positions)
	}
	for _, r := range recs {
		l := r.Label
		ins, ok := infos[moveKey{r.FEN, r.Move}]
		if l == nil || !ok {
			t.Fatalf("record %s %s: label %v, played %v", r.FEN, r.Move, l, ok)
		}
		in := ins[0]
		wantCP, wantMate := int32(in.Score), int32(in.Mate)
		if in.Mate != 0 {
			wantCP = 0
		}
		if !in.HasScore || l.Status != dataset.LabelOK || l.CP != wantCP || l.Mate != wantMate || l.BestMove != r.Move ||
			int(l.Depth) != in.Depth || int64(l.Nodes) != in.Nodes || l.Engine != "heuristic" ||
			l.WinProb != dataset.WinProbability(wantCP, wantMate) || !slices.Equal(l.PV, in.PV[:min(len(in.PV), DefaultPV)]) {
			t.Errorf("record %s %s: label %+v, the move's search %+v", r.FEN, r.Move, *l, in)
		}
		b, _ := board.FromFEN(r.FEN)
		if want := 2*(b.FullmoveNumber()-1) + int(b.SideToMove()); int(r.Ply) != want {
			t.Errorf("record %s: ply %d, want %d", r.FEN, r.Ply, want)
		}
		if !results[r.Result.String()] || r.GameID == 0 || r.Key != dataset.PositionKey(r.FEN) {
			t.Errorf("record %s: result %s, game %x, key %x", r.FEN, r.Result, r.GameID, r.Key)
		}
	}
	if _, err := os.Stat(GamesFile(out)); err != nil {
		t.Errorf("games: %v", err)
	}
	if _, err := os.Stat(selfplay.Journal(GamesFile(out))); !os.IsNotExist(err) {
		t.Errorf("journal left behind: %v", err)
	}
	if _, err := Run(context.Background(), opts); !errors.Is(err, safefile.ErrExists) {
		t.Errorf("a second run over the dataset: %v, want it refused", err)
	}
}

// TestFilters: in check, a capture played and a score beyond the bound are
// left out, counted, and nothing else is.
func TestFilters(t *testing.T) {
	dir := t.TempDir()
	all, err := Run(context.Background(), tiny(filepath.Join(dir, "all")))
	if err != nil {
		t.Fatal(err)
	}
	opts := tiny(filepath.Join(dir, "quiet"))
	opts.Filters = Filters{SkipInCheck: true, SkipCaptures: true, MaxScore: 200}
	res, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if res.InCheck == 0 || res.Captures == 0 || res.Beyond == 0 {
		t.Errorf("filters dropped %d in check, %d captures, %d beyond; want some of each", res.InCheck, res.Captures, res.Beyond)
	}
	kept := map[moveKey]bool{}
	for _, r := range readAll(t, filepath.Join(dir, "quiet")) {
		kept[moveKey{r.FEN, r.Move}] = true
	}
	for _, r := range readAll(t, filepath.Join(dir, "all")) {
		b, _ := board.FromFEN(r.FEN)
		mv, _ := b.ParseUCI(r.Move)
		pass := !b.InCheck() && !b.IsCapture(mv) && r.Label.Mate == 0 && r.Label.CP <= 200 && r.Label.CP >= -200
		if kept[moveKey{r.FEN, r.Move}] != pass {
			t.Errorf("%s %s (cp %d, mate %d): kept %v, want %v", r.FEN, r.Move, r.Label.CP, r.Label.Mate, !pass, pass)
		}
	}
	if all.Positions != res.Positions {
		t.Errorf("the filtered run saw %d positions, the other %d", res.Positions, all.Positions)
	}
}

// TestKilledRunResumes: a run stopped after its first game keeps it in the
// journal, and the same run again plays only the rest and writes what an
// uninterrupted run writes.
func TestKilledRunResumes(t *testing.T) {
	dir := t.TempDir()
	if _, err := Run(context.Background(), tiny(filepath.Join(dir, "whole"))); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "killed")
	opts := tiny(out)
	opts.Play.Match.Concurrency = 1
	ctx, cancel := context.WithCancel(context.Background())
	opts.Play.OnGame = func(match.GameResult, *match.Report) { cancel() }
	_, err := Run(ctx, opts)
	var stopped *selfplay.InterruptedError
	if !errors.Is(err, context.Canceled) || !errors.As(err, &stopped) || stopped.Games < 1 || stopped.Output != out ||
		!strings.Contains(err.Error(), "kept in "+selfplay.Journal(GamesFile(out))+"; "+out+" was not written: run the same command again") {
		t.Fatalf("stopped run: %v", err)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Fatalf("a stopped run wrote its dataset: %v", err)
	}
	opts.Play.OnGame = nil
	res, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if res.Play.Resumed < 1 {
		t.Errorf("resumed %d games, want at least the first", res.Play.Resumed)
	}
	if got, want := readAll(t, out), readAll(t, filepath.Join(dir, "whole")); !reflect.DeepEqual(got, want) {
		t.Errorf("resumed run wrote %d records, the uninterrupted one %d, or others", len(got), len(want))
	}
}

// TestShardedRunMerges: two tasks write their datasets, a rerun of a
// finished task does nothing, and dataset merge joins them into the
// positions of the unsharded run.
func TestShardedRunMerges(t *testing.T) {
	dir := t.TempDir()
	if _, err := Run(context.Background(), tiny(filepath.Join(dir, "whole"))); err != nil {
		t.Fatal(err)
	}
	base := filepath.Join(dir, "task")
	for i := range 2 {
		opts := tiny(base)
		opts.Sharded, opts.Shard = true, jobarray.Spec{Index: i, Count: 2}
		opts.Run = match.ShardRun{A: "heuristic", B: "heuristic", Games: 4, Seed: 7}
		res, err := Run(context.Background(), opts)
		if err != nil || res.Skipped || res.Output != jobarray.Name(base, opts.Shard) {
			t.Fatalf("task %d: %+v, %v", i, res, err)
		}
		if again, err := Run(context.Background(), opts); err != nil || !again.Skipped {
			t.Errorf("task %d run again: %+v, %v", i, again, err)
		}
	}
	merged := filepath.Join(dir, "merged")
	if _, err := dataset.MergeShards(context.Background(), dataset.MergeOptions{Base: base, Output: merged}); err != nil {
		t.Fatal(err)
	}
	set := func(recs []dataset.Record) map[moveKey]dataset.Label {
		m := map[moveKey]dataset.Label{}
		for _, r := range recs {
			m[moveKey{r.FEN, r.Move}] = *r.Label
		}
		return m
	}
	if got, want := set(readAll(t, merged)), set(readAll(t, filepath.Join(dir, "whole"))); !reflect.DeepEqual(got, want) {
		t.Errorf("merged tasks hold %d positions, the unsharded run %d, or others", len(got), len(want))
	}
}
