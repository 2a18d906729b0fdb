package heuristic

import "github.com/dchess/dchess/internal/chess/board"

// Piece-square tables from Tomasz Michniewski's "Simplified Evaluation
// Function" (chessprogramming.org), written as a board is printed: a8
// first, h1 last, from White's side. White's square sq reads entry
// sq^56; Black's reads entry sq, which mirrors the board.

var pawnTableMG = [64]int{
	0, 0, 0, 0, 0, 0, 0, 0,
	50, 50, 50, 50, 50, 50, 50, 50,
	10, 10, 20, 30, 30, 20, 10, 10,
	5, 5, 10, 25, 25, 10, 5, 5,
	0, 0, 0, 20, 20, 0, 0, 0,
	5, -5, -10, 0, 0, -10, -5, 5,
	5, 10, 10, -20, -20, 10, 10, 5,
	0, 0, 0, 0, 0, 0, 0, 0,
}

// In the endgame a pawn is worth more the closer it is to promotion,
// whatever its file; passed pawns earn more on top of this.
var pawnTableEG = [64]int{
	0, 0, 0, 0, 0, 0, 0, 0,
	60, 60, 60, 60, 60, 60, 60, 60,
	35, 35, 35, 35, 35, 35, 35, 35,
	20, 20, 20, 20, 20, 20, 20, 20,
	10, 10, 10, 10, 10, 10, 10, 10,
	5, 5, 5, 5, 5, 5, 5, 5,
	0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0,
}

var knightTable = [64]int{
	-50, -40, -30, -30, -30, -30, -40, -50,
	-40, -20, 0, 0, 0, 0, -20, -40,
	-30, 0, 10, 15, 15, 10, 0, -30,
	-30, 5, 15, 20, 20, 15, 5, -30,
	-30, 0, 15, 20, 20, 15, 0, -30,
	-30, 5, 10, 15, 15, 10, 5, -30,
	-40, -20, 0, 5, 5, 0, -20, -40,
	-50, -40, -30, -30, -30, -30, -40, -50,
}

var bishopTable = [64]int{
	-20, -10, -10, -10, -10, -10, -10, -20,
	-10, 0, 0, 0, 0, 0, 0, -10,
	-10, 0, 5, 10, 10, 5, 0, -10,
	-10, 5, 5, 10, 10, 5, 5, -10,
	-10, 0, 10, 10, 10, 10, 0, -10,
	-10, 10, 10, 10, 10, 10, 10, -10,
	-10, 5, 0, 0, 0, 0, 5, -10,
	-20, -10, -10, -10, -10, -10, -10, -20,
}

var rookTableMG = [64]int{
	0, 0, 0, 0, 0, 0, 0, 0,
	5, 10, 10, 10, 10, 10, 10, 5,
	-5, 0, 0, 0, 0, 0, 0, -5,
	-5, 0, 0, 0, 0, 0, 0, -5,
	-5, 0, 0, 0, 0, 0, 0, -5,
	-5, 0, 0, 0, 0, 0, 0, -5,
	-5, 0, 0, 0, 0, 0, 0, -5,
	0, 0, 0, 5, 5, 0, 0, 0,
}

// Rooks belong on open files and the seventh rank in the endgame too, but
// those are scored by other terms; their square alone matters little.
var rookTableEG = [64]int{}

var queenTable = [64]int{
	-20, -10, -10, -5, -5, -10, -10, -20,
	-10, 0, 0, 0, 0, 0, 0, -10,
	-10, 0, 5, 5, 5, 5, 0, -10,
	-5, 0, 5, 5, 5, 5, 0, -5,
	0, 0, 5, 5, 5, 5, 0, -5,
	-10, 5, 5, 5, 5, 5, 0, -10,
	-10, 0, 5, 0, 0, 0, 0, -10,
	-20, -10, -10, -5, -5, -10, -10, -20,
}

// The king hides behind its pawns in the middlegame and walks to the
// centre in the endgame: the clearest case for tapered evaluation.
var kingTableMG = [64]int{
	-30, -40, -40, -50, -50, -40, -40, -30,
	-30, -40, -40, -50, -50, -40, -40, -30,
	-30, -40, -40, -50, -50, -40, -40, -30,
	-30, -40, -40, -50, -50, -40, -40, -30,
	-20, -30, -30, -40, -40, -30, -30, -20,
	-10, -20, -20, -20, -20, -20, -20, -10,
	20, 20, 0, 0, 0, 0, 20, 20,
	20, 30, 10, 0, 0, 10, 30, 20,
}

var kingTableEG = [64]int{
	-50, -40, -30, -20, -20, -30, -40, -50,
	-30, -20, -10, 0, 0, -10, -20, -30,
	-30, -10, 20, 30, 30, 20, -10, -30,
	-30, -10, 30, 40, 40, 30, -10, -30,
	-30, -10, 30, 40, 40, 30, -10, -30,
	-30, -10, 20, 30, 30, 20, -10, -30,
	-30, -30, 0, 0, 0, 0, -30, -30,
	-50, -30, -30, -30, -30, -30, -30, -50,
}

// SeedWeights are the hand-set weights: Michniewski's tables and textbook
// values for the other terms. Tuning starts from them.
func SeedWeights() Weights {
	w := Weights{
		PieceValue:   [7][2]int{{0, 0}, {100, 120}, {320, 300}, {330, 320}, {500, 540}, {900, 950}, {0, 0}},
		IsolatedPawn: [2]int{-15, -20},
		DoubledPawn:  [2]int{-10, -25},
		PassedPawn:   [8][2]int{{0, 0}, {5, 10}, {10, 15}, {15, 25}, {25, 45}, {40, 75}, {60, 120}, {0, 0}},
		BishopPair:   [2]int{30, 50},
		RookOpen:     [2]int{25, 10},
		RookHalfOpen: [2]int{12, 5},
		Mobility:     [7][2]int{{}, {}, {4, 4}, {5, 5}, {2, 4}, {1, 2}, {}},
		// Starting points for the terms beyond seed 000's, in the usual
		// direction and a little smaller than common engine values.
		SupportedPawn:      [2]int{5, 5},
		PhalanxPawn:        [2]int{5, 5},
		PassedKingDistance: [2][2]int{{0, -3}, {0, 6}},
		PawnThreat:         [7][2]int{board.Knight: {-30, -20}, board.Bishop: {-30, -20}, board.Rook: {-40, -30}, board.Queen: {-50, -40}},
		MinorThreat:        [7][2]int{board.Rook: {-20, -15}, board.Queen: {-30, -20}},
		KingShelter:        [2]int{8, 0},
		Tempo:              [2]int{10, 5},
	}
	pst := [7][2]*[64]int{
		{},
		{&pawnTableMG, &pawnTableEG},
		{&knightTable, &knightTable},
		{&bishopTable, &bishopTable},
		{&rookTableMG, &rookTableEG},
		{&queenTable, &queenTable},
		{&kingTableMG, &kingTableEG},
	}
	for p := board.Pawn; p <= board.King; p++ {
		for sq := 0; sq < 64; sq++ {
			w.PST[p][sq] = [2]int{pst[p][0][sq], pst[p][1][sq]}
		}
	}
	return w
}
