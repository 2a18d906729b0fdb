package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/dchess/dchess/search/player"
	"github.com/dchess/dchess/search/uciengine"
)

type uciOptions struct {
	Player string
}

func newUCICmd(s *IOStreams) *cobra.Command {
	opts := &uciOptions{}
	cmd := &cobra.Command{
		Use:   "uci --player SPEC",
		Short: "Run a player as a UCI engine on standard input and output",
		Long: `Speaks the Universal Chess Interface on stdin/stdout, so any GUI or match tool
(cutechess, Arena, lichess-bot, another dchess) can play the player. It supports
uci, isready, setoption (Hash, Threads, Depth), ucinewgame, position startpos|fen ... moves ...,
go with depth/nodes/movetime/wtime/btime/winc/binc/movestogo/infinite, stop and quit.
End of input is quit, as for Stockfish: a running search stops and sends its
bestmove, so a script that pipes commands in keeps its input open until the
answer has come.`,
		Example: `  dchess uci --player heuristic
  cutechess-cli -engine cmd="dchess uci --player cnn:runs/cnn/model.dcw" -engine cmd=stockfish ...
  (printf 'uci\nposition startpos\ngo depth 5\n'; sleep 1) | dchess uci --player heuristic`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runUCI(cmd.Context(), opts, s) },
	}
	cmd.Flags().StringVar(&opts.Player, "player", "heuristic", "player SPEC to run")
	return cmd
}

func runUCI(ctx context.Context, opts *uciOptions, s *IOStreams) error {
	if ctx == nil {
		ctx = context.Background()
	}
	spec, err := playerFlag("player", opts.Player)
	if err != nil {
		return err
	}
	// Make the player once now, so a bad spec fails at start with a clear
	// error rather than as an "info string" a GUI may hide.
	p, err := player.NewFromSpec(ctx, spec)
	if err != nil {
		return err
	}
	p.Close()
	return uciengine.Run(ctx, s.In, s.Out, spec, version)
}
