// Package play is a game between a person, who types moves, and a
// player.Player, over a reader and a writer: the board drawn from the
// person's side, moves in SAN or UCI, and the commands moves, undo, resign
// and quit. dchess play runs it in a terminal; the caller saves the Result
// (AppendPGN) and tells a learning opponent about it.
package play

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/dchess/dchess/internal/chess/board"
	"github.com/dchess/dchess/search/match"
	"github.com/dchess/dchess/search/player"
)

// Options set up a Game.
type Options struct {
	// Opponent plays the side the human does not. The caller owns it: Run
	// neither closes it nor reports the result to it.
	Opponent player.Player
	// Human is the side whose moves are read from the input.
	Human board.Color
	// FEN is the start position; "" is the standard start.
	FEN string
	// Limits bound each of the opponent's moves.
	Limits player.Limits
	// Seed seeds an opponent that draws on chance (a player.GameSeeder)
	// before the game; 0 leaves its seeding as it is.
	Seed uint64
	// Pieces is how the board draws the pieces.
	Pieces Pieces
	// Width is the column lists of moves wrap at; 0 is 80.
	Width int
	// Name is the human's name on the board and in the PGN.
	Name string
}

// Pieces is how the board draws the pieces.
type Pieces int

const (
	// Letters are FEN's: White's capitals, Black's lower case, which read
	// the same on dark and light terminals.
	Letters Pieces = iota
	// Unicode are the chess glyphs (♔ ♚).
	Unicode
)

// ParseStart reads fen as the position a game starts from: "" is the
// standard start, and a position whose game is already over is refused.
func ParseStart(fen string) (*board.Board, error) {
	if fen == "" {
		fen = board.StartFEN
	}
	b, err := board.FromFEN(fen)
	if err != nil {
		return nil, err
	}
	if st := b.Status(); st != board.NotOver {
		return nil, fmt.Errorf("the game is already over (%v)", st)
	}
	return b, nil
}

// Game is a game set up to be played by Run, as often as wanted: each Run
// starts from the start position.
type Game struct {
	opts  Options
	start string // the start position's FEN as the board writes it
}

// New checks opts and sets up a game.
func New(opts Options) (*Game, error) {
	if opts.Opponent == nil {
		return nil, errors.New("play: no opponent")
	}
	if opts.Human != board.White && opts.Human != board.Black {
		return nil, fmt.Errorf("play: the human's side is %d, neither White nor Black", opts.Human)
	}
	if opts.Pieces != Letters && opts.Pieces != Unicode {
		return nil, fmt.Errorf("play: unknown Pieces %d", opts.Pieces)
	}
	b, err := ParseStart(opts.FEN)
	if err != nil {
		return nil, err
	}
	if opts.Width <= 0 {
		opts.Width = 80
	}
	return &Game{opts: opts, start: b.FEN()}, nil
}

// unfinished is the PGN result of a game still in progress.
const unfinished = "*"

// Result is a game Run played.
type Result struct {
	// White and Black are the players' names: the human's Name and the
	// opponent's.
	White, Black string
	// FEN is the start position.
	FEN string
	// Moves are the moves on the board at the end; taken-back ones are gone.
	Moves []match.PlayedMove
	// Outcome is the PGN result: "1-0", "0-1", "1/2-1/2", or "*" when the
	// human quit or the input ended first.
	Outcome string
	// Termination is why the game ended, one of match's Term* keys
	// (match.TermResignation, match.TermCheckmate, ...); "" when unfinished.
	Termination string
	// Reason says it in a sentence: "Black mates", "White resigns".
	Reason string
	// Started is when Run began: the PGN's Date.
	Started time.Time
}

// Finished says the game has a result, not "*".
func (r Result) Finished() bool { return r.Outcome != unfinished }

// FinishedGame is the game as player.NotifyGameOver reports it to a player
// that learns from its games.
func (r Result) FinishedGame() player.FinishedGame {
	uci := make([]string, len(r.Moves))
	for i, m := range r.Moves {
		uci[i] = m.UCI
	}
	return player.FinishedGame{Position: player.Position{StartFEN: r.FEN, Moves: uci}, Result: r.Outcome, Termination: r.Termination}
}

// Run plays the game from its start: it reads the human's moves and
// commands from in, a line each, and writes the board, the prompts and the
// opponent's moves to out, until the rules or the human's resignation end
// the game, the human quits or in ends. A game left unfinished is a Result
// that is not Finished. Errors are the input's and the opponent's (a
// failure, an illegal move, or ctx ending while it thinks).
func (g *Game) Run(ctx context.Context, in io.Reader, out io.Writer) (Result, error) {
	opp, human := g.opts.Opponent, g.opts.Human
	b, err := board.FromFEN(g.start)
	if err != nil {
		return Result{}, err
	}
	s := &runState{opts: g.opts, start: g.start, b: b, out: out}
	if seeder, ok := opp.(player.GameSeeder); ok && g.opts.Seed != 0 {
		seeder.SeedGame(g.opts.Seed)
	}
	if err := opp.NewGame(ctx); err != nil {
		return Result{}, err
	}
	fmt.Fprintf(out, "You play %s against %s. Type a move (e4, Nf3, g1f3), moves, undo, resign or quit.\n", human, opp.Name())

	lines := bufio.NewScanner(in)
	res := Result{White: g.opts.Name, Black: opp.Name(), FEN: g.start, Started: time.Now()}
	if human == board.Black {
		res.White, res.Black = res.Black, res.White
	}
	for res.Outcome == "" {
		if st := s.b.Status(); st != board.NotOver {
			res.Outcome, res.Termination, res.Reason = match.RulesEnd(s.b, st)
			break
		}
		if s.b.SideToMove() != human {
			if err := s.opponentMoves(ctx); err != nil {
				return Result{}, err
			}
			continue
		}
		s.draw()
		fmt.Fprintf(out, "Your move (%s): ", human)
		if !lines.Scan() {
			fmt.Fprintln(out)
			break
		}
		text := strings.TrimSpace(lines.Text())
		switch strings.ToLower(text) {
		case "":
			continue
		case "quit", "exit":
			res.Outcome = unfinished
			continue
		case "moves", "help", "?":
			fmt.Fprint(out, wrapMoves("Legal moves: ", s.legalSAN(), s.opts.Width))
			continue
		case "undo":
			s.undo()
			continue
		case "resign":
			res.Outcome, res.Termination, res.Reason = match.WinFor(human.Other()), match.TermResignation, match.ColorName(human)+" resigns"
			continue
		}
		m, ok := s.parse(text)
		if !ok {
			fmt.Fprint(out, wrapMoves(fmt.Sprintf("%q is not a legal move here. Legal moves: ", text), s.legalSAN(), s.opts.Width))
			continue
		}
		s.make(m, player.MoveInfo{Move: board.UCI(m)})
	}
	if err := lines.Err(); err != nil {
		return Result{}, err
	}
	res.Moves = s.moves
	if res.Outcome == "" {
		res.Outcome = unfinished
	}
	if !res.Finished() {
		return res, nil
	}
	s.draw()
	fmt.Fprintf(out, "%s: %s\n", res.Outcome, res.Reason)
	return res, nil
}

// runState is the state of one Run.
type runState struct {
	opts  Options
	start string
	b     *board.Board
	moves []match.PlayedMove
	out   io.Writer
}

// position is the game so far as players see it.
func (s *runState) position() player.Position {
	uci := make([]string, len(s.moves))
	for i, m := range s.moves {
		uci[i] = m.UCI
	}
	return player.Position{StartFEN: s.start, Moves: uci}
}

func (s *runState) opponentMoves(ctx context.Context) error {
	opp := s.opts.Opponent
	fmt.Fprintf(s.out, "%s is thinking...\n", opp.Name())
	info, err := opp.Move(ctx, s.position(), s.opts.Limits)
	if err != nil {
		return fmt.Errorf("%s failed: %w", opp.Name(), err)
	}
	m, err := s.b.ParseUCI(info.Move)
	if err != nil {
		return fmt.Errorf("%s played an illegal move: %s", opp.Name(), info.Move)
	}
	san := s.b.SAN(m)
	s.make(m, info)
	fmt.Fprintf(s.out, "%s plays %s\n", opp.Name(), san)
	return nil
}

func (s *runState) make(m board.Move, info player.MoveInfo) {
	s.moves = append(s.moves, match.PlayedMove{UCI: board.UCI(m), SAN: s.b.SAN(m), Info: info})
	s.b.Make(m)
}

// undo takes back the human's last move and the reply to it.
func (s *runState) undo() {
	first := 0 // index of the human's first move
	if start, _ := board.FromFEN(s.start); start.SideToMove() != s.opts.Human {
		first = 1
	}
	if len(s.moves) <= first {
		fmt.Fprintln(s.out, "Nothing to take back.")
		return
	}
	n := 0
	for len(s.moves) > first {
		s.b.Unmake()
		s.moves = s.moves[:len(s.moves)-1]
		n++
		if s.b.SideToMove() == s.opts.Human {
			break
		}
	}
	fmt.Fprintf(s.out, "Took back %d plies.\n", n)
}

// parse reads SAN (with check marks and annotations) or UCI.
func (s *runState) parse(text string) (board.Move, bool) {
	if m, err := s.b.ParseUCI(strings.ToLower(text)); err == nil {
		return m, true
	}
	san := strings.TrimRight(text, "+#!?")
	san = strings.ReplaceAll(san, "0-0", "O-O")
	if m, err := s.b.ParseSAN(san); err == nil {
		return m, true
	}
	return 0, false
}

func (s *runState) legalSAN() []string {
	moves := s.b.LegalMoves()
	out := make([]string, len(moves))
	for i, m := range moves {
		out[i] = s.b.SAN(m)
	}
	return out
}
