package match

import (
	"fmt"
	"io"
	"strings"
	"unicode"

	"github.com/dchess/dchess/internal/chess/board"
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
	var b strings.Builder
	tag := func(name, value string) {
		fmt.Fprintf(&b, "[%s \"%s\"]\n", name, pgnString(value))
	}
	tag("Event", event)
	tag("Site", "?")
	tag("Date", g.Start.Format("2006.01.02"))
	tag("Round", fmt.Sprint(g.Number))
	tag("White", g.White)
	tag("Black", g.Black)
	tag("Result", g.Result)
	tag("Termination", pgnTermination(g.Termination))
	tag("TimeControl", timeControl)
	tag("SetUp", "1")
	tag("FEN", g.Opening.FEN)
	tag("PlyCount", fmt.Sprint(len(g.Moves)))
	b.WriteByte('\n')

	start, err := board.FromFEN(g.Opening.FEN)
	if err != nil {
		return err
	}
	var tokens []string
	moveNo, side := start.FullmoveNumber(), start.SideToMove()
	for i, m := range g.Moves {
		switch {
		case side == board.White:
			tokens = append(tokens, fmt.Sprintf("%d.", moveNo))
		case i == 0:
			tokens = append(tokens, fmt.Sprintf("%d...", moveNo))
		}
		tokens = append(tokens, m.SAN)
		if m.Info.HasScore {
			tokens = append(tokens, fmt.Sprintf("{%s/%d %.3fs}", scoreComment(m.Info.Score, m.Info.Mate), m.Info.Depth, m.Elapsed.Seconds()))
		}
		if side == board.Black {
			moveNo++
		}
		side = side.Other()
	}
	// notnil/chess cannot read a comment before the first move, so a game
	// that ended before any move keeps only its Termination tag. chess.js
	// cannot read two comments in a row, so the reason joins the last
	// move's score comment, as cutechess-cli writes it: {+M1/1 0.000s, Black mates}.
	if g.Reason != "" && len(g.Moves) > 0 {
		reason := strings.NewReplacer("{", "(", "}", ")").Replace(g.Reason)
		if last := g.Moves[len(g.Moves)-1]; last.Info.HasScore {
			tokens[len(tokens)-1] = strings.TrimSuffix(tokens[len(tokens)-1], "}") + ", " + reason + "}"
		} else {
			tokens = append(tokens, "{"+reason+"}")
		}
	}
	tokens = append(tokens, g.Result)
	// Lines stay under 80 characters, as the PGN standard asks.
	lineLen := 0
	for _, t := range tokens {
		if lineLen > 0 && lineLen+1+len(t) > 79 {
			b.WriteByte('\n')
			lineLen = 0
		} else if lineLen > 0 {
			b.WriteByte(' ')
			lineLen++
		}
		b.WriteString(t)
		lineLen += len(t)
	}
	b.WriteString("\n\n")
	_, err = io.WriteString(w, b.String())
	return err
}

// pgnString is value as a legal PGN string token: \ and " escaped, and
// each control character (newline, tab...), which the standard does not
// allow in a string, replaced by a space. A name from an engine's "id
// name" or a player SPEC would otherwise end a tag line in the middle.
// Spaces around the value are dropped, as a reader would.
func pgnString(value string) string {
	value = strings.TrimSpace(strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, value))
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(value)
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
