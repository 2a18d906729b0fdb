package match

import (
	"fmt"
	"io"

	"github.com/dchess/dchess/internal/chess/pgn"
	"github.com/dchess/dchess/search"
)

// pgnSink writes games in game order: a game that finishes early waits
// until those before it are written, so a file is the same whatever the
// concurrency.
type pgnSink struct {
	w       io.Writer
	cfg     *Config
	pending map[int]GameResult
	order   []int // the game numbers in the order they are written
	next    int   // index in order of the next game to write
}

func (s *pgnSink) add(g GameResult) error {
	if s.w == nil {
		return nil
	}
	s.pending[g.Number] = g
	for s.next < len(s.order) {
		g, ok := s.pending[s.order[s.next]]
		if !ok {
			return nil
		}
		delete(s.pending, g.Number)
		s.next++
		if err := WritePGN(s.w, g, s.cfg.Event, timeControlTag(s.cfg.TimeControl)); err != nil {
			return err
		}
	}
	return nil
}

// flush writes the games left waiting behind one that was never counted
// (the match stopped while it ran).
func (s *pgnSink) flush() error {
	if s.w == nil {
		return nil
	}
	for len(s.pending) > 0 && s.next < len(s.order) {
		g, ok := s.pending[s.order[s.next]]
		if !ok {
			s.next++
			continue
		}
		if err := s.add(g); err != nil {
			return err
		}
	}
	return nil
}

// timeControlTag is the TimeControl tag: the clock, or "-" when moves are
// bounded by depth, nodes or move time (the engines' depths are in the
// move comments).
func timeControlTag(tc *TimeControl) string {
	if tc != nil {
		return tc.String()
	}
	return "-"
}

// pgnTermination maps a termination to the PGN standard's Termination tag.
func pgnTermination(term string) string {
	switch term {
	case TermDrawAdjudication, TermResignAdjudication, TermMaxMoves:
		return "adjudication"
	case TermIllegalMove:
		return "rules infraction"
	case TermTimeForfeit:
		return "time forfeit"
	case TermCrash:
		return "abandoned"
	case TermStall:
		return "stalled connection"
	}
	return "normal"
}

// WritePGN writes one game: the seven standard tags, Termination,
// TimeControl, SetUp/FEN of the opening and PlyCount, then the moves with
// each engine's "{+0.35/8 0.250s}" score (its own side's view), depth and
// time taken, as cutechess-cli writes them, and the reason the game ended
// in the last move's comment (when a move was played).
func WritePGN(w io.Writer, g GameResult, event, timeControl string) error {
	game := pgn.Export{FEN: g.Opening.FEN, Result: g.Result, Tags: []pgn.Tag{
		{Name: "Event", Value: event},
		{Name: "Site", Value: "?"},
		{Name: "Date", Value: g.Start.Format("2006.01.02")},
		{Name: "Round", Value: fmt.Sprint(g.Number)},
		{Name: "White", Value: g.White},
		{Name: "Black", Value: g.Black},
		{Name: "Result", Value: g.Result},
		{Name: "Termination", Value: pgnTermination(g.Termination)},
		{Name: "TimeControl", Value: timeControl},
		{Name: "SetUp", Value: "1"},
		{Name: "FEN", Value: g.Opening.FEN},
		{Name: "PlyCount", Value: fmt.Sprint(len(g.Moves))},
	}}
	for _, m := range g.Moves {
		move := pgn.ExportMove{SAN: m.SAN}
		if m.Info.HasScore {
			move.Comment = fmt.Sprintf("%s/%d %.3fs", scoreComment(m.Info.Score, m.Info.Mate), m.Info.Depth, m.Elapsed.Seconds())
		}
		game.Moves = append(game.Moves, move)
	}
	// notnil/chess cannot read a comment before the first move, so a game
	// that ended before any move keeps only its Termination tag. chess.js
	// cannot read two comments in a row, so the reason joins the last
	// move's score comment, as cutechess-cli writes it: {+M1/1 0.000s, Black mates}.
	if g.Reason != "" && len(game.Moves) > 0 {
		last := &game.Moves[len(game.Moves)-1]
		if last.Comment != "" {
			last.Comment += ", " + g.Reason
		} else {
			last.Comment = g.Reason
		}
	}
	return pgn.Write(w, game)
}

// scoreComment is "+0.35" in pawns, or "+M3"/"-M2" for mates.
func scoreComment(score, mate int) string {
	if mate != 0 || abs(score) >= search.MateScore-search.MaxPly*2 {
		if mate == 0 {
			mate = search.MateIn(score)
		}
		if mate >= 0 && score > 0 {
			return fmt.Sprintf("+M%d", abs(mate))
		}
		return fmt.Sprintf("-M%d", abs(mate))
	}
	return fmt.Sprintf("%+.2f", float64(score)/100)
}
