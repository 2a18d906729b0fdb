package match

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/dchess/dchess/internal/chess/board"
	"github.com/dchess/dchess/search/elo"
	"github.com/dchess/dchess/search/player"
)

// Termination keys, as counted in the report and its JSON.
const (
	TermCheckmate          = "checkmate"
	TermStalemate          = "stalemate"
	TermFiftyMoves         = "fifty_moves"
	TermRepetition         = "repetition"
	TermInsufficient       = "insufficient_material"
	TermDrawAdjudication   = "draw_adjudication"
	TermResignAdjudication = "resign_adjudication"
	TermMaxMoves           = "max_moves"
	TermIllegalMove        = "illegal_move"
	TermCrash              = "crash"
	TermStall              = "stall"
	TermTimeForfeit        = "time_forfeit"
	// TermResignation is a player's own resignation (dchess play's human).
	TermResignation = "resignation"
)

// PlayedMove is one engine move of a game.
type PlayedMove struct {
	UCI, SAN string
	Info     player.MoveInfo
	Elapsed  time.Duration
	// White says White played it.
	White bool
	// Clock is the time the mover had left after the move, its increment
	// (and a new control's time) added, when HasClock says the game was
	// played on a clock; the PGN writes it as [%clk H:MM:SS.s].
	Clock    time.Duration
	HasClock bool
}

// GameResult is one finished game.
type GameResult struct {
	Number       int // 1-based game number; games 2k-1 and 2k share an opening
	Opening      Opening
	White, Black string
	AIsWhite     bool
	Result       string // "1-0", "0-1" or "1/2-1/2"
	Termination  string // one of the Term* keys
	Reason       string // a sentence for the PGN, e.g. "Black makes an illegal move: a1a1"
	// FaultySide is "a" or "b" when a fault (an illegal move, a crash, a stall
	// or a loss on time) decided the game.
	FaultySide string
	Moves      []PlayedMove
	// Timed says the players moved on a clock or a fixed move time, where
	// the machine's load changes the game (Report counts slow games).
	Timed bool
	// Start and End are when the game began and ended (End is zero for a
	// game not played by a match: dchess play's).
	Start, End time.Time
	// PGNTimes adds Start, End and the game's duration to its PGN as the
	// tags cutechess-cli writes (Config.PGNTimes sets it).
	PGNTimes bool
}

// OutcomeForA is the game's result from player A's side.
func (g GameResult) OutcomeForA() elo.Outcome {
	switch {
	case g.Result == "1/2-1/2":
		return elo.Draw
	case (g.Result == "1-0") == g.AIsWhite:
		return elo.Win
	}
	return elo.Loss
}

// errAborted reports a game cut short by the match ending (SPRT decided,
// Ctrl-C); it is not counted.
var errAborted = errors.New("game aborted")

// crashGrace is how long a failed player waits for the run's own
// cancellation before it counts as a crash. A signal to the whole process
// group (Ctrl-C, a job scheduler's cancel) reaches a UCI engine's process
// as well as dchess, and the engine may die first: its game is cut short
// by the interruption, not lost by the engine, and must not be journalled.
const crashGrace = 250 * time.Millisecond

// cancelledSoon reports whether ctx ends within crashGrace.
func cancelledSoon(ctx context.Context) bool {
	t := time.NewTimer(crashGrace)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return true
	case <-t.C:
		return false
	}
}

// stallGrace is how long a player whose move deadline passed may take to
// return before it is given up on; a UCI engine gets "stop" and up to two
// seconds to answer it.
const stallGrace = 3 * time.Second

// seat is a player in one game.
type seat struct {
	p    player.Player
	name string
	side string // "a" or "b"
	// broken is set when the player crashed or stalled: the worker must
	// replace it before the next game.
	broken bool
}

type game struct {
	cfg      *Config
	number   int
	opening  Opening
	seats    [2]*seat // indexed by board.Color
	aIsWhite bool
	seed     uint64
}

// ColorName is a side's name as a game's reason writes it.
func ColorName(c board.Color) string {
	if c == board.White {
		return "White"
	}
	return "Black"
}

// WinFor is the PGN result of a win for c.
func WinFor(c board.Color) string {
	if c == board.White {
		return "1-0"
	}
	return "0-1"
}

// RulesEnd names the result, termination and reason of a game the rules
// ended in b; st is b.Status() and not board.NotOver.
func RulesEnd(b *board.Board, st board.Outcome) (result, term, reason string) {
	switch st {
	case board.Checkmate:
		winner := b.SideToMove().Other()
		return WinFor(winner), TermCheckmate, ColorName(winner) + " mates"
	case board.Stalemate:
		return "1/2-1/2", TermStalemate, "Draw by stalemate"
	case board.FiftyMoves:
		return "1/2-1/2", TermFiftyMoves, "Draw by fifty moves rule"
	case board.Repetition:
		return "1/2-1/2", TermRepetition, "Draw by 3-fold repetition"
	default:
		return "1/2-1/2", TermInsufficient, "Draw by insufficient mating material"
	}
}

func (g *game) play(ctx context.Context) (GameResult, error) {
	res := GameResult{Number: g.number, Opening: g.opening, White: g.seats[board.White].name,
		Black: g.seats[board.Black].name, AIsWhite: g.aIsWhite, Timed: g.cfg.timed(), Start: time.Now()}
	b, err := board.FromFEN(g.opening.FEN)
	if err != nil {
		return res, err
	}
	const draw = -1
	end := func(winner int, term, reason string) GameResult {
		res.Result = "1/2-1/2"
		if winner != draw {
			res.Result = WinFor(board.Color(winner))
		}
		res.Termination, res.Reason = term, reason
		return res
	}
	fault := func(c board.Color, term, reason string) GameResult {
		res.FaultySide = g.seats[c].side
		if term == TermCrash || term == TermStall {
			g.seats[c].broken = true
		}
		// A loss on time is a draw when the opponent cannot mate (FIDE 6.9).
		if term == TermTimeForfeit && onlyKing(b, c.Other()) {
			return end(draw, term, reason+"; the opponent cannot mate, so it is a draw")
		}
		return end(int(c.Other()), term, reason)
	}
	for c := board.White; c <= board.Black; c++ {
		s := g.seats[c]
		if seeder, ok := s.p.(player.GameSeeder); ok {
			seeder.SeedGame(g.seed ^ uint64(c))
		}
		if err := s.p.NewGame(ctx); err != nil {
			if cancelledSoon(ctx) {
				return res, errAborted
			}
			return fault(c, TermCrash, fmt.Sprintf("%s (%s) failed to start a game: %v", ColorName(c), s.name, err)), nil
		}
	}

	var clocks [2]time.Duration
	var movesMade [2]int
	tc := g.cfg.TimeControl
	if tc != nil {
		clocks = [2]time.Duration{tc.Base, tc.Base}
	}
	var drawCount int
	var resignCount [2]int
	pos := player.Position{StartFEN: g.opening.FEN}
	for {
		side := b.SideToMove()
		s := g.seats[side]
		lim := player.Limits{Depth: g.cfg.Depth, Nodes: g.cfg.Nodes, MoveTime: g.cfg.MoveTime, DefaultDepth: g.cfg.DefaultDepth}
		timeout := g.cfg.MoveTimeout
		if tc != nil {
			// A clock at or below zero would read as "no clock" to a player.
			lim.WTime, lim.BTime = max(clocks[board.White], time.Millisecond), max(clocks[board.Black], time.Millisecond)
			lim.WInc, lim.BInc = tc.Inc, tc.Inc
			if tc.Moves > 0 {
				lim.MovesToGo = tc.Moves - movesMade[side]%tc.Moves
			}
			timeout = max(clocks[side], 0) + g.cfg.TimeMargin
		}
		info, elapsed, err := callMove(ctx, s.p, pos, lim, timeout)
		if ctx.Err() != nil {
			return res, errAborted
		}
		if tc != nil {
			if elapsed > clocks[side]+g.cfg.TimeMargin {
				return fault(side, TermTimeForfeit, fmt.Sprintf("%s (%s) loses on time", ColorName(side), s.name)), nil
			}
			clocks[side] -= elapsed
			movesMade[side]++
			clocks[side] += tc.Inc
			if tc.Moves > 0 && movesMade[side]%tc.Moves == 0 {
				clocks[side] += tc.Base
			}
		}
		if err != nil {
			if errors.Is(err, errStalled) {
				return fault(side, TermStall, fmt.Sprintf("%s (%s) stalls: no move within %v", ColorName(side), s.name, timeout.Round(time.Millisecond))), nil
			}
			if cancelledSoon(ctx) {
				return res, errAborted
			}
			return fault(side, TermCrash, fmt.Sprintf("%s (%s) failed: %v", ColorName(side), s.name, err)), nil
		}
		m, err := b.ParseUCI(info.Move)
		if err != nil {
			return fault(side, TermIllegalMove, fmt.Sprintf("%s (%s) makes an illegal move: %s", ColorName(side), s.name, info.Move)), nil
		}
		res.Moves = append(res.Moves, PlayedMove{UCI: info.Move, SAN: b.SAN(m), Info: info, Elapsed: elapsed, White: side == board.White,
			Clock: clocks[side], HasClock: tc != nil})
		b.Make(m)
		pos.Moves = append(pos.Moves, info.Move)

		if st := b.Status(); st != board.NotOver {
			res.Result, res.Termination, res.Reason = RulesEnd(b, st)
			return res, nil
		}

		// Adjudication reads the scores the engines report for their own
		// side; a move without a score breaks a run, as in cutechess.
		if r := g.cfg.Resign; r != nil {
			if info.HasScore && info.Score <= -r.Score {
				resignCount[side]++
			} else {
				resignCount[side] = 0
			}
			if resignCount[side] >= r.MoveCount {
				return end(int(side.Other()), TermResignAdjudication,
					fmt.Sprintf("%s resigns (adjudication: score <= -%d for %d moves)", ColorName(side), r.Score, r.MoveCount)), nil
			}
		}
		if d := g.cfg.Draw; d != nil {
			if info.HasScore && abs(info.Score) <= d.Score {
				drawCount++
			} else {
				drawCount = 0
			}
			if b.FullmoveNumber() > d.MoveNumber && drawCount >= 2*d.MoveCount {
				return end(draw, TermDrawAdjudication, "Draw by adjudication"), nil
			}
		}
		if g.cfg.MaxMoves > 0 && b.FullmoveNumber() > g.cfg.MaxMoves {
			return end(draw, TermMaxMoves, fmt.Sprintf("Draw by adjudication: move %d reached", g.cfg.MaxMoves)), nil
		}
	}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// onlyKing says whether side has nothing but its king.
func onlyKing(b *board.Board, side board.Color) bool {
	p := b.Pieces(side)
	return p.All == p.Kings
}

// errStalled is a move that did not arrive before its deadline.
var errStalled = errors.New("no move before the deadline")

// callMove asks p for a move, bounded by timeout. The player's context ends
// at the deadline; one that still has not answered stallGrace later is
// abandoned (its goroutine is left to finish on its own) and the caller
// must discard the player.
func callMove(ctx context.Context, p player.Player, pos player.Position, lim player.Limits, timeout time.Duration) (player.MoveInfo, time.Duration, error) {
	moveCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	type answer struct {
		info player.MoveInfo
		err  error
	}
	answers := make(chan answer, 1)
	start := time.Now()
	// The position's move list is shared with later moves; give the
	// player its own copy since an abandoned player may still read it.
	pos.Moves = append([]string(nil), pos.Moves...)
	go func() {
		info, err := p.Move(moveCtx, pos, lim)
		answers <- answer{info, err}
	}()
	var a answer
	select {
	case a = <-answers:
	case <-moveCtx.Done():
		select {
		case a = <-answers:
		case <-time.After(stallGrace):
			return player.MoveInfo{}, time.Since(start), errStalled
		}
	}
	elapsed := time.Since(start)
	if moveCtx.Err() == context.DeadlineExceeded && ctx.Err() == nil {
		// An answer forced by the deadline is not a move in time.
		return a.info, elapsed, errStalled
	}
	return a.info, elapsed, a.err
}
