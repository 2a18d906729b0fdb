package binpack

import (
	"bytes"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dchess/dchess/internal/chess/board"
)

var update = flag.Bool("update", false, "rewrite testdata/sample.plain and sample.binpack from the sample entries")

// game plays moves from fen and returns one entry per move: the position
// before it, with the given scores and a result from the first mover's
// view, flipped each ply, as a generator would store it.
func game(t *testing.T, fen string, result int8, moves string, scores ...int16) []Entry {
	t.Helper()
	b, err := board.FromFEN(fen)
	if err != nil {
		t.Fatal(err)
	}
	var out []Entry
	for i, mv := range strings.Fields(moves) {
		m, err := b.ParseUCI(mv)
		if err != nil {
			t.Fatalf("move %d %s: %v", i, mv, err)
		}
		out = append(out, Entry{FEN: FEN(b), Move: mv, Score: scores[i%len(scores)], Ply: uint16(PlyOf(b)), Result: result})
		result = -result
		b.Make(m)
	}
	return out
}

// sample covers every kind of move the chain code has: pawn pushes and
// double pushes, en passant, both castlings, captures, promotions to
// each piece, a king move after castling rights are gone, a pinned pawn
// beside a double-pushed one (no en passant for Stockfish, a FEN field for
// dchess), scores that take several code blocks, mate scores, and chains
// broken by a result that does not flip and by a move that is not the
// next entry's.
func sample(t *testing.T) []Entry {
	var es []Entry
	es = append(es, game(t, board.StartFEN, 1,
		"e2e4 d7d5 e4e5 f7f5 e5f6 g8f6 g1f3 b8c6 f1c4 c8g4 e1g1 d8d7 d2d4 e8c8 c4d5 f6d5 d1d3 g4f3 d3f3 d5b4 f3f7 b4c2 f7e7 f8e7 a2a3 c2a1",
		20, -35, 310, -1200, 0, 5, -5, 32000, -32000, 999)...)
	es = append(es, game(t, "8/P5k1/8/8/8/8/2p5/5K2 w - - 0 60", -1, "a7a8r c2c1q f1f2", 150, -7000, 31999)...)
	es = append(es, game(t, "8/P5k1/8/8/8/8/2p5/5K2 w - - 3 60", 0, "a7a8n c2c1b f1e2", 1, 2, 3)...)
	es = append(es, game(t, "8/P5k1/8/8/8/8/2p5/5K2 w - - 0 60", 0, "a7a8b c2c1n", -1, -2)...)
	es = append(es, game(t, "7k/2p5/8/KP5r/8/8/8/8 b - - 0 40", 1, "c7c5 a5a4 h5h4", -80, 70, -60)...)
	es = append(es, game(t, "r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 20", 0, "e8g8 e1c1 g8g7 c1b1", 0, 0, 0, 0)...)
	// Chains that start where en passant is possible, for either side.
	es = append(es, game(t, "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3", 1, "e5f6 g8f6", 44, -40)...)
	es = append(es, game(t, "rnbqkbnr/pppp1ppp/8/8/3Pp3/5N2/PPP1PPPP/RNBQKB1R b KQkq d3 0 2", -1, "e4d3 e2d3", -3, 8)...)
	es = append(es, game(t, "rnbqkbnr/pppp1ppp/8/8/3Pp3/5N2/PPP1PPPP/RNBQKB1R b KQkq d3 0 2", -1, "b8c6", 9)...)
	// The same position twice in a row: not a continuation.
	es = append(es, es[len(es)-1])
	// A result that does not flip breaks the chain too.
	more := game(t, board.StartFEN, 0, "g1f3 g8f6 b1c3", 10, -10, 15)
	more[2].Result = 1
	es = append(es, more...)
	// A move that is not the one played next: the next entry starts a chain.
	b := game(t, board.StartFEN, 0, "d2d4 d7d5", 12, -12)
	b[0].Move = "e2e4"
	es = append(es, b...)
	return es
}

func plain(es []Entry) string {
	var sb strings.Builder
	for _, e := range es {
		sb.WriteString(e.String())
	}
	return sb.String()
}

func write(t *testing.T, es []Entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := NewWriter(&buf)
	for i, e := range es {
		if err := w.Write(e); err != nil {
			t.Fatalf("entry %d: %v", i, err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func readAll(t *testing.T, data []byte) []Entry {
	t.Helper()
	r := NewReader(bytes.NewReader(data))
	var out []Entry
	for {
		e, err := r.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatalf("after %d entries: %v", len(out), err)
		}
		out = append(out, e)
	}
}

// TestGolden compares the writer's bytes with testdata/sample.binpack,
// which Stockfish's own converter (tools branch, `convert sample.plain
// sample.binpack`) wrote from testdata/sample.plain; docs/dataset-format.md
// names the commit. The same converter turned sample.binpack back into
// sample.plain unchanged.
func TestGolden(t *testing.T) {
	es := sample(t)
	got := write(t, es)
	if *update {
		os.WriteFile(filepath.Join("testdata", "sample.plain"), []byte(plain(es)), 0o644)
		os.WriteFile(filepath.Join("testdata", "sample.dchess.binpack"), got, 0o644)
		t.Skip("wrote testdata/sample.plain and sample.dchess.binpack: check them with Stockfish's converter")
	}
	wantPlain, err := os.ReadFile(filepath.Join("testdata", "sample.plain"))
	if err != nil {
		t.Fatal(err)
	}
	if p := plain(es); p != string(wantPlain) {
		t.Fatalf("sample entries differ from testdata/sample.plain:\n%s", p)
	}
	want, err := os.ReadFile(filepath.Join("testdata", "sample.binpack"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("binpack differs from Stockfish's (%d bytes, want %d):\n got % x\nwant % x", len(got), len(want), got, want)
	}
	back := readAll(t, want)
	if p := plain(back); p != string(wantPlain) {
		t.Errorf("reading Stockfish's binpack gives\n%s\nwant\n%s", p, wantPlain)
	}
}

func TestRoundTrip(t *testing.T) {
	es := sample(t)
	back := readAll(t, write(t, es))
	if len(back) != len(es) {
		t.Fatalf("read %d entries, wrote %d", len(back), len(es))
	}
	for i := range es {
		if back[i] != es[i] {
			t.Errorf("entry %d: read %+v, wrote %+v", i, back[i], es[i])
		}
	}
}

// TestChains checks that a game takes one stem and a few bits a move.
func TestChains(t *testing.T) {
	es := game(t, board.StartFEN, 0, "e2e4 e7e5 g1f3 b8c6 f1b5 a7a6 b5a4 g8f6 e1g1 f8e7", 10, -12, 14, -9)
	data := write(t, es)
	// 8 header, 32 stem, 2 count, then 9 moves of at most 4+5+5 bits.
	if len(data) > 8+32+2+16 {
		t.Errorf("a 10-ply game took %d bytes", len(data))
	}
}

func TestSignedCode(t *testing.T) {
	for _, v := range []int16{0, 1, -1, 2, -2, 32767, -32768, 1234, -4321} {
		if got := unsignedToSigned(signedToUnsigned(v)); got != v {
			t.Errorf("%d -> %d -> %d", v, signedToUnsigned(v), got)
		}
	}
	if signedToUnsigned(-1) != 1 || signedToUnsigned(1) != 2 || signedToUnsigned(0) != 0 {
		t.Errorf("codes of -1, 1, 0: %d %d %d", signedToUnsigned(-1), signedToUnsigned(1), signedToUnsigned(0))
	}
}

func TestEnPassantPinned(t *testing.T) {
	b, err := board.FromFEN("7k/8/8/KPp4r/8/8/8/8 w - c6 0 41")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := b.EnPassant(); !ok {
		t.Fatal("dchess's board drops the square: the test no longer tells the two rules apart")
	}
	if _, ok := EnPassant(b); ok {
		t.Error("en passant allowed for a pawn pinned against its king")
	}
	if got := FEN(b); got != "7k/8/8/KPp4r/8/8/8/8 w - - 0 41" {
		t.Errorf("FEN %s", got)
	}
	b, _ = board.FromFEN("7k/8/8/1Pp4r/K7/8/8/8 w - c6 0 41")
	if _, ok := EnPassant(b); !ok {
		t.Error("en passant refused with no pin")
	}
}

func TestRefusals(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	for _, e := range []Entry{
		{FEN: board.StartFEN, Move: "e2e5"},
		{FEN: "not a fen", Move: "e2e4"},
		{FEN: board.StartFEN, Move: "e2e4", Ply: MaxPly + 1},
		{FEN: board.StartFEN, Move: "e2e4", Result: 2},
	} {
		if err := w.Write(e); err == nil {
			t.Errorf("wrote %+v", e)
		}
	}
	if err := w.Write(Entry{FEN: board.StartFEN, Move: "e2e4"}); err != nil {
		t.Errorf("a refusal broke the writer: %v", err)
	}
}

func TestCorrupt(t *testing.T) {
	good := write(t, sample(t))
	cases := map[string][]byte{
		"magic":     append([]byte("BINQ"), good[4:]...),
		"cut":       good[:len(good)-3],
		"header":    good[:5],
		"too large": append(append([]byte("BINP"), 0xff, 0xff, 0xff, 0x7f), good[8:]...),
	}
	for name, data := range cases {
		r := NewReader(bytes.NewReader(data))
		var err error
		for err == nil {
			_, err = r.Next()
		}
		if !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: %v, want a corrupt-file error", name, err)
		}
	}
	// Flipping bits in the move text gives errors, never a panic.
	for i := 8 + 34; i < len(good); i += 7 {
		bad := bytes.Clone(good)
		bad[i] ^= 0x5a
		r := NewReader(bytes.NewReader(bad))
		for n := 0; n < 1000; n++ {
			if _, err := r.Next(); err != nil {
				break
			}
		}
	}
}

// TestChunks writes more than a chunk of stems: the writer starts a new
// chunk past ChunkSize, at a chain's end, and the reader follows.
func TestChunks(t *testing.T) {
	e := game(t, board.StartFEN, 0, "e2e4", 3)[0]
	var buf bytes.Buffer
	w := NewWriter(&buf)
	n := ChunkSize/(stemSize+2) + 100
	for i := 0; i < n; i++ {
		if err := w.Write(e); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	if c := bytes.Count(data, []byte("BINP")); c != 2 {
		t.Errorf("%d chunks, want 2", c)
	}
	// The same entry again is no continuation: each is a stem.
	back := readAll(t, data)
	if len(back) != n || back[n-1] != e {
		t.Errorf("read %d entries, wrote %d", len(back), n)
	}
}
