package pgn

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Eval is an evaluation written in a move's comment as [%eval ...], the
// way Lichess (and python-chess, chess.com, cutechess...) write one: of
// the position after the move, from White's point of view.
type Eval struct {
	// CP is the score in centipawns for White; Mate, when not 0, is the
	// number of moves to mate, positive when White mates.
	CP, Mate int32
	// Depth is the search depth when the command gives one
	// ([%eval 0.17,23]), 0 when unknown (Lichess writes none).
	Depth int
}

// CommentEval reads the [%eval ...] command of a comment: pawns from
// White's point of view (0.17, -1.5) or a mate (#3 White mates in three,
// #-3 Black does), optionally followed by ",depth". ok is false when the
// comment has no such command; err says why one that is there cannot be
// read.
func CommentEval(comment string) (e Eval, ok bool, err error) {
	arg, ok := commandArg(comment, "eval")
	if !ok {
		return Eval{}, false, nil
	}
	bad := func(why string) (Eval, bool, error) {
		return Eval{}, true, fmt.Errorf("[%%eval %s]: %s", arg, why)
	}
	score, depth, hasDepth := strings.Cut(arg, ",")
	if hasDepth {
		d, err := strconv.Atoi(strings.TrimSpace(depth))
		if err != nil || d < 0 {
			return bad("the depth after the comma is not a whole number")
		}
		e.Depth = d
	}
	score = strings.TrimSpace(score)
	if m, isMate := strings.CutPrefix(score, "#"); isMate {
		n, err := strconv.ParseInt(strings.TrimPrefix(m, "+"), 10, 32)
		if err != nil {
			return bad("want #N or #-N, a mate in N moves")
		}
		if n == 0 {
			return bad("a mate in 0 moves is no position to score")
		}
		e.Mate = int32(n)
		return e, true, nil
	}
	pawns, err := strconv.ParseFloat(score, 64)
	if err != nil || math.IsNaN(pawns) || math.IsInf(pawns, 0) {
		return bad("want pawns (0.17, -1.5) or a mate (#3, #-3)")
	}
	cp := math.Round(pawns * 100)
	if math.Abs(cp) > math.MaxInt32 {
		return bad("out of range")
	}
	e.CP = int32(cp)
	return e, true, nil
}

// CommentClock reads the [%clk H:MM:SS] command of a comment (the
// mover's clock after the move; seconds may have a fraction, 0:00:09.8,
// and the hours may be left out, 3:00). ok is false when the comment has
// no such command; err says why one that is there cannot be read.
func CommentClock(comment string) (d time.Duration, ok bool, err error) {
	arg, ok := commandArg(comment, "clk")
	if !ok {
		return 0, false, nil
	}
	parts := strings.Split(arg, ":")
	if len(parts) < 2 || len(parts) > 3 {
		return 0, true, fmt.Errorf("[%%clk %s]: want H:MM:SS", arg)
	}
	last := parts[len(parts)-1]
	secs, err := strconv.ParseFloat(last, 64)
	if err != nil || strings.Trim(last, "0123456789.") != "" || secs >= 60 {
		return 0, true, fmt.Errorf("[%%clk %s]: want H:MM:SS", arg)
	}
	total := secs
	unit := 60.0
	for i := len(parts) - 2; i >= 0; i-- {
		n, err := strconv.ParseUint(parts[i], 10, 32)
		if err != nil || i > 0 && n >= 60 {
			return 0, true, fmt.Errorf("[%%clk %s]: want H:MM:SS", arg)
		}
		total += float64(n) * unit
		unit *= 60
	}
	return time.Duration(math.Round(total*1000)) * time.Millisecond, true, nil
}

// commandArg finds `[%name arg]` in a comment and returns arg trimmed.
func commandArg(comment, name string) (string, bool) {
	for rest := comment; ; {
		i := strings.Index(rest, "[%")
		if i < 0 {
			return "", false
		}
		rest = rest[i+2:]
		after, ok := strings.CutPrefix(rest, name)
		if !ok || after == "" || (after[0] != ' ' && after[0] != '\t' && after[0] != '\n' && after[0] != '\r' && after[0] != ']') {
			continue
		}
		end := strings.IndexByte(after, ']')
		if end < 0 {
			return strings.TrimSpace(after), true
		}
		return strings.TrimSpace(after[:end]), true
	}
}
