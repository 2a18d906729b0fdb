package dataset

import (
	"fmt"

	"github.com/dchess/dchess/internal/chess/board"
)

// CheckMoves reports the first move of the label that is not legal where it
// is played: the best move in the record's position, each principal
// variation move after the ones before it, and likewise every further line.
// A label without moves (failed, or a position without legal moves) passes.
func (l *Label) CheckMoves(fen string) error {
	if l.Status != LabelOK || (l.BestMove == "" && len(l.PV) == 0 && len(l.MultiPV) == 0) {
		return nil
	}
	root, err := board.FromFEN(fen)
	if err != nil {
		return fmt.Errorf("position %q: %w", fen, err)
	}
	if l.BestMove != "" {
		if _, err := root.ParseUCI(l.BestMove); err != nil {
			return fmt.Errorf("best move %s is not legal in %s", l.BestMove, fen)
		}
	}
	if err := checkLine(root, fen, "principal variation", l.PV); err != nil {
		return err
	}
	for i, line := range l.MultiPV {
		if err := checkLine(root, fen, fmt.Sprintf("line %d", i+2), line.PV); err != nil {
			return err
		}
	}
	return nil
}

// checkLine plays pv from root, which it leaves as it found it.
func checkLine(root *board.Board, fen, name string, pv []string) error {
	b := root.Clone()
	for i, s := range pv {
		m, err := b.ParseUCI(s)
		if err != nil {
			return fmt.Errorf("%s move %d (%s) is not legal after %v from %s", name, i+1, s, pv[:i], fen)
		}
		b.Make(m)
	}
	return nil
}

// Quiet says whether b, the label's position, is quiet: not in check and
// Stockfish's best move not a capture, the positions a search's quiescence
// hands its evaluation. A label without a best move counts as quiet when
// not in check; a best move that is not legal in b is an error.
func (l *Label) Quiet(b *board.Board) (bool, error) {
	if b.InCheck() {
		return false, nil
	}
	if l.BestMove == "" {
		return true, nil
	}
	best, err := b.ParseUCI(l.BestMove)
	if err != nil {
		return false, fmt.Errorf("best move: %w", err)
	}
	return !b.IsCapture(best), nil
}
