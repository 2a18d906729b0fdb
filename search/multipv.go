package search

import (
	"cmp"
	"slices"

	"github.com/dchess/dchess/internal/chess/board"
)

// rootLine is one root move's line and score, a line of a search that
// reports several (Limits.MultiPV).
type rootLine struct {
	score int
	pv    []board.Move
}

// searchLines searches the root to depth once for each of k lines: first
// among all the root moves, as a one-line search does, then each time
// without the moves of the lines already found (the restriction
// searchmoves uses), so the i-th search's best move is the i-th best. It
// keeps the lines in e.lines, best first, leaves the best in pv[0] and
// rootScore as a one-line iteration does, and returns its score. Stopped,
// it leaves e.lines to the last finished iteration and the best of the
// lines it finished in pv[0], which deepen then weighs as it weighs any
// cut-off iteration's move; stopped in its first line, it leaves what that
// search found there.
func (e *Engine) searchLines(b *board.Board, depth int, roots []board.Move, k int) int {
	all := e.rootMoves
	previous := e.lines
	lines := make([]rootLine, 0, k)
	for i := range k {
		if i > 0 {
			e.rootMoves = movesOutside(roots, lines)
		}
		// Each line's window centres on its score at the last depth; a
		// line with none is searched in the full window.
		centre := infinity
		if i < len(previous) {
			centre = previous[i].score
		}
		s := e.aspirate(b, depth, centre)
		e.rootMoves = all
		if e.stopped || e.pvLen[0] == 0 {
			break
		}
		lines = append(lines, rootLine{score: s, pv: slices.Clone(e.pv[0][:e.pvLen[0]])})
	}
	if len(lines) == 0 {
		return 0
	}
	// A later line can come out above an earlier one when the searches
	// between them changed what the table knows.
	slices.SortStableFunc(lines, func(a, b rootLine) int { return cmp.Compare(b.score, a.score) })
	e.pvLen[0] = copy(e.pv[0][:], lines[0].pv)
	e.rootScore = lines[0].score
	if !e.stopped {
		e.lines = lines
	}
	return lines[0].score
}

// movesOutside returns the moves of roots that start none of lines.
func movesOutside(roots []board.Move, lines []rootLine) []board.Move {
	var out []board.Move
	for _, m := range roots {
		if !slices.ContainsFunc(lines, func(l rootLine) bool { return l.pv[0] == m }) {
			out = append(out, m)
		}
	}
	return out
}
