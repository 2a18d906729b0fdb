package match

import (
	"fmt"
	"io"
	"strings"
	"time"

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

// WritePGN writes one game: the seven standard tags, with g.PGNTimes
// cutechess-cli's GameDuration, GameEndTime and GameStartTime, then
// Termination, TimeControl, SetUp/FEN of the opening and PlyCount; then the
// moves with each engine's "{+0.35/8 0.250s}" score (its own side's view),
// depth and time taken, as cutechess-cli writes them, the mover's clock
// after the move in a game played on one ("{+0.35/8 0.250s [%clk 0:00:09.8]}",
// as Lichess and chess.com write it), and the reason the game ended in the
// last move's comment (when a move was played).
func WritePGN(w io.Writer, g GameResult, event, timeControl string) error {
	game := pgn.Export{FEN: g.Opening.FEN, Result: g.Result, Tags: []pgn.Tag{
		{Name: "Event", Value: event},
		{Name: "Site", Value: "?"},
		{Name: "Date", Value: g.Start.Format("2006.01.02")},
		{Name: "Round", Value: fmt.Sprint(g.Number)},
		{Name: "White", Value: g.White},
		{Name: "Black", Value: g.Black},
		{Name: "Result", Value: g.Result},
	}}
	if g.PGNTimes && !g.Start.IsZero() && !g.End.IsZero() {
		game.Tags = append(game.Tags,
			pgn.Tag{Name: "GameDuration", Value: gameDuration(g.End.Sub(g.Start))},
			pgn.Tag{Name: "GameEndTime", Value: gameTime(g.End)},
			pgn.Tag{Name: "GameStartTime", Value: gameTime(g.Start)})
	}
	game.Tags = append(game.Tags,
		pgn.Tag{Name: "Termination", Value: pgnTermination(g.Termination)},
		pgn.Tag{Name: "TimeControl", Value: timeControl},
		pgn.Tag{Name: "SetUp", Value: "1"},
		pgn.Tag{Name: "FEN", Value: g.Opening.FEN},
		pgn.Tag{Name: "PlyCount", Value: fmt.Sprint(len(g.Moves))})
	for _, m := range g.Moves {
		var parts []string
		if m.Info.HasScore {
			parts = append(parts, fmt.Sprintf("%s/%d %.3fs", scoreComment(m.Info.Score, m.Info.Mate), m.Info.Depth, m.Elapsed.Seconds()))
		}
		if m.HasClock {
			parts = append(parts, clockComment(m.Clock))
		}
		game.Moves = append(game.Moves, pgn.ExportMove{SAN: m.SAN, Comment: strings.Join(parts, " ")})
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

// gameTime is a GameStartTime or GameEndTime as cutechess-cli writes it,
// to the millisecond with its zone, in UTC: "2026-12-04T21:00:00.123 UTC".
func gameTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000 MST") }

// gameDuration is a GameDuration as cutechess-cli writes it: "00:01:23".
func gameDuration(d time.Duration) string {
	s := int64(max(d, 0) / time.Second)
	return fmt.Sprintf("%02d:%02d:%02d", s/3600, s/60%60, s%60)
}

// clockComment is a clock's time left as Lichess and chess.com write it
// in a move's comment, to the tenth of a second, rounded down (a clock
// shows 0.0 only when its time is out): "[%clk 0:00:09.8]".
func clockComment(left time.Duration) string {
	tenths := int64(max(left, 0) / (100 * time.Millisecond))
	s := tenths / 10
	return fmt.Sprintf("[%%clk %d:%02d:%02d.%d]", s/3600, s/60%60, s%60, tenths%10)
}
