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
// time. done, when not nil, is called after each position, in the suite's
// order.
func EPD(ctx context.Context, path string, opts Options, done func(*EPDPosition)) (*EPDReport, error) {
	if opts.Limits.Depth == 0 && opts.Limits.Nodes == 0 && opts.Limits.MoveTime == 0 {
		opts.Limits.MoveTime = DefaultEPDMoveTime
	}
	list, bad, err := ReadEPDSuite(path, opts.Limit, opts.Strict)
	if err != nil {
		return nil, err
	}
	players, closePlayers, err := newPlayers(ctx, opts.Player, opts.workerCount(int64(len(list))))
	if err != nil {
		return nil, err
	}
	defer closePlayers()
	score := make([]func(context.Context, int, int) (string, error), len(players))
	for k, p := range players {
		score[k] = func(ctx context.Context, _, i int) (string, error) {
			return playEPD(ctx, p, i, &list[i], opts.Limits)
		}
	}
	rep := &EPDReport{Player: players[0].Name(), Total: len(list), Skipped: bad}
	err = scoreInOrder(ctx, score, emitIndices(len(list)), func(i int, played string) error {
		pos := &list[i]
		b, _ := board.FromFEN(pos.FEN)
		m, err := b.ParseUCI(played)
		if err != nil {
			pos.Played = played + " (illegal)"
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
		return nil
	})
	if err != nil {
		return nil, err
	}
	rep.Positions = list
	return rep, nil
}

// playEPD is the move p plays in the suite's position numbered i, as a new
// game: no table entries carry over.
func playEPD(ctx context.Context, p player.Player, i int, pos *EPDPosition, lim player.Limits) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", errors.New("eval interrupted")
	}
	if err := newItem(ctx, p, i); err != nil {
		return "", err
	}
	mi, err := p.Move(ctx, player.Position{StartFEN: pos.FEN}, lim)
	if err != nil {
		return "", fmt.Errorf("%s: %w", pos.ID, err)
	}
	return mi.Move, nil
}
