// Package heuristic is the hand-crafted evaluation of seed 000: material,
// piece-square tables, game phase, pawn structure (isolated, doubled and
// passed pawns), the bishop pair, rooks on open and half-open files and
// mobility, each scored for the middlegame and the endgame and blended by
// the game phase (tapered evaluation). Threats, the king's pawn shelter,
// tempo and three more pawn terms were added when a match showed they gain
// (docs/results/2026-11-22-eval-threats-king-shelter-tempo.md). The weights in use are fitted to
// Stockfish's scores (tune.go, weights.go); SeedWeights are the hand-set
// ones the fit starts from.
package heuristic

import (
	"math/bits"

	"github.com/dchess/dchess/internal/chess/board"
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
	// Mobility is per reachable square beyond mobilityBase, indexed by
	// board.Piece. Squares enemy pawns attack are not counted.
	Mobility [7][2]int

	// The terms below go beyond seed 000's eight; they are fitted the
	// same way and kept because matches showed they gain.

	// SupportedPawn is per pawn defended by a pawn; PhalanxPawn per pawn
	// with a pawn of its side beside it.
	SupportedPawn [2]int
	PhalanxPawn   [2]int
	// PassedKingDistance is per square of distance from a king to the
	// square in front of a passed pawn, times the pawn's rank beyond the
	// second: index 0 for the pawn's own king, 1 for the enemy king.
	PassedKingDistance [2][2]int
	// PawnThreat is per piece an enemy pawn attacks, indexed by board.Piece.
	PawnThreat [7][2]int
	// MinorThreat is per rook or queen an enemy knight or bishop attacks.
	MinorThreat [7][2]int
	// KingShelter is per pawn of the king's side on its file or the
	// neighbouring ones, one or two ranks in front of it.
	KingShelter [2]int
	// Tempo is the bonus for having the move.
	Tempo [2]int
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
	ps = append(ps, &w.SupportedPawn, &w.PhalanxPawn, &w.PassedKingDistance[0], &w.PassedKingDistance[1])
	for p := board.Knight; p <= board.Queen; p++ {
		ps = append(ps, &w.PawnThreat[p])
	}
	ps = append(ps, &w.MinorThreat[board.Rook], &w.MinorThreat[board.Queen], &w.KingShelter, &w.Tempo)
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
	Threats       Term    `json:"threats"`
	KingShelter   Term    `json:"king_shelter"`
	Tempo         Term    `json:"tempo"`
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
		{"bishop pair", bd.BishopPair}, {"rook files", bd.RookFiles}, {"mobility", bd.Mobility},
		{"threats", bd.Threats}, {"king shelter", bd.KingShelter}, {"tempo", bd.Tempo}, {"total", bd.Total},
	}
}

// Evaluator is the hand-crafted evaluator. The zero value uses
// DefaultWeights; it is safe for concurrent use.
type Evaluator struct {
	t *tables
}

// New returns the evaluator with DefaultWeights.
func New() *Evaluator { return &Evaluator{t: defaultTables} }

// Clone returns an evaluator for another search thread (search.Options.Threads).
// The evaluator keeps no state, so the clone shares the weights.
func (e *Evaluator) Clone() *Evaluator { return &Evaluator{t: e.t} }

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
	termThreats
	termKingShelter
	termTempo
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
		Threats:       term(s[termThreats]),
		KingShelter:   term(s[termKingShelter]),
		Tempo:         term(s[termTempo]),
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
	sides := [2]*board.Bitboards{b.Pieces(board.White), b.Pieces(board.Black)}
	occupied := sides[board.White].All | sides[board.Black].All
	pawnAttacks := [2]uint64{whitePawnAttacks(sides[board.White].Pawns), blackPawnAttacks(sides[board.Black].Pawns)}
	var minorAttacks [2]uint64
	phase := 0
	for side := board.White; side <= board.Black; side++ {
		us, them := sides[side], sides[side^1]
		sign := 1
		if side == board.Black {
			sign = -1
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
		// A square an enemy pawn guards is no place to go.
		area := ^us.All &^ pawnAttacks[side^1]
		var minors uint64
		for x := us.Knights; x != 0; x &= x - 1 {
			sq := bits.TrailingZeros64(x)
			psqMG += int(pst[board.Knight][0][sq])
			psqEG += int(pst[board.Knight][1][sq])
			reach := board.KnightAttacks[sq]
			minors |= reach
			d := bits.OnesCount64(reach&area) - mobilityBase[board.Knight]
			mobMG += d * w.Mobility[board.Knight][0]
			mobEG += d * w.Mobility[board.Knight][1]
		}
		for x := us.Bishops; x != 0; x &= x - 1 {
			sq := bits.TrailingZeros64(x)
			psqMG += int(pst[board.Bishop][0][sq])
			psqEG += int(pst[board.Bishop][1][sq])
			reach := board.BishopAttacks(uint8(sq), occupied)
			minors |= reach
			d := bits.OnesCount64(reach&area) - mobilityBase[board.Bishop]
			mobMG += d * w.Mobility[board.Bishop][0]
			mobEG += d * w.Mobility[board.Bishop][1]
		}
		minorAttacks[side] = minors
		var rookMG, rookEG int
		allPawns := us.Pawns | them.Pawns
		for x := us.Rooks; x != 0; x &= x - 1 {
			sq := bits.TrailingZeros64(x)
			psqMG += int(pst[board.Rook][0][sq])
			psqEG += int(pst[board.Rook][1][sq])
			d := bits.OnesCount64(board.RookAttacks(uint8(sq), occupied)&area) - mobilityBase[board.Rook]
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
			d := bits.OnesCount64(reach&area) - mobilityBase[board.Queen]
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
		pawnStructure(w, us, them, side, pawnAttacks[side], &pawns)
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
		if us.Kings != 0 {
			n := bits.OnesCount64(us.Pawns & shelterZone[side][bits.TrailingZeros64(us.Kings)])
			s[termKingShelter][0] += sign * n * w.KingShelter[0]
			s[termKingShelter][1] += sign * n * w.KingShelter[1]
		}
	}
	// Threats need both sides' attacks, so they come after the loop.
	for side := board.White; side <= board.Black; side++ {
		us, sign := sides[side], 1
		if side == board.Black {
			sign = -1
		}
		var mg, eg int
		for piece, bb := range [...]uint64{board.Knight: us.Knights, board.Bishop: us.Bishops, board.Rook: us.Rooks, board.Queen: us.Queens} {
			if bb == 0 {
				continue
			}
			n := bits.OnesCount64(bb & pawnAttacks[side^1])
			mg += n * w.PawnThreat[piece][0]
			eg += n * w.PawnThreat[piece][1]
			if piece >= int(board.Rook) {
				n := bits.OnesCount64(bb & minorAttacks[side^1])
				mg += n * w.MinorThreat[piece][0]
				eg += n * w.MinorThreat[piece][1]
			}
		}
		s[termThreats][0] += sign * mg
		s[termThreats][1] += sign * eg
	}
	if b.SideToMove() == board.White {
		s[termTempo] = w.Tempo
	} else {
		s[termTempo] = [2]int{-w.Tempo[0], -w.Tempo[1]}
	}
	return min(phase, maxPhase)
}

func whitePawnAttacks(pawns uint64) uint64 {
	return (pawns&^fileMask[0])<<7 | (pawns&^fileMask[7])<<9
}

func blackPawnAttacks(pawns uint64) uint64 {
	return (pawns&^fileMask[0])>>9 | (pawns&^fileMask[7])>>7
}

// pawnStructure scores side's pawns; defended are the squares side's own
// pawns attack. It works on whole bitboards because it runs at every node.
func pawnStructure(w *Weights, us, them *board.Bitboards, side board.Color, defended uint64, out *[2]int) {
	ours := us.Pawns
	files := filesOf(ours)
	isolated := bits.OnesCount64(ours & spreadFiles(files&^(files<<1|files>>1)))
	doubled := bits.OnesCount64(ours) - bits.OnesCount8(files)
	supported := bits.OnesCount64(ours & defended)
	phalanx := bits.OnesCount64(ours & ((ours&^fileMask[7])<<1 | (ours&^fileMask[0])>>1))
	out[0] += isolated*w.IsolatedPawn[0] + doubled*w.DoubledPawn[0] + supported*w.SupportedPawn[0] + phalanx*w.PhalanxPawn[0]
	out[1] += isolated*w.IsolatedPawn[1] + doubled*w.DoubledPawn[1] + supported*w.SupportedPawn[1] + phalanx*w.PhalanxPawn[1]
	// A pawn is passed when no enemy pawn stands ahead of it on its own
	// file or the neighbouring ones: off the squares behind enemy pawns.
	var behind uint64
	if side == board.White {
		behind = them.Pawns >> 8
		behind |= behind >> 8
		behind |= behind >> 16
		behind |= behind >> 32
	} else {
		behind = them.Pawns << 8
		behind |= behind << 8
		behind |= behind << 16
		behind |= behind << 32
	}
	behind |= (behind&^fileMask[7])<<1 | (behind&^fileMask[0])>>1
	for x := ours &^ behind; x != 0; x &= x - 1 {
		sq := bits.TrailingZeros64(x)
		rank, stop := sq>>3, sq+8
		if side == board.Black {
			rank, stop = 7-rank, sq-8
		}
		out[0] += w.PassedPawn[rank][0]
		out[1] += w.PassedPawn[rank][1]
		if rank > 2 && us.Kings != 0 && them.Kings != 0 {
			own := (rank - 2) * distance(bits.TrailingZeros64(us.Kings), stop)
			enemy := (rank - 2) * distance(bits.TrailingZeros64(them.Kings), stop)
			out[0] += own*w.PassedKingDistance[0][0] + enemy*w.PassedKingDistance[1][0]
			out[1] += own*w.PassedKingDistance[0][1] + enemy*w.PassedKingDistance[1][1]
		}
	}
}

// filesOf returns a byte with bit f set when bb has a square on file f.
func filesOf(bb uint64) uint8 {
	bb |= bb >> 32
	bb |= bb >> 16
	bb |= bb >> 8
	return uint8(bb)
}

// spreadFiles turns a byte of files into a bitboard of those files.
func spreadFiles(files uint8) uint64 { return uint64(files) * 0x0101010101010101 }

// distance counts king moves between two squares.
func distance(a, b int) int {
	return max(abs(a>>3-b>>3), abs(a&7-b&7))
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

var (
	fileMask      [8]uint64
	adjacentFiles [8]uint64
	// shelterZone[side][sq] holds the squares one and two ranks in front
	// of a king on sq, on its file and the neighbouring ones.
	shelterZone [2][64]uint64
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
		for d := 1; d <= 2; d++ {
			if r+d < 8 {
				shelterZone[board.White][sq] |= files & (0xFF << ((r + d) * 8))
			}
			if r-d >= 0 {
				shelterZone[board.Black][sq] |= files & (0xFF << ((r - d) * 8))
			}
		}
	}
}
