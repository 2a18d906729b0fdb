package dataset

import (
	"fmt"
	"strconv"

	"github.com/dchess/dchess/internal/chess/binpack"
	"github.com/dchess/dchess/internal/chess/board"
	"github.com/dchess/dchess/internal/chess/pgn"
)

// Scores in the NNUE trainers' formats. A mate is written as ±MateScore
// (Stockfish's VALUE_MATE; the distance to mate is not kept), and a
// centipawn score is clamped to ±MaxCPScore, so that no centipawn score
// reads back as a mate: readers take any score from MateThreshold
// (Stockfish's VALUE_MATE_IN_MAX_PLY) up as a mate, as Stockfish's
// generators store mate in n plies as VALUE_MATE - n.
const (
	MateScore     = 32000
	MateThreshold = 31754
	MaxCPScore    = MateThreshold - 1
)

// NNUEScore is a label's score as the NNUE formats store it, from the side
// to move: centipawns clamped to ±MaxCPScore, a mate as ±MateScore.
func NNUEScore(l *Label) int16 {
	switch {
	case l.Mate > 0:
		return MateScore
	case l.Mate < 0:
		return -MateScore
	}
	return int16(min(max(l.CP, -MaxCPScore), MaxCPScore))
}

// LabelFromNNUEScore is the inverse of NNUEScore: a score from
// MateThreshold up is a mate in (MateScore-|score|+1)/2 moves (at least
// one), anything else centipawns.
func LabelFromNNUEScore(score int) (cp, mate int32) {
	switch {
	case score >= MateThreshold:
		return 0, int32(max((MateScore-score+1)/2, 1))
	case score <= -MateThreshold:
		return 0, -int32(max((MateScore+score+1)/2, 1))
	}
	return int32(score), 0
}

// ExportStats says what an export wrote and why it left records out.
type ExportStats struct {
	Written int64 `json:"written"`
	// Unlabelled counts records without a successful label, which the
	// plain, binpack and bullet formats (and --quiet-only) cannot write.
	Unlabelled int64 `json:"unlabelled"`
	// NoMove counts labelled records with neither a best move nor a played
	// move, which plain and binpack need.
	NoMove int64 `json:"no_move"`
	// NotQuiet counts labelled records that QuietOnly left out.
	NotQuiet int64 `json:"not_quiet"`
	// UnknownResult counts records whose game result is unknown: written
	// as draws, or left out with SkipUnknownResult.
	UnknownResult int64 `json:"unknown_result"`
	// Invalid counts records the format cannot hold (a position or move
	// that is not legal chess, a ply past binpack's 16383); FirstInvalid
	// says why the first one was left out.
	Invalid      int64  `json:"invalid"`
	FirstInvalid string `json:"first_invalid,omitempty"`
}

func (s *ExportStats) invalid(r *Record, err error) {
	s.Invalid++
	if s.FirstInvalid == "" {
		s.FirstInvalid = fmt.Sprintf("%s: %v", r.FEN, err)
	}
}

// quietOf reports whether r is a quiet labelled position (Label.Quiet: not
// in check, the best move not a capture); ok is false when r has no
// successful label or its FEN or best move does not parse.
func quietOf(r *Record) (quiet, ok bool) {
	if r.Label == nil || r.Label.Status != LabelOK {
		return false, false
	}
	b, err := board.FromFEN(r.FEN)
	if err != nil {
		return false, false
	}
	q, err := r.Label.Quiet(b)
	return q, err == nil
}

// resultForSideToMove turns a game result (White's view) into 1, 0 or -1
// for the side to move; known is false for an unknown result.
func resultForSideToMove(r pgn.Result, stm board.Color) (res int8, known bool) {
	switch r {
	case pgn.WhiteWin:
		res = 1
	case pgn.BlackWin:
		res = -1
	case pgn.Draw:
		res = 0
	default:
		return 0, false
	}
	if stm == board.Black {
		res = -res
	}
	return res, true
}

// nnueExporter turns records into the NNUE formats' entries and counts
// what it leaves out.
type nnueExporter struct {
	opts  *ExportOptions
	stats *ExportStats
}

// entry returns r as a plain/binpack entry, with its position parsed; ok
// is false when r is left out (and counted). The move is the label's best
// move, or the played move when the label has none: Stockfish's
// generators store the search's best move, and nnue-pytorch's filter skips
// positions whose stored move captures. The ply is the FEN's, so the move
// number reads back the same from a binpack.
func (x *nnueExporter) entry(r *Record, needMove bool) (e binpack.Entry, b *board.Board, ok bool) {
	if r.Label == nil || r.Label.Status != LabelOK {
		x.stats.Unlabelled++
		return e, nil, false
	}
	b, err := board.FromFEN(r.FEN)
	if err != nil {
		x.stats.invalid(r, err)
		return e, nil, false
	}
	if x.opts.QuietOnly {
		quiet, err := r.Label.Quiet(b)
		if err != nil {
			x.stats.invalid(r, err)
			return e, nil, false
		}
		if !quiet {
			x.stats.NotQuiet++
			return e, nil, false
		}
	}
	e.Move = r.Label.BestMove
	if e.Move == "" {
		e.Move = r.Move
	}
	if needMove {
		if e.Move == "" {
			x.stats.NoMove++
			return e, nil, false
		}
		if _, err := b.ParseUCI(e.Move); err != nil {
			x.stats.invalid(r, err)
			return e, nil, false
		}
	}
	res, known := resultForSideToMove(r.Result, b.SideToMove())
	if !known {
		x.stats.UnknownResult++
		if x.opts.SkipUnknownResult {
			return e, nil, false
		}
	}
	ply := binpack.PlyOf(b)
	if needMove && ply > binpack.MaxPly {
		x.stats.invalid(r, fmt.Errorf("ply %d is past binpack's %d", ply, binpack.MaxPly))
		return e, nil, false
	}
	e.FEN = binpack.FEN(b)
	e.Score = NNUEScore(r.Label)
	e.Ply = uint16(ply)
	e.Result = res
	return e, b, true
}

// bulletLine is r as a line of bullet's text format, "FEN | score | wdl",
// score and result from White's view (the result 1.0, 0.5 or 0.0).
func bulletLine(buf []byte, r *Record, e *binpack.Entry, b *board.Board) []byte {
	score, res := int(e.Score), e.Result
	if b.SideToMove() == board.Black {
		score, res = -score, -res
	}
	buf = append(buf, r.FEN...)
	buf = append(buf, " | "...)
	buf = strconv.AppendInt(buf, int64(score), 10)
	buf = append(buf, " | "...)
	buf = append(buf, [...]string{"0.0", "0.5", "1.0"}[res+1]...)
	return append(buf, '\n')
}
