package encode_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/dchess/dchess/dataset/encode"
	"github.com/dchess/dchess/internal/chess/board"
	"github.com/dchess/dchess/internal/testenv"
	"github.com/dchess/dchess/search"
)

func TestActionVocabularyIsUniqueAndRoundTrips(t *testing.T) {
	seen := map[string]bool{}
	for i := 0; i < encode.ActionVocab; i++ {
		uci := encode.ActionUCI(i)
		if seen[uci] {
			t.Fatalf("move %s appears twice", uci)
		}
		seen[uci] = true
		if j, ok := encode.ActionIndexUCI(uci); !ok || j != i {
			t.Fatalf("ActionIndexUCI(%s) = %d, %v; want %d", uci, j, ok, i)
		}
	}
	if len(seen) != 1968 {
		t.Fatalf("vocabulary has %d moves, want 1968", len(seen))
	}
	for _, uci := range []string{"e1g1", "e8c8", "a7a8n", "h2g1q", "g1f3", "a1h8"} {
		if !seen[uci] {
			t.Errorf("%s is missing", uci)
		}
	}
	for _, uci := range []string{"a1b3q", "e2e4q", "a1c4", "e4e4"} {
		if seen[uci] {
			t.Errorf("%s is not a chess move but is in the vocabulary", uci)
		}
	}
}

// checkLegalMovesIndexed walks the tree below b to depth and checks every
// legal move has an index that maps back to it.
func checkLegalMovesIndexed(t *testing.T, b *board.Board, depth int) int {
	n := 0
	for _, m := range b.LegalMoves() {
		i, ok := encode.ActionIndex(m)
		if !ok || encode.ActionUCI(i) != board.UCI(m) {
			t.Fatalf("%s in %s: index %d, %v", board.UCI(m), b.FEN(), i, ok)
		}
		n++
		if depth > 1 {
			b.Make(m)
			n += checkLegalMovesIndexed(t, b, depth-1)
			b.Unmake()
		}
	}
	return n
}

func TestEveryLegalMoveHasAnIndex(t *testing.T) {
	n := 0
	for _, fen := range search.BenchPositions {
		b, err := board.FromFEN(fen)
		if err != nil {
			t.Fatal(err)
		}
		n += checkLegalMovesIndexed(t, b, 2)
	}
	dir := testenv.SharedData(t, "perft")
	files, _ := filepath.Glob(filepath.Join(dir, "*.epd"))
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		cases, err := board.ParsePerftSuite(fh)
		fh.Close()
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cases {
			b, err := board.FromFEN(c.FEN)
			if err != nil {
				t.Fatal(err)
			}
			n += checkLegalMovesIndexed(t, b, 1)
		}
	}
	t.Logf("%d legal moves indexed", n)
}

func TestStateTokensStartAndEnPassant(t *testing.T) {
	tok := make([]int16, encode.StateLen)
	encode.StateTokens(board.New(), tok)
	// a1 white rook (4), e1 white king (6), e8 black king (12), e4 empty.
	if tok[0] != 4 || tok[4] != 6 || tok[60] != 12 || tok[28] != encode.TokenEmpty || tok[8] != 1 || tok[48] != 7 {
		t.Fatalf("start squares: %v", tok[:64])
	}
	want := []int16{encode.TokenWhiteToMove, encode.TokenRightKept, encode.TokenRightKept, encode.TokenRightKept, encode.TokenRightKept, encode.TokenNoEnPassant}
	if !slices.Equal(tok[64:], want) {
		t.Fatalf("start extras %v, want %v", tok[64:], want)
	}
	b, err := board.FromFEN("4k3/8/8/3pP3/8/8/8/4K2R w K d6 0 2")
	if err != nil {
		t.Fatal(err)
	}
	encode.StateTokens(b, tok)
	want = []int16{encode.TokenWhiteToMove, encode.TokenRightKept, encode.TokenRightLost, encode.TokenRightLost, encode.TokenRightLost, encode.TokenNoEnPassant + 1 + 3}
	if !slices.Equal(tok[64:], want) {
		t.Fatalf("extras %v, want %v (d-file en passant, K only)", tok[64:], want)
	}
	for _, v := range tok {
		if v < 0 || v >= encode.StateVocab {
			t.Fatalf("token %d outside the state vocabulary", v)
		}
	}
}

func TestSequenceFollowsTheLine(t *testing.T) {
	b := board.New()
	fen := b.FEN()
	const h = 3
	seq := make([]int16, encode.SequenceLen(h))
	n, err := encode.Sequence(b, []string{"e2e4", "c7c5", "g1f3", "d7d6"}, h, seq)
	if err != nil || n != 3 {
		t.Fatalf("Sequence: %d, %v", n, err)
	}
	if b.FEN() != fen {
		t.Fatalf("board changed to %s", b.FEN())
	}
	for k, uci := range []string{"e2e4", "c7c5", "g1f3"} {
		if got := encode.ActionUCI(int(seq[encode.ActionSlot(h, k)])); got != uci {
			t.Errorf("a_%d = %s, want %s", k, got, uci)
		}
	}
	// s_{i+1}: after 1.e4, e4 (28) holds a white pawn, e2 (12) is empty,
	// Black to move; s_{i+2} has c5 (34) black pawn, White to move.
	s1, s2 := seq[encode.StateLen:], seq[2*encode.StateLen:]
	if s1[28] != 1 || s1[12] != encode.TokenEmpty || s1[64] != encode.TokenBlackToMove {
		t.Errorf("s_1 wrong: %v", s1[:encode.StateLen])
	}
	if s2[34] != 7 || s2[64] != encode.TokenWhiteToMove {
		t.Errorf("s_2 wrong: %v", s2[:encode.StateLen])
	}

	// A line shorter than the horizon leaves the rest NoToken.
	n, err = encode.Sequence(b, []string{"e2e4"}, h, seq)
	if err != nil || n != 1 {
		t.Fatalf("short line: %d, %v", n, err)
	}
	if seq[encode.ActionSlot(h, 1)] != encode.NoToken || seq[2*encode.StateLen] != encode.NoToken || seq[encode.StateLen] == encode.NoToken {
		t.Errorf("short line padding wrong")
	}
	if _, err := encode.Sequence(b, []string{"e2e4", "e2e4"}, h, seq); err == nil {
		t.Errorf("an illegal second move was accepted")
	}
	if b.FEN() != fen {
		t.Fatalf("board changed to %s after an error", b.FEN())
	}
}

func TestActionPartRows(t *testing.T) {
	for uci, want := range map[string][3]int{
		"e2e4":  {12, 64 + 28, 128},
		"g1f3":  {6, 64 + 21, 128},
		"e1g1":  {4, 64 + 6, 128},
		"a7a8q": {48, 64 + 56, 129},
		"b7c8r": {49, 64 + 58, 130},
		"h2g1n": {15, 64 + 6, 132},
		"d2d1b": {11, 64 + 3, 131},
	} {
		i, ok := encode.ActionIndexUCI(uci)
		if !ok {
			t.Fatalf("%s not in the vocabulary", uci)
		}
		if got := encode.ActionPartRows(i); got != want {
			t.Errorf("%s: rows %v, want %v", uci, got, want)
		}
	}
	// No two moves share all three rows, so the parts tell every move apart.
	seen := map[[3]int]int{}
	for i := 0; i < encode.ActionVocab; i++ {
		rows := encode.ActionPartRows(i)
		if rows[0] >= 64 || rows[1] < 64 || rows[1] >= 128 || rows[2] < 128 || rows[2] >= encode.ActionParts {
			t.Fatalf("%s: rows %v out of their ranges", encode.ActionUCI(i), rows)
		}
		if j, dup := seen[rows]; dup {
			t.Fatalf("%s and %s share rows %v", encode.ActionUCI(j), encode.ActionUCI(i), rows)
		}
		seen[rows] = i
	}
}
