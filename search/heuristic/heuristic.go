// Package heuristic is the hand-crafted evaluation of seed 000: material,
// piece-square tables, game phase, pawn structure (isolated, doubled and
// passed pawns), the bishop pair, rooks on open and half-open files and
// mobility, each scored for the middlegame and the endgame and blended by
// the game phase (tapered evaluation). The weights in use are fitted to
// Stockfish's scores (tune.go, weights.go); SeedWeights are the hand-set
// ones the fit starts from.
package heuristic

import (
	"math/bits"

	"github.com/dchess/dchess/search/board"
)

// Weights are the evaluation's parameters, each a {middlegame, endgame}
// pair in centipawns. DefaultWeights holds the ones the player uses.
type Weights struct {
	// PieceValue is indexed by board.Piece.
	PieceValue [7][2]int
	// PST is indexed by board.Piece and square, written as a board is
	// printed: a8 first, h1 last, from White's side. White's square sq
	// reads entry sq^56; Black's reads entry sq, which mirrors the board.
	PST          [7][64][2]int
	IsolatedPawn [2]int
	DoubledPawn  [2]int // per pawn beyond the first on a file
	// PassedPawn is indexed by the rank counted from the pawn's own side (1..6).
	PassedPawn   [8][2]int
	BishopPair   [2]int
	RookOpen     [2]int // no pawn on the file
	RookHalfOpen [2]int // only enemy pawns on the file
	// Mobility is per reachable square beyond mobilityBase, indexed by board.Piece.
	Mobility [7][2]int
}

// mobilityBase is the number of reachable squares that scores zero; it is
// fixed, not tuned, because a constant offset per piece belongs to its value.
var mobilityBase = [7]int{0, 0, 4, 6, 7, 13, 0}

// Pairs lists a pointer to every parameter pair in a fixed order, so tools
// can treat the weights as one vector.
func (w *Weights) Pairs() []*[2]int {
	var ps []*[2]int
	for p := board.Pawn; p <= board.Queen; p++ {
		ps = append(ps, &w.PieceValue[p])
	}
	for p := board.Pawn; p <= board.King; p++ {
		for sq := range w.PST[p] {
			ps = append(ps, &w.PST[p][sq])
		}
	}
	ps = append(ps, &w.IsolatedPawn, &w.DoubledPawn)
	for r := 1; r <= 6; r++ {
		ps = append(ps, &w.PassedPawn[r])
	}
	ps = append(ps, &w.BishopPair, &w.RookOpen, &w.RookHalfOpen)
	for p := board.Knight; p <= board.Queen; p++ {
		ps = append(ps, &w.Mobility[p])
	}
	return ps
}

// phaseWeight counts how much of the opening material remains; the start
// position totals maxPhase.
var phaseWeight = [7]int{0, 0, 1, 1, 2, 4, 0}

const maxPhase = 24

// Term is one component's score in centipawns from White's view.
type Term struct {
	MG      int `json:"mg"`
	EG      int `json:"eg"`
	Blended int `json:"blended"`
}

// Breakdown explains an evaluation, component by component.
type Breakdown struct {
	// Phase runs from 1 (all pieces on the board) to 0 (only kings and
	// pawns); each component is MG*Phase + EG*(1-Phase).
	Phase         float64 `json:"phase"`
	Material      Term    `json:"material"`
	PieceSquare   Term    `json:"piece_square"`
	PawnStructure Term    `json:"pawn_structure"`
	BishopPair    Term    `json:"bishop_pair"`
	RookFiles     Term    `json:"rook_files"`
	Mobility      Term    `json:"mobility"`
	// Total sums the components; Total.Blended is what Evaluate returns
	// for White (negated for Black to move). The blended components can
	// differ from it by rounding.
	Total Term `json:"total"`
}

// NamedTerm pairs a component with its name, for printing.
type NamedTerm struct {
	Name string
	Term
}

// Components lists the scored components in a fixed order, Total last.
func (bd Breakdown) Components() []NamedTerm {
	return []NamedTerm{
		{"material", bd.Material}, {"piece-square", bd.PieceSquare}, {"pawn structure", bd.PawnStructure},
		{"bishop pair", bd.BishopPair}, {"rook files", bd.RookFiles}, {"mobility", bd.Mobility}, {"total", bd.Total},
	}
}

// Evaluator is the hand-crafted evaluator. The zero value uses
// DefaultWeights; it is safe for concurrent use.
type Evaluator struct {
	t *tables
}

// New returns the evaluator with DefaultWeights.
func New() *Evaluator { return &Evaluator{t: defaultTables} }

// WithWeights returns an evaluator that scores with w.
func WithWeights(w Weights) *Evaluator { return &Evaluator{t: newTables(&w)} }

func (e *Evaluator) tables() *tables {
	if e.t == nil {
		return defaultTables
	}
	return e.t
}

// tables are weights laid out for the hot path.
type tables struct {
	w Weights
	// signedPST[side][piece][phase][sq] is the PST read from side's point
	// of view and negated for Black, so the loops need neither flip nor sign.
	signedPST [2][7][2][64]int16
}

var defaultTables = newTables(&DefaultWeights)

func newTables(w *Weights) *tables {
	t := &tables{w: *w}
	for piece := board.Pawn; piece <= board.King; piece++ {
		for phase := 0; phase < 2; phase++ {
			for sq := 0; sq < 64; sq++ {
				t.signedPST[board.White][piece][phase][sq] = int16(w.PST[piece][sq^56][phase])
				t.signedPST[board.Black][piece][phase][sq] = -int16(w.PST[piece][sq][phase])
			}
		}
	}
	return t
}

const (
	termMaterial = iota
	termPieceSquare
	termPawns
	termBishopPair
	termRookFiles
	termMobility
	numTerms
)

// scores holds {mg, eg} per component from White's view.
type scores [numTerms][2]int

// Evaluate scores the position in centipawns from the side to move's view.
func (e *Evaluator) Evaluate(b *board.Board) int {
	var s scores
	phase := evaluate(b, e.tables(), &s)
	var mg, eg int
	for i := range s {
		mg += s[i][0]
		eg += s[i][1]
	}
	v := taper(mg, eg, phase)
	if b.SideToMove() == board.Black {
		return -v
	}
	return v
}

// Explain returns the per-component scores behind Evaluate.
func (e *Evaluator) Explain(b *board.Board) Breakdown {
	var s scores
	phase := evaluate(b, e.tables(), &s)
	term := func(p [2]int) Term { return Term{MG: p[0], EG: p[1], Blended: taper(p[0], p[1], phase)} }
	bd := Breakdown{
		Phase:         float64(phase) / maxPhase,
		Material:      term(s[termMaterial]),
		PieceSquare:   term(s[termPieceSquare]),
		PawnStructure: term(s[termPawns]),
		BishopPair:    term(s[termBishopPair]),
		RookFiles:     term(s[termRookFiles]),
		Mobility:      term(s[termMobility]),
	}
	var total [2]int
	for i := range s {
		total[0] += s[i][0]
		total[1] += s[i][1]
	}
	bd.Total = term(total)
	return bd
}

// taper blends middlegame and endgame scores by phase (0..maxPhase).
func taper(mg, eg, phase int) int {
	return (mg*phase + eg*(maxPhase-phase)) / maxPhase
}

// evaluate fills s from White's view and returns the phase (0..maxPhase).
// It is the search's hot path, so each piece type has its own loop.
func evaluate(b *board.Board, t *tables, s *scores) int {
	w := &t.w
	white, black := b.Pieces(board.White), b.Pieces(board.Black)
	occupied := white.All | black.All
	phase := 0
	for side := board.White; side <= board.Black; side++ {
		us, them := white, black
		sign := 1
		if side == board.Black {
			us, them, sign = black, white, -1
		}
		pst := &t.signedPST[side]
		var psqMG, psqEG, mobMG, mobEG int
		// Pawns and kings: square only.
		for x := us.Pawns; x != 0; x &= x - 1 {
			sq := bits.TrailingZeros64(x)
			psqMG += int(pst[board.Pawn][0][sq])
			psqEG += int(pst[board.Pawn][1][sq])
		}
		for x := us.Kings; x != 0; x &= x - 1 {
			sq := bits.TrailingZeros64(x)
			psqMG += int(pst[board.King][0][sq])
			psqEG += int(pst[board.King][1][sq])
		}
		notOurs := ^us.All
		for x := us.Knights; x != 0; x &= x - 1 {
			sq := bits.TrailingZeros64(x)
			psqMG += int(pst[board.Knight][0][sq])
			psqEG += int(pst[board.Knight][1][sq])
			d := bits.OnesCount64(board.KnightAttacks[sq]&notOurs) - mobilityBase[board.Knight]
			mobMG += d * w.Mobility[board.Knight][0]
			mobEG += d * w.Mobility[board.Knight][1]
		}
		for x := us.Bishops; x != 0; x &= x - 1 {
			sq := bits.TrailingZeros64(x)
			psqMG += int(pst[board.Bishop][0][sq])
			psqEG += int(pst[board.Bishop][1][sq])
			d := bits.OnesCount64(board.BishopAttacks(uint8(sq), occupied)&notOurs) - mobilityBase[board.Bishop]
			mobMG += d * w.Mobility[board.Bishop][0]
			mobEG += d * w.Mobility[board.Bishop][1]
		}
		var rookMG, rookEG int
		allPawns := us.Pawns | them.Pawns
		for x := us.Rooks; x != 0; x &= x - 1 {
			sq := bits.TrailingZeros64(x)
			psqMG += int(pst[board.Rook][0][sq])
			psqEG += int(pst[board.Rook][1][sq])
			d := bits.OnesCount64(board.RookAttacks(uint8(sq), occupied)&notOurs) - mobilityBase[board.Rook]
			mobMG += d * w.Mobility[board.Rook][0]
			mobEG += d * w.Mobility[board.Rook][1]
			file := fileMask[sq&7]
			switch {
			case allPawns&file == 0:
				rookMG += w.RookOpen[0]
				rookEG += w.RookOpen[1]
			case us.Pawns&file == 0:
				rookMG += w.RookHalfOpen[0]
				rookEG += w.RookHalfOpen[1]
			}
		}
		for x := us.Queens; x != 0; x &= x - 1 {
			sq := bits.TrailingZeros64(x)
			psqMG += int(pst[board.Queen][0][sq])
			psqEG += int(pst[board.Queen][1][sq])
			reach := board.BishopAttacks(uint8(sq), occupied) | board.RookAttacks(uint8(sq), occupied)
			d := bits.OnesCount64(reach&notOurs) - mobilityBase[board.Queen]
			mobMG += d * w.Mobility[board.Queen][0]
			mobEG += d * w.Mobility[board.Queen][1]
		}
		var matMG, matEG int
		for piece, bb := range [...]uint64{board.Pawn: us.Pawns, board.Knight: us.Knights, board.Bishop: us.Bishops, board.Rook: us.Rooks, board.Queen: us.Queens} {
			n := bits.OnesCount64(bb)
			phase += n * phaseWeight[piece]
			matMG += n * w.PieceValue[piece][0]
			matEG += n * w.PieceValue[piece][1]
		}
		var pawns [2]int
		pawnStructure(w, us.Pawns, them.Pawns, side, &pawns)
		s[termMaterial][0] += sign * matMG
		s[termMaterial][1] += sign * matEG
		// The signed tables already carry the side's sign.
		s[termPieceSquare][0] += psqMG
		s[termPieceSquare][1] += psqEG
		s[termPawns][0] += sign * pawns[0]
		s[termPawns][1] += sign * pawns[1]
		if us.Bishops&(us.Bishops-1) != 0 { // two or more bishops
			s[termBishopPair][0] += sign * w.BishopPair[0]
			s[termBishopPair][1] += sign * w.BishopPair[1]
		}
		s[termRookFiles][0] += sign * rookMG
		s[termRookFiles][1] += sign * rookEG
		s[termMobility][0] += sign * mobMG
		s[termMobility][1] += sign * mobEG
	}
	return min(phase, maxPhase)
}

func pawnStructure(w *Weights, ours, theirs uint64, side board.Color, out *[2]int) {
	for file := 0; file < 8; file++ {
		n := bits.OnesCount64(ours & fileMask[file])
		if n == 0 {
			continue
		}
		if ours&adjacentFiles[file] == 0 {
			out[0] += n * w.IsolatedPawn[0]
			out[1] += n * w.IsolatedPawn[1]
		}
		if n > 1 {
			out[0] += (n - 1) * w.DoubledPawn[0]
			out[1] += (n - 1) * w.DoubledPawn[1]
		}
	}
	for x := ours; x != 0; x &= x - 1 {
		sq := bits.TrailingZeros64(x)
		if theirs&passedSpan[side][sq] != 0 {
			continue
		}
		rank := sq >> 3
		if side == board.Black {
			rank = 7 - rank
		}
		out[0] += w.PassedPawn[rank][0]
		out[1] += w.PassedPawn[rank][1]
	}
}

var (
	fileMask      [8]uint64
	adjacentFiles [8]uint64
	// passedSpan[side][sq] holds the squares ahead of a pawn on its own and
	// the neighbouring files: an enemy pawn there stops it being passed.
	passedSpan [2][64]uint64
)

func init() {
	for f := 0; f < 8; f++ {
		fileMask[f] = 0x0101010101010101 << f
	}
	for f := 0; f < 8; f++ {
		if f > 0 {
			adjacentFiles[f] |= fileMask[f-1]
		}
		if f < 7 {
			adjacentFiles[f] |= fileMask[f+1]
		}
	}
	for sq := 0; sq < 64; sq++ {
		r, f := sq/8, sq%8
		files := fileMask[f] | adjacentFiles[f]
		for rr := r + 1; rr < 8; rr++ {
			passedSpan[board.White][sq] |= files & (0xFF << (rr * 8))
		}
		for rr := r - 1; rr >= 0; rr-- {
			passedSpan[board.Black][sq] |= files & (0xFF << (rr * 8))
		}
	}
}
