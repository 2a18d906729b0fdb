package search

import (
	"cmp"
	"slices"

	"github.com/dchess/dchess/internal/chess/board"
)

// Ordering tiers: the hash move, then captures that do not lose material
// and queen promotions (MVV-LVA), then killers and the counter move, then
// captures that lose material by exchange evaluation, then quiet moves by history, then
// under-promotions.
const (
	orderHash    = 1 << 30
	orderCapture = 1 << 24
	orderKiller  = 1 << 22
	// orderCounter, the refutation of the opponent's last move, sits just
	// below the killers.
	orderCounter = orderKiller - 1
	// orderBadCapture sits between the killers and the history scores,
	// which stay within ±historyMax.
	orderBadCapture = 1 << 21
	historyMax      = 1 << 14
	// orderUnderPromotion puts under-promotions after every quiet move.
	orderUnderPromotion = -historyMax - 1
)

// orderValue is the piece value used for MVV-LVA and delta pruning,
// indexed by board.Piece.
var orderValue = [7]int32{0, 100, 320, 330, 500, 900, 20000}

// scoreMoves fills scores for moves at a full-width node.
func (e *Engine) scoreMoves(b *board.Board, moves []board.Move, scores []int32, hashMove board.Move, ply int) {
	if ply == 0 && e.rootRank != nil {
		e.scoreRoot(moves, scores, hashMove)
		return
	}
	side := b.SideToMove()
	k0, k1 := e.killers[ply][0], e.killers[ply][1]
	counter := e.counterMove(ply)
	for i, m := range moves {
		switch {
		case m == hashMove:
			scores[i] = orderHash
		case b.IsCapture(m) && m.Promote() == 0 && losesMaterial(b, m):
			scores[i] = orderBadCapture + mvvLva(b, m)
		case b.IsCapture(m) || board.Piece(m.Promote()) == board.Queen:
			scores[i] = orderCapture + mvvLva(b, m)
		case m.Promote() != 0:
			scores[i] = orderUnderPromotion // almost never best
		case m == k0:
			scores[i] = orderKiller + 1
		case m == k1:
			scores[i] = orderKiller
		case m == counter:
			scores[i] = orderCounter
		default:
			scores[i] = e.history[side][m.From()][m.To()]
		}
	}
}

// Root scores from a proposer's ranking: the first-ranked move scores
// rankedTop, each later one a point less, and a move the proposer left out
// scores unranked, below them all. They stay inside ±historyMax/2, where
// the history's say in a late-move reduction rounds to nothing: the
// ranking decides the order of the root moves, and the reductions go by
// that order as they do by any other.
const (
	rankedTop = historyMax/2 - 1
	unranked  = -rankedTop
)

// scoreRoot fills the root's scores from the proposer's ranking: the
// hash move, which the last iteration (or an earlier search) found best,
// still goes first; the model ranks the rest, captures and quiet moves
// alike, in place of the tiers scoreMoves gives them.
func (e *Engine) scoreRoot(moves []board.Move, scores []int32, hashMove board.Move) {
	for i, m := range moves {
		switch rank, ok := e.rootRank[m]; {
		case m == hashMove:
			scores[i] = orderHash
		case ok:
			scores[i] = rank
		default:
			scores[i] = unranked
		}
	}
}

// rankRoot asks the proposer to rank the moves of b, the root, and keeps
// the ranking as root scores in e.rootRank. A sequence model's pass costs
// milliseconds, and iterative deepening orders the root at every depth,
// so it is asked once per position: a search of the position it ranked
// last asks nothing. A proposer that fails, or answers with slices of
// different lengths, leaves no ranking, and the root the usual order.
func (e *Engine) rankRoot(b *board.Board) {
	if e.proposer == nil {
		return
	}
	key := b.Key()
	if e.rootRank != nil && e.rankedKey == key {
		return
	}
	e.rootRank = nil
	moves, scores, err := e.proposer.Propose(b)
	if err != nil || len(moves) != len(scores) {
		return
	}
	order := make([]int, len(moves))
	for i := range order {
		order[i] = i
	}
	// Best first; equal scores keep the proposer's order, and NaN, which
	// cmp.Compare puts below every number, goes last.
	slices.SortStableFunc(order, func(i, j int) int { return cmp.Compare(scores[j], scores[i]) })
	rank := make(map[board.Move]int32, len(moves))
	for k, i := range order {
		if _, seen := rank[moves[i]]; !seen {
			rank[moves[i]] = rankedTop - int32(min(k, rankedTop))
		}
	}
	e.rootRank, e.rankedKey = rank, key
}

// scoreTactical moves the moves quiescence searches to the front of moves
// and scores them, returning how many there are. In check that is every
// move; otherwise captures and promotions, minus captures that cannot
// lift the score to alpha even if the captured piece came for free
// (delta pruning) and captures that lose material by exchange evaluation.
// The hash move, if among them, goes first.
func (e *Engine) scoreTactical(b *board.Board, moves []board.Move, scores []int32, inCheck bool, standPat, alpha int, hashMove board.Move) int {
	const deltaMargin = 200
	n := 0
	for _, m := range moves {
		promo := m.Promote() != 0
		capture := b.IsCapture(m)
		if !inCheck {
			if !promo && !capture {
				continue
			}
			if !promo && standPat+int(victimValue(b, m))+deltaMargin <= alpha {
				continue
			}
			// A capture that loses the exchange cannot raise the stand-pat score.
			if !promo && losesMaterial(b, m) {
				continue
			}
		}
		var s int32
		switch {
		case m == hashMove:
			s = orderHash
		case capture || promo:
			s = orderCapture + mvvLva(b, m)
		}
		moves[n], scores[n] = m, s
		n++
	}
	return n
}

func victimValue(b *board.Board, m board.Move) int32 {
	victim, _ := b.PieceAt(m.To())
	if victim == board.NoPiece {
		victim = board.Pawn // en passant
	}
	return orderValue[victim]
}

// mvvLva ranks captures by the most valuable victim first, then the least
// valuable attacker; a promotion counts the promoted piece as a victim.
func mvvLva(b *board.Board, m board.Move) int32 {
	var victim int32
	if b.IsCapture(m) {
		victim = victimValue(b, m)
	}
	if p := m.Promote(); p != 0 {
		victim += orderValue[p] - orderValue[board.Pawn]
	}
	attacker, _ := b.PieceAt(m.From())
	return victim*16 - orderValue[attacker]/100
}

// pickMove swaps the best-scored move among moves[i:] into place i: a
// lazy selection sort, cheap because a cutoff usually comes early. Ties
// keep generation order, so the search is deterministic.
func pickMove(moves []board.Move, scores []int32, i int) {
	best := i
	for j := i + 1; j < len(moves); j++ {
		if scores[j] > scores[best] {
			best = j
		}
	}
	moves[i], moves[best] = moves[best], moves[i]
	scores[i], scores[best] = scores[best], scores[i]
}

// rewardQuiet records a quiet move that caused a beta cutoff at depth,
// and marks down the quiet moves searched before it, which did not: the
// history then ranks moves by how often they cut when tried, not by how
// often they were tried.
func (e *Engine) rewardQuiet(side board.Color, m board.Move, tried []board.Move, depth, ply int) {
	if e.killers[ply][0] != m {
		e.killers[ply][1] = e.killers[ply][0]
		e.killers[ply][0] = m
	}
	if ply > 0 {
		if prev := e.moveStack[ply-1]; prev != board.NullMove {
			e.counterMoves[prev.From()][prev.To()] = m
		}
	}
	bonus := historyBonus(depth)
	e.updateHistory(side, m, bonus)
	for _, q := range tried {
		e.updateHistory(side, q, -bonus)
	}
}

// counterMove is the stored refutation of the move that led to ply, or
// NullMove.
func (e *Engine) counterMove(ply int) board.Move {
	if ply == 0 {
		return board.NullMove
	}
	prev := e.moveStack[ply-1]
	if prev == board.NullMove {
		return board.NullMove
	}
	return e.counterMoves[prev.From()][prev.To()]
}

// historyBonus grows with the depth of the search that proved the cutoff,
// capped so one deep result cannot swamp the table.
func historyBonus(depth int) int32 { return int32(min(32*depth*depth, historyMax/4)) }

// updateHistory moves a history score by bonus, less as the score nears
// ±historyMax, so scores stay in range and old results fade as new ones
// arrive.
func (e *Engine) updateHistory(side board.Color, m board.Move, bonus int32) {
	h := &e.history[side][m.From()][m.To()]
	*h += bonus - *h*abs32(bonus)/historyMax
}

func abs32(x int32) int32 {
	if x < 0 {
		return -x
	}
	return x
}
