package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/dchess/dchess/search/board"
	"github.com/dchess/dchess/search/match"
	"github.com/dchess/dchess/search/player"
)

func init() { register(newPlayCmd) }

type playOptions struct {
	Player     string
	Color      string
	FEN        string
	PGN        string
	Depth      int
	MoveTimeMS int
	Seed       uint64
	Name       string
	Pieces     string
	Width      int
}

func newPlayCmd(s *IOStreams) *cobra.Command {
	opts := &playOptions{}
	cmd := &cobra.Command{
		Use:   "play --player SPEC [--color white|black]",
		Short: "Play a game against any player in the terminal",
		Long: `play is seed 002's player-versus-computer mode. The board is drawn from your side,
White's pieces as capitals (K Q R B N P) and Black's in lower case, which reads the same
on dark and light terminals (--pieces unicode draws chess glyphs instead; each side is
labelled either way). Type moves in SAN (Nf3, exd5, O-O, e8=Q) or UCI (g1f3, e7e8q).
Illegal input is answered with the legal moves. Commands: moves (list the legal moves),
undo (take back your last move and the reply), resign, quit.

When the game ends it is appended to --pgn. With an experience player that learns
(experience:FILE.db?learn=true) the finished game is added to its tree.`,
		Example: `  dchess play --player heuristic:depth=3
  dchess play --player "experience:exp.db?learn=true&fallback=heuristic%3Adepth%3D2" --color black
  dchess play --player cnn --fen "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runPlay(cmd.Context(), opts, s) },
	}
	f := cmd.Flags()
	f.StringVar(&opts.Player, "player", "", "the opponent's SPEC (required)")
	f.StringVar(&opts.Color, "color", "white", "your side: white or black")
	f.StringVar(&opts.FEN, "fen", "", "start position (default: the standard start)")
	f.StringVar(&opts.PGN, "pgn", "play.pgn", "PGN file the finished game is appended to")
	f.IntVar(&opts.Depth, "depth", 0, "search depth of the opponent's moves (default: its own)")
	f.IntVar(&opts.MoveTimeMS, "movetime", 0, "milliseconds per opponent move")
	f.Uint64Var(&opts.Seed, "seed", 0, "seed of a random opponent (default: from the clock)")
	f.StringVar(&opts.Pieces, "pieces", "letters", "how pieces are drawn: letters (White capitals, Black lower case) or unicode")
	f.IntVar(&opts.Width, "width", 0, "columns the legal-move list wraps at (default: the terminal's width, else 80)")
	f.StringVar(&opts.Name, "name", "You", "your name in the PGN")
	return cmd
}

// playGame is the state of one game in the terminal.
type playGame struct {
	b      *board.Board
	start  string
	moves  []match.PlayedMove
	human  board.Color
	name   string // the human's
	opp    player.Player
	out    io.Writer
	limits player.Limits
	pieces *[2][7]string
	width  int // columns the move lists wrap at
}

func runPlay(ctx context.Context, opts *playOptions, s *IOStreams) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if opts.Player == "" {
		return usagef("--player is required (a SPEC such as heuristic:depth=3)")
	}
	var human board.Color
	switch strings.ToLower(opts.Color) {
	case "white", "w":
		human = board.White
	case "black", "b":
		human = board.Black
	default:
		return usagef("--color must be white or black, got %q", opts.Color)
	}
	if opts.Depth < 0 || opts.MoveTimeMS < 0 || opts.Width < 0 {
		return usagef("--depth, --movetime and --width must not be negative")
	}
	pieces := &letterPieces
	switch strings.ToLower(opts.Pieces) {
	case "letters", "":
	case "unicode":
		pieces = &unicodePieces
	default:
		return usagef("--pieces must be letters or unicode, got %q", opts.Pieces)
	}
	width := opts.Width
	if width == 0 {
		width = terminalWidth(s.Out)
	}
	spec, err := playerFlag("player", opts.Player)
	if err != nil {
		return err
	}
	start := opts.FEN
	if start == "" {
		start = board.StartFEN
	}
	b, err := board.FromFEN(start)
	if err != nil {
		return usagef("--fen: %v", err)
	}
	if b.Status() != board.NotOver {
		return usagef("--fen: the game is already over (%v)", b.Status())
	}
	opp, err := player.NewFromSpec(ctx, spec)
	if err != nil {
		return err
	}
	defer opp.Close()
	seed := opts.Seed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	if seeder, ok := opp.(player.GameSeeder); ok {
		seeder.SeedGame(seed)
	}
	if err := opp.NewGame(ctx); err != nil {
		return err
	}
	g := &playGame{b: b, start: b.FEN(), human: human, name: opts.Name, opp: opp, out: s.Out, pieces: pieces, width: width,
		limits: player.Limits{Depth: opts.Depth, MoveTime: time.Duration(opts.MoveTimeMS) * time.Millisecond}}
	fmt.Fprintf(s.Out, "You play %s against %s. Type a move (e4, Nf3, g1f3), moves, undo, resign or quit.\n", human, opp.Name())

	in := bufio.NewScanner(s.In)
	began := time.Now()
	result, term, reason := "", "", ""
	for result == "" {
		if st := g.b.Status(); st != board.NotOver {
			result, term, reason = match.RulesEnd(g.b, st)
			break
		}
		if g.b.SideToMove() != human {
			if err := g.opponentMoves(ctx); err != nil {
				return err
			}
			continue
		}
		g.draw()
		fmt.Fprintf(s.Out, "Your move (%s): ", human)
		if !in.Scan() {
			fmt.Fprintln(s.Out)
			break
		}
		text := strings.TrimSpace(in.Text())
		switch strings.ToLower(text) {
		case "":
			continue
		case "quit", "exit":
			result = "*"
			continue
		case "moves", "help", "?":
			fmt.Fprint(s.Out, wrapMoves("Legal moves: ", g.legalSAN(), g.width))
			continue
		case "undo":
			g.undo()
			continue
		case "resign":
			result, term, reason = match.WinFor(human.Other()), match.TermResignation, match.ColorName(human)+" resigns"
			continue
		}
		m, ok := g.parse(text)
		if !ok {
			fmt.Fprint(s.Out, wrapMoves(fmt.Sprintf("%q is not a legal move here. Legal moves: ", text), g.legalSAN(), g.width))
			continue
		}
		g.make(m, player.MoveInfo{Move: board.UCI(m)})
	}
	if err := in.Err(); err != nil {
		return err
	}
	if result == "" || result == "*" {
		fmt.Fprintln(s.Out, "Game left unfinished; nothing saved.")
		return nil
	}
	g.draw()
	fmt.Fprintf(s.Out, "%s: %s\n", result, reason)

	white, black := opts.Name, opp.Name()
	if human == board.Black {
		white, black = black, white
	}
	res := match.GameResult{Number: 1, Opening: match.Opening{FEN: g.start}, White: white, Black: black,
		AIsWhite: human == board.White, Result: result, Termination: term, Reason: reason, Moves: g.moves, Start: began}
	if err := appendPGN(opts.PGN, res); err != nil {
		return err
	}
	fmt.Fprintf(s.Out, "Saved to %s\n", opts.PGN)
	uci := make([]string, len(g.moves))
	for i, m := range g.moves {
		uci[i] = m.UCI
	}
	return player.NotifyGameOver(ctx, opp, player.FinishedGame{
		Position: player.Position{StartFEN: g.start, Moves: uci}, Result: result, Termination: term})
}

func (g *playGame) opponentMoves(ctx context.Context) error {
	fmt.Fprintf(g.out, "%s is thinking...\n", g.opp.Name())
	uci := make([]string, len(g.moves))
	for i, m := range g.moves {
		uci[i] = m.UCI
	}
	info, err := g.opp.Move(ctx, player.Position{StartFEN: g.start, Moves: uci}, g.limits)
	if err != nil {
		return fmt.Errorf("%s failed: %w", g.opp.Name(), err)
	}
	m, err := g.b.ParseUCI(info.Move)
	if err != nil {
		return fmt.Errorf("%s played an illegal move: %s", g.opp.Name(), info.Move)
	}
	san := g.b.SAN(m)
	g.make(m, info)
	fmt.Fprintf(g.out, "%s plays %s\n", g.opp.Name(), san)
	return nil
}

func (g *playGame) make(m board.Move, info player.MoveInfo) {
	g.moves = append(g.moves, match.PlayedMove{UCI: board.UCI(m), SAN: g.b.SAN(m), Info: info})
	g.b.Make(m)
}

// undo takes back the human's last move and the reply to it.
func (g *playGame) undo() {
	first := 0 // index of the human's first move
	if start, _ := board.FromFEN(g.start); start.SideToMove() != g.human {
		first = 1
	}
	if len(g.moves) <= first {
		fmt.Fprintln(g.out, "Nothing to take back.")
		return
	}
	n := 0
	for len(g.moves) > first {
		g.b.Unmake()
		g.moves = g.moves[:len(g.moves)-1]
		n++
		if g.b.SideToMove() == g.human {
			break
		}
	}
	fmt.Fprintf(g.out, "Took back %d plies.\n", n)
}

// parse reads SAN (with check marks and annotations) or UCI.
func (g *playGame) parse(text string) (board.Move, bool) {
	if m, err := g.b.ParseUCI(strings.ToLower(text)); err == nil {
		return m, true
	}
	san := strings.TrimRight(text, "+#!?")
	san = strings.ReplaceAll(san, "0-0", "O-O")
	if m, err := g.b.ParseSAN(san); err == nil {
		return m, true
	}
	return 0, false
}

func (g *playGame) legalSAN() []string {
	moves := g.b.LegalMoves()
	out := make([]string, len(moves))
	for i, m := range moves {
		out[i] = g.b.SAN(m)
	}
	return out
}

// letterPieces are FEN's letters of [colour][piece]: capitals for White.
var letterPieces = [2][7]string{
	board.White: {board.Pawn: "P", board.Knight: "N", board.Bishop: "B", board.Rook: "R", board.Queen: "Q", board.King: "K"},
	board.Black: {board.Pawn: "p", board.Knight: "n", board.Bishop: "b", board.Rook: "r", board.Queen: "q", board.King: "k"},
}

// unicodePieces are the glyphs of [colour][piece]. On a dark terminal the
// outlined "white" glyphs look darker than the filled "black" ones, so the
// board labels each side.
var unicodePieces = [2][7]string{
	board.White: {board.Pawn: "♙", board.Knight: "♘", board.Bishop: "♗", board.Rook: "♖", board.Queen: "♕", board.King: "♔"},
	board.Black: {board.Pawn: "♟", board.Knight: "♞", board.Bishop: "♝", board.Rook: "♜", board.Queen: "♛", board.King: "♚"},
}

// sideLabel names a side and how its pieces are drawn:
// "White (capitals): You", "Black (♚ ♛ ♜): heuristic".
func (g *playGame) sideLabel(c board.Color) string {
	who := g.opp.Name()
	if c == g.human {
		who = g.name
	}
	look := "capitals"
	switch {
	case g.pieces == &unicodePieces:
		look = strings.Join([]string{g.pieces[c][board.King], g.pieces[c][board.Queen], g.pieces[c][board.Rook]}, " ")
	case c == board.Black:
		look = "lower case"
	}
	return fmt.Sprintf("  %s (%s): %s\n", match.ColorName(c), look, who)
}

// draw prints the board from the human's side, each side labelled, with
// the last move.
func (g *playGame) draw() {
	var sb strings.Builder
	sb.WriteByte('\n')
	sb.WriteString(g.sideLabel(g.human.Other()))
	for row := range 8 {
		rank := 7 - row
		if g.human == board.Black {
			rank = row
		}
		fmt.Fprintf(&sb, "%d ", rank+1)
		for col := range 8 {
			file := col
			if g.human == board.Black {
				file = 7 - col
			}
			p, c := g.b.PieceAt(uint8(rank*8 + file))
			if p == board.NoPiece {
				sb.WriteString("·")
			} else {
				sb.WriteString(g.pieces[c][p])
			}
			sb.WriteByte(' ')
		}
		sb.WriteByte('\n')
	}
	if g.human == board.White {
		sb.WriteString("  a b c d e f g h\n")
	} else {
		sb.WriteString("  h g f e d c b a\n")
	}
	sb.WriteString(g.sideLabel(g.human))
	if n := len(g.moves); n > 0 {
		fmt.Fprintf(&sb, "Last move: %s\n", g.moves[n-1].SAN)
	}
	if g.b.InCheck() {
		sb.WriteString("Check!\n")
	}
	io.WriteString(g.out, sb.String())
}

// wrapMoves writes prefix and the moves separated by spaces, breaking lines
// only between moves so that none is longer than width columns (a move
// longer than a line gets a line of its own); continuation lines are
// indented by two spaces.
func wrapMoves(prefix string, moves []string, width int) string {
	var sb strings.Builder
	sb.WriteString(prefix)
	column := utf8.RuneCountInString(prefix)
	for i, m := range moves {
		n, gap := utf8.RuneCountInString(m), min(i, 1)
		if column > 2 && column+gap+n > width {
			sb.WriteString("\n  ")
			column, gap = 2, 0
		}
		sb.WriteString(" "[:gap] + m)
		column += gap + n
	}
	sb.WriteByte('\n')
	return sb.String()
}

// terminalWidth is w's width in columns when it is a terminal, else 80.
func terminalWidth(w io.Writer) int {
	if f, ok := w.(*os.File); ok {
		if width, _, err := term.GetSize(int(f.Fd())); err == nil && width > 0 {
			return width
		}
	}
	return 80
}

// appendPGN adds the game to the end of path.
func appendPGN(path string, g match.GameResult) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("--pgn: %w", err)
	}
	if err := match.WritePGN(f, g, "dchess play", "-"); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return errors.Join(fmt.Errorf("writing %s", path), err)
	}
	return nil
}
