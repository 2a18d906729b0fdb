package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/dchess/dchess/search/play"
	"github.com/dchess/dchess/search/player"
)

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

func runPlay(ctx context.Context, opts *playOptions, s *IOStreams) error {
	if opts.Player == "" {
		return usagef("--player is required (a SPEC such as heuristic:depth=3)")
	}
	human, err := play.ParseSide(opts.Color)
	if err != nil {
		return usagef("--color %v", err)
	}
	if opts.Depth < 0 || opts.MoveTimeMS < 0 || opts.Width < 0 {
		return usagef("--depth, --movetime and --width must not be negative")
	}
	pieces, err := play.ParsePieces(opts.Pieces)
	if err != nil {
		return usagef("--pieces %v", err)
	}
	width := opts.Width
	if width == 0 {
		width = play.TerminalWidth(s.Out)
	}
	spec, err := playerFlag("player", opts.Player)
	if err != nil {
		return err
	}
	// The start is checked before the opponent is built, which may start an
	// engine or load a model.
	if _, err := play.ParseStart(opts.FEN); err != nil {
		return usagef("--fen: %v", err)
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
	game, err := play.New(play.Options{Opponent: opp, Human: human, FEN: opts.FEN, Seed: seed, Pieces: pieces, Width: width, Name: opts.Name,
		Limits: player.Limits{Depth: opts.Depth, MoveTime: time.Duration(opts.MoveTimeMS) * time.Millisecond}})
	if err != nil {
		return err
	}
	res, err := game.Run(ctx, s.In, s.Out)
	if err != nil {
		return err
	}
	if !res.Finished() {
		fmt.Fprintln(s.Out, "Game left unfinished; nothing saved.")
		return nil
	}
	if err := play.AppendPGN(opts.PGN, res); err != nil {
		return fmt.Errorf("--pgn: %w", err)
	}
	fmt.Fprintf(s.Out, "Saved to %s\n", opts.PGN)
	// A learning player (experience:FILE.db?learn=true) adds the game to its
	// tree; the game is saved first, so a failure here loses nothing.
	return player.NotifyGameOver(ctx, opp, res.FinishedGame())
}
