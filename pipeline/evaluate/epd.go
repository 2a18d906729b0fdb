package evaluate

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/dchess/dchess/internal/chess/board"
	"github.com/dchess/dchess/internal/chess/epd"
	"github.com/dchess/dchess/search/player"
)

// EPDPosition is one test position: its best moves (bm) and moves to
// avoid (am), and what the player made of it.
type EPDPosition struct {
	ID     string   `json:"id"`
	FEN    string   `json:"fen"`
	Best   []string `json:"bm,omitempty"`
	Avoid  []string `json:"am,omitempty"`
	Played string   `json:"played"`
	Solved bool     `json:"solved"`
	best   []board.Move
	avoid  []board.Move
}

// Wanted says what the position asks for: "bm ..." or "am ...".
func (p *EPDPosition) Wanted() string {
	if len(p.Best) == 0 {
		return "am " + strings.Join(p.Avoid, " ")
	}
	return "bm " + strings.Join(p.Best, " ")
}

// EPDReport is `eval --epd`: the positions a player solves.
type EPDReport struct {
	Player    string        `json:"player"`
	Solved    int           `json:"solved"`
	Total     int           `json:"total"`
	Positions []EPDPosition `json:"positions"`
	// Skipped are the lines that could not be read, when there were some.
	Skipped *BadLines `json:"skipped_lines,omitempty"`
}

// ReadEPDSuite reads the first limit (0: all) positions of an EPD file
// that have bm or am opcodes; others are left out, since there is nothing
// to check them against. A line that is not EPD, or whose bm or am is not
// a legal move, is skipped and counted (with strict, it is the error).
func ReadEPDSuite(path string, limit int, strict bool) ([]EPDPosition, *BadLines, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("--epd: %w", err)
	}
	defer f.Close()
	var list []EPDPosition
	bad := &BadLines{}
	err = epd.Scan(f, func(lineNo int, line string) error {
		if limit > 0 && len(list) >= limit {
			return errEvalLimit
		}
		l, err := epd.Parse(line)
		if err != nil {
			return bad.Add(strict, lineNo, err)
		}
		pos := EPDPosition{FEN: l.FEN, ID: fmt.Sprintf("line %d", lineNo), Best: l.Ops["bm"], Avoid: l.Ops["am"]}
		if id := l.Ops["id"]; len(id) > 0 {
			pos.ID = strings.Join(id, " ")
		}
		if pos.best, err = l.Moves("bm"); err == nil {
			pos.avoid, err = l.Moves("am")
		}
		if err != nil {
			return bad.Add(strict, lineNo, err)
		}
		if len(pos.best)+len(pos.avoid) > 0 {
			list = append(list, pos)
		}
		return nil
	})
	if err != nil && !errors.Is(err, errEvalLimit) {
		return nil, nil, fmt.Errorf("--epd: %w", err)
	}
	if len(list) == 0 {
		return nil, nil, fmt.Errorf("--epd: %s has no position with a bm or am opcode", path)
	}
	return list, bad.orNil(), nil
}

// DefaultEPDMoveTime is a position's think time when no limit is given:
// the usual one of test suites such as WAC.
const DefaultEPDMoveTime = time.Second

// EPD plays every position of an EPD suite such as WAC and counts
// it solved when the move is one of its bm moves and none of its am moves,
// each in DefaultEPDMoveTime unless opts.Limits sets a depth, nodes or a
// time. done, when not nil, is called after each position.
func EPD(ctx context.Context, path string, opts Options, done func(*EPDPosition)) (*EPDReport, error) {
	if opts.Limits.Depth == 0 && opts.Limits.Nodes == 0 && opts.Limits.MoveTime == 0 {
		opts.Limits.MoveTime = DefaultEPDMoveTime
	}
	list, bad, err := ReadEPDSuite(path, opts.Limit, opts.Strict)
	if err != nil {
		return nil, err
	}
	p, err := player.NewFromSpec(ctx, opts.Player)
	if err != nil {
		return nil, err
	}
	defer p.Close()
	rep := &EPDReport{Player: p.Name(), Total: len(list), Skipped: bad}
	for i := range list {
		pos := &list[i]
		if err := ctx.Err(); err != nil {
			return nil, errors.New("eval interrupted")
		}
		// Each position is a new game: no table entries carry over.
		if err := p.NewGame(ctx); err != nil {
			return nil, err
		}
		b, _ := board.FromFEN(pos.FEN)
		mi, err := p.Move(ctx, player.Position{StartFEN: pos.FEN}, opts.Limits)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", pos.ID, err)
		}
		m, err := b.ParseUCI(mi.Move)
		if err != nil {
			pos.Played = mi.Move + " (illegal)"
		} else {
			pos.Played = b.SAN(m)
			pos.Solved = (len(pos.best) == 0 || slices.Contains(pos.best, m)) && !slices.Contains(pos.avoid, m)
		}
		if pos.Solved {
			rep.Solved++
		}
		if done != nil {
			done(pos)
		}
	}
	rep.Positions = list
	return rep, nil
}
