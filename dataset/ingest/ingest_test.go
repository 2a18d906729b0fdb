package ingest

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/notnil/chess"

	"github.com/dchess/dchess/dataset"
	"github.com/dchess/dchess/internal/chess/board"
	"github.com/dchess/dchess/internal/chess/pgn"
	"github.com/dchess/dchess/internal/testenv"
)

// memSink keeps every record written.
type memSink struct{ recs []dataset.Record }

func (m *memSink) Write(r *dataset.Record) error {
	m.recs = append(m.recs, *r)
	return nil
}

// ingestText runs an ingest over text given as stdin.
func ingestText(t *testing.T, text string, opts Options) ([]dataset.Record, *Summary) {
	t.Helper()
	sink := &memSink{}
	sum, err := Run(context.Background(), []string{Stdin}, strings.NewReader(text), opts, sink)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return sink.recs, sum
}

// ingestNothing runs an ingest that must give no record, and returns its
// summary and the reason it gave.
func ingestNothing(t *testing.T, text string, opts Options) (*Summary, string) {
	t.Helper()
	sink := &memSink{}
	sum, err := Run(context.Background(), []string{Stdin}, strings.NewReader(text), opts, sink)
	var none *NoRecordsError
	if !errors.As(err, &none) || len(sink.recs) != 0 {
		t.Fatalf("Run gave %d records and error %v; want none and a NoRecordsError", len(sink.recs), err)
	}
	return sum, none.Reason
}

const twoGames = `[Event "One"]
[White "A"]
[Black "B"]
[WhiteElo "2500"]
[BlackElo "2400"]
[Result "1-0"]

1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Bxc6 dxc6 1-0

[Event "Two"]
[White "C"]
[Black "D"]
[WhiteElo "2100"]
[Result "0-1"]

1. d4 d5 2. c4 dxc4 0-1
`

func TestRecordsOfAGame(t *testing.T) {
	recs, sum := ingestText(t, twoGames, DefaultOptions())
	if sum.GamesRead != 2 || sum.GamesKept != 2 || sum.Positions != 12 || len(recs) != 12 {
		t.Fatalf("summary %+v, %d records", sum, len(recs))
	}
	first := recs[0]
	if first.FEN != board.StartFEN || first.Move != "e2e4" || first.Ply != 0 {
		t.Errorf("first record %+v", first)
	}
	if !reflect.DeepEqual(first.Next, []string{"e7e5", "g1f3", "b8c6", "f1b5"}) {
		t.Errorf("Next = %q", first.Next)
	}
	if first.Result != pgn.WhiteWin || first.WhiteElo != 2500 || first.BlackElo != 2400 {
		t.Errorf("result/elo %+v", first)
	}
	// The last position of game one has no following moves.
	last := recs[7]
	if last.Move != "d7c6" || len(last.Next) != 0 || last.Ply != 7 {
		t.Errorf("last record of game one %+v", last)
	}
	if recs[6].Move != "b5c6" || !reflect.DeepEqual(recs[6].Next, []string{"d7c6"}) {
		t.Errorf("record 6 %+v", recs[6])
	}
	for i, r := range recs {
		if r.Key != dataset.PositionKey(r.FEN) {
			t.Errorf("record %d: key %x, want PositionKey %x", i, r.Key, dataset.PositionKey(r.FEN))
		}
		wantGame := recs[0].GameID
		if i >= 8 {
			wantGame = recs[8].GameID
		}
		if r.GameID != wantGame {
			t.Errorf("record %d: GameID differs within its game", i)
		}
	}
	if recs[0].GameID == recs[8].GameID {
		t.Error("two games share a GameID")
	}
	// Game two has no BlackElo tag: 0.
	if g2 := recs[8]; g2.WhiteElo != 2100 || g2.BlackElo != 0 || g2.Result != pgn.BlackWin {
		t.Errorf("game two %+v", g2)
	}
	// After 1. e4 no black pawn can take en passant, so the FEN has "-".
	if recs[1].FEN != "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1" {
		t.Errorf("FEN after e4: %s", recs[1].FEN)
	}
}

func TestHorizon(t *testing.T) {
	opts := DefaultOptions()
	opts.Horizon = 1
	recs, _ := ingestText(t, twoGames, opts)
	if !reflect.DeepEqual(recs[0].Next, []string{"e7e5"}) {
		t.Errorf("Next with horizon 1 = %q", recs[0].Next)
	}
	opts.Horizon = 0
	recs, _ = ingestText(t, twoGames, opts)
	if len(recs[0].Next) != 0 {
		t.Errorf("Next with horizon 0 = %q", recs[0].Next)
	}
}

func TestFENStartGame(t *testing.T) {
	text := `[Event "Ending"]
[SetUp "1"]
[FEN "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 40"]
[Result "1-0"]

40. exd6 Kd7 41. Kd2 Kxd6 *
`
	recs, sum := ingestText(t, text, DefaultOptions())
	if len(recs) != 4 || sum.GamesKept != 1 {
		t.Fatalf("%d records, summary %+v", len(recs), sum)
	}
	if recs[0].FEN != "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 40" || recs[0].Move != "e5d6" || recs[0].Ply != 78 {
		t.Errorf("first record %+v", recs[0])
	}
	if recs[1].Ply != 79 || recs[1].FEN != "4k3/8/3P4/8/8/8/8/4K3 b - - 0 40" {
		t.Errorf("second record %+v", recs[1])
	}
	// The termination marker is "*", so the Result tag decides.
	if recs[0].Result != pgn.WhiteWin {
		t.Errorf("result %v", recs[0].Result)
	}
	opts := DefaultOptions()
	opts.MaxPly = 78
	recs, _ = ingestText(t, text, opts)
	if len(recs) != 1 {
		t.Errorf("MaxPly 78 kept %d records of a game starting at ply 78", len(recs))
	}
}

func TestPlyFilters(t *testing.T) {
	opts := DefaultOptions()
	opts.MinPly, opts.MaxPly = 2, 4
	recs, sum := ingestText(t, twoGames, opts)
	var plies []uint16
	for _, r := range recs {
		plies = append(plies, r.Ply)
	}
	if !reflect.DeepEqual(plies, []uint16{2, 3, 4, 2, 3}) {
		t.Errorf("plies kept %v", plies)
	}
	if sum.GamesKept != 2 || sum.Positions != int64(len(recs)) {
		t.Errorf("MinPly 2, MaxPly 4 summary %+v", sum)
	}
	opts.MinPly, opts.MaxPly = 8, 0
	sum, why := ingestNothing(t, twoGames, opts)
	if sum.GamesKept != 0 || sum.SkippedFiltered != 2 || sum.Positions != 0 {
		t.Errorf("MinPly 8 summary %+v", sum)
	}
	if why != "none of its 2 games gave one: 2 filtered out by --min-ply 8" {
		t.Errorf("reason %q", why)
	}
}

func TestSkipCaptures(t *testing.T) {
	opts := DefaultOptions()
	opts.SkipCaptures = true
	recs, _ := ingestText(t, twoGames, opts)
	if len(recs) != 9 {
		t.Errorf("kept %d positions, want 12 minus 3 captures", len(recs))
	}
	for _, r := range recs {
		b, err := board.FromFEN(r.FEN)
		if err != nil {
			t.Fatal(err)
		}
		m, err := b.ParseUCI(r.Move)
		if err != nil {
			t.Fatal(err)
		}
		if b.IsCapture(m) {
			t.Errorf("capture %s kept from %s", r.Move, r.FEN)
		}
	}
}

func TestMinElo(t *testing.T) {
	opts := DefaultOptions()
	opts.MinElo = 2300
	recs, sum := ingestText(t, twoGames, opts)
	if sum.GamesKept != 1 || sum.SkippedFiltered != 1 || len(recs) != 8 || recs[0].WhiteElo != 2500 {
		t.Errorf("summary %+v", sum)
	}
}

func TestMaxGames(t *testing.T) {
	opts := DefaultOptions()
	opts.MaxGames = 1
	recs, sum := ingestText(t, twoGames+twoGames, opts)
	if sum.GamesKept != 1 || len(recs) != 8 || !sum.StoppedAtMaxGames {
		t.Errorf("summary %+v, %d records", sum, len(recs))
	}
}

func TestPositionsPerGameIsSeededAndReproducible(t *testing.T) {
	text := kasparovHead(t, 20)
	sample := func(seed uint64, workers int) []dataset.Record {
		opts := DefaultOptions()
		opts.PositionsPerGame, opts.Seed, opts.Workers = 3, seed, workers
		recs, sum := ingestText(t, text, opts)
		if sum.GamesKept != 20 {
			t.Fatalf("kept %d games", sum.GamesKept)
		}
		return recs
	}
	a, b := sample(7, 1), sample(7, 2)
	if len(a) != 60 || !reflect.DeepEqual(a, b) {
		t.Fatalf("same seed gave different samples (%d and %d records)", len(a), len(b))
	}
	perGame := map[uint64][]uint16{}
	for _, r := range a {
		perGame[r.GameID] = append(perGame[r.GameID], r.Ply)
	}
	for id, plies := range perGame {
		if len(plies) != 3 || !(plies[0] < plies[1] && plies[1] < plies[2]) {
			t.Errorf("game %x: plies %v, want three in game order", id, plies)
		}
	}
	if c := sample(8, 2); reflect.DeepEqual(a, c) {
		t.Error("seeds 7 and 8 gave the same sample")
	}
}

func TestIllegalSANSkipsGame(t *testing.T) {
	bad := "[Event \"Bad\"]\n\n1. e4 e5 2. Nf9 Nc6 1-0\n\n"
	recs, sum := ingestText(t, bad+twoGames, DefaultOptions())
	if sum.GamesRead != 3 || sum.GamesKept != 2 || sum.SkippedIllegal != 1 || sum.GamesSkipped != 1 || len(recs) != 12 {
		t.Errorf("summary %+v", sum)
	}
	want := `game 1 (line 3): illegal SAN "Nf9"`
	if sum.Errors != 1 || len(sum.FirstErrors) != 1 || sum.FirstErrors[0] != want {
		t.Errorf("errors %q, want %q", sum.FirstErrors, want)
	}
}

func TestMalformedGamesAreCountedAndReported(t *testing.T) {
	text := "[Event \"A\"]\n[White oops]\n\n1. e4 1-0\n\n" + // bad tag line (line 2)
		"[Event \"B\"]\n\n1. e4 {open\n\n" + // unterminated comment (line 8)
		"[Event \"C\"]\n\n1. e4 (1. d4 1-0\n\n" + // unterminated variation (line 12)
		"[Event \"D\"]\n[FEN \"not a fen\"]\n\n1. e4 1-0\n\n" + // bad FEN tag (game starts line 14)
		"[Event \"E\"]\n\n1. d4 d5 1-0\n\ntrailing junk\n\n" + // good game, then garbage (line 23)
		"[Event \"F\"]\n\n1. c4" // truncated (line 27)
	_, sum := ingestText(t, text, DefaultOptions())
	if sum.GamesRead != 6 || sum.GamesKept != 1 || sum.SkippedMalformed != 5 {
		t.Errorf("summary %+v", sum)
	}
	want := []string{
		`game 1 (line 2): bad tag line "[White oops]"`,
		`game 2 (line 8): unterminated comment`,
		`game 3 (line 12): unterminated variation`,
		`game 4 (line 14): bad FEN tag`,
		`game 5 (line 23): text after the game result: "trailing"`,
		`game 6 (line 27): no game result (truncated game?)`,
	}
	if len(sum.FirstErrors) != len(want) {
		t.Fatalf("errors %q", sum.FirstErrors)
	}
	for i, w := range want {
		if !strings.HasPrefix(sum.FirstErrors[i], w) {
			t.Errorf("error %d = %q, want prefix %q", i, sum.FirstErrors[i], w)
		}
	}
	opts := DefaultOptions()
	opts.Strict = true
	_, err := Run(context.Background(), []string{Stdin}, strings.NewReader(text), opts, &memSink{})
	if err == nil || !strings.Contains(err.Error(), "bad tag line") {
		t.Errorf("strict run: %v", err)
	}
}

// The reported bug: a Crazyhouse game was ingested as standard chess. Games
// of other variants are skipped, counted apart and reported with their line.
func TestOtherVariantsAreSkippedAndCounted(t *testing.T) {
	text := "[Event \"Z\"]\n[Variant \"Crazyhouse\"]\n\n1. e4 e5 2. Nf3 Nc6 1-0\n\n" +
		"[Event \"960\"]\n[Variant \"Chess960\"]\n[SetUp \"1\"]\n[FEN \"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\"]\n\n1. d4 d5 0-1\n\n" +
		"[Event \"Setup\"]\n[Variant \"From Position\"]\n[FEN \"4k3/8/8/8/8/8/4P3/4K3 w - - 0 40\"]\n\n40. e4 Kd7 *\n\n" +
		"[Event \"Plain\"]\n[Variant \"Standard\"]\n\n1. c4 e5 1/2-1/2\n"
	recs, sum := ingestText(t, text, DefaultOptions())
	if sum.GamesRead != 4 || sum.GamesKept != 2 || sum.GamesSkipped != 2 || sum.SkippedVariant != 2 || sum.SkippedMalformed != 0 || len(recs) != 4 {
		t.Errorf("%d records, summary %+v", len(recs), sum)
	}
	want := []string{
		`game 1 (line 2): variant "Crazyhouse" is not standard chess`,
		`game 2 (line 7): variant "Chess960" is not standard chess: Chess960 castling differs`,
	}
	if !reflect.DeepEqual(sum.FirstErrors, want) {
		t.Errorf("errors %q, want %q", sum.FirstErrors, want)
	}
}

func TestOnlyFirstTenErrorsKept(t *testing.T) {
	text := strings.Repeat("[Event \"x\"]\n\n1. e4 Ke9 1-0\n\n", 15)
	sum, _ := ingestNothing(t, text, DefaultOptions())
	if sum.Errors != 15 || len(sum.FirstErrors) != MaxReportedErrors {
		t.Errorf("errors %d, kept %d", sum.Errors, len(sum.FirstErrors))
	}
}

func TestCompressedInputsAndFiles(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "a.pgn")
	os.WriteFile(plain, []byte(twoGames), 0o644)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(twoGames))
	zw.Close()
	os.WriteFile(filepath.Join(dir, "b.pgn.gz"), gz.Bytes(), 0o644)
	enc, _ := zstd.NewWriter(nil)
	os.WriteFile(filepath.Join(dir, "c.pgn.zst"), enc.EncodeAll([]byte(twoGames), nil), 0o644)

	want, _ := ingestText(t, twoGames, DefaultOptions())
	for _, name := range []string{"a.pgn", "b.pgn.gz", "c.pgn.zst"} {
		sink := &memSink{}
		sum, err := Run(context.Background(), []string{filepath.Join(dir, name)}, nil, DefaultOptions(), sink)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !reflect.DeepEqual(sink.recs, want) || sum.Bytes == 0 {
			t.Errorf("%s: %d records, %d bytes", name, len(sink.recs), sum.Bytes)
		}
	}
	// gzip through stdin is recognised by its magic bytes.
	sink := &memSink{}
	if _, err := Run(context.Background(), []string{Stdin}, bytes.NewReader(gz.Bytes()), DefaultOptions(), sink); err != nil || len(sink.recs) != 12 {
		t.Errorf("gzip on stdin: %v, %d records", err, len(sink.recs))
	}
	// A glob expands in order; several inputs name the file in errors.
	names, err := ExpandInputs([]string{filepath.Join(dir, "*.pgn*")})
	if err != nil || len(names) != 3 {
		t.Fatalf("glob: %v %v", names, err)
	}
	os.WriteFile(filepath.Join(dir, "d.pgn"), []byte("[Event \"x\"]\n\n1. e4 Ke9 1-0\n"), 0o644)
	sink = &memSink{}
	sum, err := Run(context.Background(), append(names, filepath.Join(dir, "d.pgn")), nil, DefaultOptions(), sink)
	if err != nil || sum.GamesRead != 7 || len(sink.recs) != 36 {
		t.Fatalf("four files: %v %+v", err, sum)
	}
	// The file that gave nothing is said to, and the others are stored.
	if len(sum.FirstErrors) != 2 || !strings.HasPrefix(sum.FirstErrors[0], filepath.Join(dir, "d.pgn")+": game 1 (line 3)") ||
		!strings.HasPrefix(sum.FirstErrors[1], filepath.Join(dir, "d.pgn")+" gave no position: none of its 1 games gave one: 1 with an illegal move") {
		t.Errorf("errors %q", sum.FirstErrors)
	}
	if _, err := ExpandInputs([]string{filepath.Join(dir, "*.none")}); err == nil {
		t.Error("a glob matching nothing is not an error")
	}
	srcs, err := HashSources([]string{plain, Stdin})
	if err != nil || srcs[0].Bytes != int64(len(twoGames)) || len(srcs[0].SHA256) != 64 || srcs[1].Path != Stdin {
		t.Errorf("sources %+v %v", srcs, err)
	}
}

// Duplicate positions across games (the shared opening moves) are dropped
// by the dataset writer; the first occurrence is kept.
func TestDedupeAcrossGames(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ds")
	w, err := dataset.Create(dir, dataset.WriteOptions{Dedupe: true})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := Run(context.Background(), []string{Stdin}, strings.NewReader(twoGames+twoGames), DefaultOptions(), w)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	st := w.Stats()
	// 24 written; the repeat of both games (12) and game two's start
	// position, already seen in game one (1), are dropped.
	if sum.Positions != 24 || st.Records != 11 || st.Duplicates != 13 {
		t.Errorf("written %d, stored %d, duplicates %d", sum.Positions, st.Records, st.Duplicates)
	}
}

// The reported bug: dataset info showed far fewer dropped duplicates than
// ingest reported, because the manifest left out the repeats that the
// early dedupe (Options.Dedupe) dropped before they reached the writer.
func TestManifestCountsTheRepeatsDroppedBeforeTheWriter(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ds")
	w, err := dataset.Create(dir, dataset.WriteOptions{Dedupe: true})
	if err != nil {
		t.Fatal(err)
	}
	opts := DefaultOptions()
	opts.Dedupe = true
	sum, err := Run(context.Background(), []string{Stdin}, strings.NewReader(twoGames+twoGames), opts, w)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	reported := sum.Duplicates + w.Stats().Duplicates
	d, err := dataset.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	// As in TestDedupeAcrossGames: 24 written, 11 stored, 13 repeats.
	if c := d.Manifest().Counts; reported != 13 || c.Duplicates != reported || c.Records != 11 {
		t.Errorf("the run reported %d repeats (%d dropped early), the manifest counts %d of %d records",
			reported, sum.Duplicates, c.Duplicates, c.Records)
	}
}

// kasparovHead returns the first n games of the shared Kasparov file.
func kasparovHead(t testing.TB, n int) string {
	t.Helper()
	data, err := os.ReadFile(testenv.SharedData(t, "pgn/Kasparov.pgn"))
	if err != nil {
		t.Fatal(err)
	}
	i, seen := 0, 0
	for {
		j := bytes.Index(data[i+1:], []byte("[Event "))
		if j < 0 {
			return string(data)
		}
		i += j + 1
		seen++
		if seen == n {
			return string(data[:i])
		}
	}
}

// The fast path (dragontoothmg board, own FEN writer) must agree with
// notnil/chess, the reference for PGN, on FENs and UCI moves.
func TestAgreesWithNotnilChess(t *testing.T) {
	text := kasparovHead(t, 200)
	recs, sum := ingestText(t, text, DefaultOptions())
	if sum.GamesKept != 200 || sum.Errors != 0 {
		t.Fatalf("summary %+v", sum)
	}
	scanner := chess.NewScanner(strings.NewReader(text))
	var want []dataset.Record
	for scanner.Scan() {
		g := scanner.Next()
		positions := g.Positions()
		for i, m := range g.Moves() {
			want = append(want, dataset.Record{FEN: positions[i].String(), Move: chess.UCINotation{}.Encode(positions[i], m)})
		}
	}
	if err := scanner.Err(); err != nil && err != io.EOF {
		t.Fatal(err)
	}
	if len(want) != len(recs) {
		t.Fatalf("notnil/chess found %d positions, ingest %d", len(want), len(recs))
	}
	for i := range recs {
		// notnil/chess writes the en-passant square after every double
		// push; dchess only when a capture there is possible. Compare
		// through the board, which normalises that field.
		nb, err := board.FromFEN(want[i].FEN)
		if err != nil {
			t.Fatal(err)
		}
		if recs[i].FEN != nb.FEN() || recs[i].Move != want[i].Move {
			t.Fatalf("position %d: ingest %s %s, notnil/chess %s %s", i, recs[i].FEN, recs[i].Move, want[i].FEN, want[i].Move)
		}
	}
}

// The FEN ingest writes from bitboards must be the board's own FEN at
// every position of every Kasparov game.
func TestFENMatchesBoard(t *testing.T) {
	f, err := os.Open(testenv.SharedData(t, "pgn/Kasparov.pgn"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := pgn.NewReader(f)
	opts := DefaultOptions()
	c := newGameConverter(&opts)
	checked := 0
	for {
		g, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		c.startState(c.start, false)
		b := board.New()
		for _, san := range g.Moves {
			m, err := b.ParseSAN(san)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := string(c.appendFEN(nil, b)), b.FEN(); got != want {
				t.Fatalf("game %d: FEN %s, board says %s", g.Number, got, want)
			}
			c.makeMove(b, m)
			checked++
		}
	}
	if checked < 100000 {
		t.Errorf("only %d positions checked", checked)
	}
}

func TestDeterministicAcrossWorkers(t *testing.T) {
	text := kasparovHead(t, 300)
	var runs [][]dataset.Record
	for _, w := range []int{1, 3} {
		opts := DefaultOptions()
		opts.Workers = w
		recs, _ := ingestText(t, text, opts)
		runs = append(runs, recs)
	}
	if !reflect.DeepEqual(runs[0], runs[1]) {
		t.Error("1 and 3 workers wrote different records")
	}
}

// Options.Dedupe only drops records the dataset writer would drop, so the
// stored dataset is the same with and without it.
func TestEarlyDedupeKeepsTheDatasetTheSame(t *testing.T) {
	text := kasparovHead(t, 100)
	text += text // every game twice
	var stored [][]*dataset.Record
	var dropped []int64
	for _, early := range []bool{false, true} {
		dir := filepath.Join(t.TempDir(), "ds")
		w, err := dataset.Create(dir, dataset.WriteOptions{Dedupe: true})
		if err != nil {
			t.Fatal(err)
		}
		opts := DefaultOptions()
		opts.Dedupe = early
		sum, err := Run(context.Background(), []string{Stdin}, strings.NewReader(text), opts, w)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		dropped = append(dropped, sum.Duplicates+w.Stats().Duplicates)
		d, err := dataset.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		var recs []*dataset.Record
		d.Scan(context.Background(), dataset.AllSplits, func(r *dataset.Record) error {
			c := *r
			recs = append(recs, &c)
			return nil
		})
		stored = append(stored, recs)
	}
	if len(stored[0]) == 0 || !reflect.DeepEqual(stored[0], stored[1]) {
		t.Errorf("datasets differ: %d and %d records", len(stored[0]), len(stored[1]))
	}
	if dropped[0] != dropped[1] {
		t.Errorf("duplicates counted %d without early dedupe, %d with", dropped[0], dropped[1])
	}
}

// A game replayed on another day, by another clock, keeps its id (so a run
// repeated from the same seed splits the same way); any other tag or move
// makes it another game.
func TestGameIDLeavesOutWhenTheGameWasPlayed(t *testing.T) {
	parse := func(text string) *pgn.Game {
		t.Helper()
		g, err := pgn.Parse([]byte(text), 1, 1)
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	const moves = "\n1. e4 e5 2. Nf3 1-0\n"
	base := GameID(parse(`[Event "self-play"]
[Date "2026.12.05"]
[GameStartTime "2026-12-05T10:00:00.000 UTC"]
[GameDuration "00:00:12"]
[Result "1-0"]
` + moves))
	same := parse(`[Event "self-play"]
[Date "2026.12.06"]
[Time "08:15:00"]
[UTCDate "2026.12.06"]
[UTCTime "08:15:00"]
[GameStartTime "2026-12-06T08:15:00.000 UTC"]
[GameEndTime "2026-12-06T08:15:09.000 UTC"]
[GameDuration "00:00:09"]
[Result "1-0"]
` + moves)
	if got := GameID(same); got != base {
		t.Errorf("the game played on another day has id %x, want %x", got, base)
	}
	for _, other := range []string{
		"[Event \"another\"]\n[Result \"1-0\"]\n" + moves,
		"[Event \"self-play\"]\n[Round \"2\"]\n[Result \"1-0\"]\n" + moves,
		"[Event \"self-play\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Nc3 1-0\n",
	} {
		if GameID(parse(other)) == base {
			t.Errorf("another game shares the id %x:\n%s", base, other)
		}
	}
}
