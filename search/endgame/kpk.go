package endgame

import (
	"sync"

	"github.com/dchess/dchess/internal/chess/board"
)

// King and pawn against king, solved by retrograde analysis.
//
// A position is seen from the pawn's side, called the attacker: its pawn
// moves up the board (a black pawn's position is turned over first) and
// stands on files a to d (a pawn on e to h is mirrored across the board's
// middle, which changes no result). Positions are numbered by who moves,
// the pawn's square (24 of them: ranks 2 to 7, files a to d) and the two
// kings' squares, 2 × 24 × 64 × 64 = 196,608 in all, one bit each: set
// when the attacker wins. Won means the pawn promotes to a queen or rook
// that the defender cannot take at once and that does not stalemate him,
// after which king and queen, or king and rook, against king is always
// mated; anything else is a draw, the pawn taken or the defender
// stalemated.

const (
	kpkPawnSquares = 24
	kpkPositions   = 2 * kpkPawnSquares * 64 * 64
)

var (
	kpkOnce sync.Once
	kpkWins [kpkPositions / 64]uint64
)

// kpkIndex numbers a position: defenderToMove, the attacking and
// defending kings' squares and the pawn's, on files a to d, ranks 2 to 7.
func kpkIndex(defenderToMove bool, ak, dk, pawn int) int {
	i := ((pawn/8-1)*4+pawn%8)<<12 | ak<<6 | dk
	if defenderToMove {
		i += kpkPawnSquares << 12
	}
	return i
}

// kpkWon says whether the attacker wins with his king on ak and pawn on
// pawn (moving up the board) against the king on dk. The squares must be a
// legal position with that side to move.
func kpkWon(defenderToMove bool, ak, dk, pawn int) bool {
	kpkOnce.Do(solveKPK)
	if pawn%8 > 3 {
		ak, dk, pawn = ak^7, dk^7, pawn^7
	}
	i := kpkIndex(defenderToMove, ak, dk, pawn)
	return kpkWins[i/64]>>(i%64)&1 != 0
}

// kpkProbe looks b up: b has kings and one pawn, nothing else. It returns
// the pawn's colour and whether that side wins.
func kpkProbe(b *board.Board) (attacker board.Color, won bool) {
	attacker = board.White
	if b.Pieces(board.Black).Pawns != 0 {
		attacker = board.Black
	}
	a, d := b.Pieces(attacker), b.Pieces(attacker.Other())
	ak, dk, pawn := square(a.Kings), square(d.Kings), square(a.Pawns)
	if attacker == board.Black { // turn the board over: the pawn moves up
		ak, dk, pawn = ak^56, dk^56, pawn^56
	}
	return attacker, kpkWon(b.SideToMove() != attacker, ak, dk, pawn)
}

// Node states while solving.
const (
	kpkIllegal uint8 = iota // no such position: kings touch or share a square, or the side not to move is in check
	kpkOpen                 // not yet shown won; a draw when solving ends
	kpkWin                  // the attacker wins
	kpkDrawn                // a draw whatever else is learnt: the pawn falls or the defender is stalemated
)

// solveKPK fills kpkWins. Positions start open; those decided at once
// (a promotion that keeps the piece, a pawn that falls, a stalemate, a
// pawn's mate) are marked, then the rest are swept until nothing
// changes: the attacker to move wins if one of his moves reaches a won
// position, the defender to move loses if every move of his does. What
// stays open is a draw, since the attacker can never force a win from it.
func solveKPK() {
	state := make([]uint8, kpkPositions)
	for pawn := 8; pawn < 56; pawn++ {
		if pawn%8 > 3 {
			continue
		}
		for ak := 0; ak < 64; ak++ {
			for dk := 0; dk < 64; dk++ {
				for _, defender := range []bool{false, true} {
					state[kpkIndex(defender, ak, dk, pawn)] = kpkStart(defender, ak, dk, pawn)
				}
			}
		}
	}
	for changed := true; changed; {
		changed = false
		for pawn := 55; pawn >= 8; pawn-- { // from the seventh rank down, the way wins spread
			if pawn%8 > 3 {
				continue
			}
			for ak := 0; ak < 64; ak++ {
				for dk := 0; dk < 64; dk++ {
					for _, defender := range []bool{false, true} {
						i := kpkIndex(defender, ak, dk, pawn)
						if state[i] != kpkOpen {
							continue
						}
						var won bool
						if defender {
							won = kpkDefenderLost(state, ak, dk, pawn)
						} else {
							won = kpkAttackerWins(state, ak, dk, pawn)
						}
						if won {
							state[i] = kpkWin
							changed = true
						}
					}
				}
			}
		}
	}
	for i, s := range state {
		if s == kpkWin {
			kpkWins[i/64] |= 1 << (i % 64)
		}
	}
}

// kpkStart is a position's state before the sweeps.
func kpkStart(defenderToMove bool, ak, dk, pawn int) uint8 {
	if ak == dk || ak == pawn || dk == pawn || board.KingAttacks[ak]&bit(dk) != 0 {
		return kpkIllegal
	}
	pawnAttacks := board.PawnAttacks[board.White][pawn]
	if !defenderToMove {
		if pawnAttacks&bit(dk) != 0 {
			return kpkIllegal // the defender, who just moved, would be in check
		}
		if q := pawn + 8; q >= 56 && q != ak && q != dk && kpkPromotes(ak, dk, q) {
			return kpkWin
		}
		return kpkOpen
	}
	moves := kpkDefenderMoves(ak, dk, pawn)
	switch {
	case moves&bit(pawn) != 0:
		return kpkDrawn // he takes the pawn
	case moves == 0 && pawnAttacks&bit(dk) != 0:
		return kpkWin // mated by the pawn
	case moves == 0:
		return kpkDrawn // stalemate
	}
	return kpkOpen
}

// kpkDefenderMoves is where the defending king may go: not next to the
// other king, not onto a square the pawn attacks. The pawn's own square
// is among them when the attacking king does not guard it.
func kpkDefenderMoves(ak, dk, pawn int) uint64 {
	return board.KingAttacks[dk] &^ board.KingAttacks[ak] &^ board.PawnAttacks[board.White][pawn]
}

// kpkPromotes says whether a pawn promoting on q (rank 8), with the
// attacking king on ak and the defending king on dk, to move next, wins:
// as a queen or as a rook, the new piece cannot be taken at once and the
// defender is not stalemated.
func kpkPromotes(ak, dk, q int) bool {
	if board.KingAttacks[dk]&bit(q) != 0 && board.KingAttacks[ak]&bit(q) == 0 {
		return false // the defender takes it, as a queen or a rook
	}
	occ := bit(ak) | bit(q) // the defending king is no shield on his own lines
	rook := board.RookAttacks(uint8(q), occ)
	queen := rook | board.BishopAttacks(uint8(q), occ)
	for _, attacks := range []uint64{queen, rook} {
		flight := board.KingAttacks[dk] &^ board.KingAttacks[ak] &^ attacks &^ bit(q)
		if flight != 0 || attacks&bit(dk) != 0 { // he has a move, or it is mate
			return true
		}
	}
	return false
}

// kpkAttackerWins says whether the attacker to move has a move to a won
// position: a king move, a push, a double push from the second rank, or a
// promotion (settled in kpkStart).
func kpkAttackerWins(state []uint8, ak, dk, pawn int) bool {
	for to := board.KingAttacks[ak] &^ board.KingAttacks[dk] &^ bit(pawn); to != 0; to &= to - 1 {
		if state[kpkIndex(true, square(to), dk, pawn)] == kpkWin {
			return true
		}
	}
	up := pawn + 8
	if up >= 56 || up == ak || up == dk {
		return false // a promotion was judged at the start; a blocked pawn has no push
	}
	if state[kpkIndex(true, ak, dk, up)] == kpkWin {
		return true
	}
	two := up + 8
	return pawn < 16 && two != ak && two != dk && state[kpkIndex(true, ak, dk, two)] == kpkWin
}

// kpkDefenderLost says whether every move of the defender to move reaches
// a won position (he has one, and none takes the pawn: kpkStart).
func kpkDefenderLost(state []uint8, ak, dk, pawn int) bool {
	for to := kpkDefenderMoves(ak, dk, pawn); to != 0; to &= to - 1 {
		if state[kpkIndex(false, ak, square(to), pawn)] != kpkWin {
			return false
		}
	}
	return true
}
