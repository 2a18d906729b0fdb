package encode

import (
	"testing"

	"github.com/dchess/dchess/internal/chess/board"
)

func mustBoard(t *testing.T, fen string) *board.Board {
	t.Helper()
	b, err := board.FromFEN(fen)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestCodesStartPosition(t *testing.T) {
	dst := make([]float32, CodesSize)
	Codes(board.New(), dst)
	wantRank1 := []float32{2, 3, 4, 5, 7, 4, 3, 2}
	for f := 0; f < 8; f++ {
		if dst[f] != wantRank1[f] || dst[56+f] != -wantRank1[f] {
			t.Fatalf("back ranks %v / %v", dst[:8], dst[56:])
		}
		if dst[8+f] != 1 || dst[48+f] != -1 {
			t.Fatalf("pawn ranks %v / %v", dst[8:16], dst[48:56])
		}
	}
	for sq := 16; sq < 48; sq++ {
		if dst[sq] != 0 {
			t.Fatalf("square %d = %v", sq, dst[sq])
		}
	}
}

func TestCodesSideToMoveView(t *testing.T) {
	// Black to move: a black queen on d8 becomes an own queen on d1.
	dst := make([]float32, CodesSize)
	Codes(mustBoard(t, "3qk3/8/8/8/8/8/8/4K3 b - - 0 1"), dst)
	if dst[3] != 5 || dst[4] != 7 || dst[60] != -7 {
		t.Fatalf("codes %v", dst)
	}
}

func TestBitsKnownPosition(t *testing.T) {
	dst := make([]float32, BitsSize)
	Bits(mustBoard(t, "4k3/8/8/8/8/8/8/R3K3 b Q - 0 1"), dst)
	ones := map[int]bool{
		(0*6+3)*64 + 0:  true, // white rook a1
		(0*6+5)*64 + 4:  true, // white king e1
		(1*6+5)*64 + 60: true, // black king e8
		770:             true, // Q
	}
	for i, v := range dst {
		if (v == 1) != ones[i] || (v != 0 && v != 1) {
			t.Errorf("bit %d = %v", i, v)
		}
	}
	Bits(board.New(), dst)
	if dst[768] != 1 || dst[769] != 1 || dst[772] != 1 {
		t.Errorf("side/castling bits %v", dst[768:])
	}
}

func TestPlanesKnownPosition(t *testing.T) {
	dst := make([]float32, PlanesSize)
	// White to move after 1.e4 d5 2.e5 f5: e.p. on f6, White keeps KQ.
	b := mustBoard(t, "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQ f6 0 3")
	Planes(b, dst)
	if dst[0*64+36] != 1 || dst[0*64+12] != 0 { // own pawn e5, not e2
		t.Error("own pawn plane")
	}
	if dst[11*64+60] != 1 { // their king e8
		t.Error("their king plane")
	}
	for i := 0; i < 64; i++ {
		if dst[12*64+i] != 1 || dst[13*64+i] != 1 || dst[14*64+i] != 1 || dst[15*64+i] != 0 || dst[16*64+i] != 0 {
			t.Fatal("side or castling planes")
		}
	}
	if dst[17*64+45] != 1 {
		t.Error("e.p. plane")
	}
	// The mirrored position with Black to move encodes identically.
	mirrored := mustBoard(t, "rnbqkbnr/pppp1ppp/8/8/3PpP2/8/PPP1P1PP/RNBQKBNR b kq f3 0 3")
	other := make([]float32, PlanesSize)
	Planes(mirrored, other)
	for i := range dst {
		if i/64 == 12 {
			continue // the side-to-move plane is the one difference
		}
		if dst[i] != other[i] {
			t.Fatalf("mirror differs at plane %d square %d", i/64, i%64)
		}
	}
}

func BenchmarkPlanes(b *testing.B) {
	bd := board.New()
	dst := make([]float32, PlanesSize)
	for i := 0; i < b.N; i++ {
		Planes(bd, dst)
	}
}

func TestMaterialSideToMoveView(t *testing.T) {
	// White has an extra knight and rook, Black two extra pawns; with Black
	// to move the differences are Black's.
	b := mustBoard(t, "4k3/pppp4/8/8/8/8/PP6/RN2K2R b - - 0 1")
	dst := make([]float32, MaterialSize)
	Material(b, dst)
	want := []float32{2, -1, 0, -2, 0}
	for i := range want {
		if dst[i] != want[i] {
			t.Fatalf("material %v, want %v", dst, want)
		}
	}
}
