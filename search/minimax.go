package search

import (
	"cmp"
	"slices"

	"github.com/dchess/dchess/internal/chess/board"
)

// searchMinimax is the seeds' fixed-depth minimax in negamax form: every
// move is searched to the full depth and the leaves are scored by the
// evaluator. Stopped early, it keeps the best root move among those
// already searched in full.
func (e *Engine) searchMinimax(b *board.Board, lim Limits, res *Result, onInfo func(Info)) {
	depth := lim.Depth
	if depth <= 0 {
		depth = DefaultMinimaxDepth
	}
	depth = min(depth, MaxPly-1)
	e.pvLen[0] = 0
	e.nodes++ // the root, counted as alpha-beta counts it
	moves := e.atRoot(b.LegalMoves(), 0)
	best := -infinity
	// Every root move is searched in full, so several lines
	// (Limits.MultiPV) cost nothing but keeping each one.
	var lines []rootLine
	for _, m := range moves {
		e.make(b, m)
		s := -e.minimax(b, depth-1, 1)
		e.unmake(b)
		if e.stopped {
			break
		}
		if lim.MultiPV > 1 {
			lines = append(lines, rootLine{score: s, pv: append([]board.Move{m}, e.pv[1][1:e.pvLen[1]]...)})
		}
		if s > best {
			best = s
			e.updatePV(0, m)
			res.Best, res.Score, res.Mate = m, s, MateIn(s)
			res.PV = append(res.PV[:0], e.pv[0][:e.pvLen[0]]...)
		}
	}
	if e.stopped {
		return
	}
	res.Depth = depth
	e.selDepth = depth
	if lines != nil {
		// Stable, so the first line is the move the loop kept.
		slices.SortStableFunc(lines, func(a, b rootLine) int { return cmp.Compare(b.score, a.score) })
		e.lines = lines[:min(lim.MultiPV, len(lines))]
	}
	e.finishIteration(res, depth, best, onInfo)
}

func (e *Engine) minimax(b *board.Board, depth, ply int) int {
	e.pvLen[ply] = ply
	e.nodes++
	if e.checkStop() {
		return 0
	}
	if b.IsRepeated() || b.InsufficientMaterial() {
		return 0
	}
	moves := b.LegalMoves()
	if len(moves) == 0 {
		if b.InCheck() {
			return -MateScore + ply
		}
		return 0
	}
	if b.HalfmoveClock() >= 100 {
		return 0
	}
	if depth <= 0 || ply >= MaxPly {
		return e.evaluate(b)
	}
	best := -infinity
	for _, m := range moves {
		e.make(b, m)
		s := -e.minimax(b, depth-1, ply+1)
		e.unmake(b)
		if e.stopped {
			return 0
		}
		if s > best {
			best = s
			e.updatePV(ply, m)
		}
	}
	return best
}
