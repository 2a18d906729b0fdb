package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/dchess/dchess/models/family"
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
(fastchess, cutechess, Arena, lichess-bot, another dchess) can play the player. It supports
uci, isready, setoption (Hash, Threads, Depth, Move Overhead, UCI_ShowWDL), ucinewgame, position startpos|fen ... moves ...,
go with depth/nodes/movetime/wtime/btime/winc/binc/movestogo/infinite/searchmoves, stop and quit.
bestmove is always the first move of the last pv sent, whose score is the played move's.
A bare model name (--player cnn) plays the newest weights under the runs/ of the folder
the engine is started in (else the shipped ones): id name names the file and an
info string says where it came from; name a file (cnn:PATH) to pin it.
End of input is quit, as for Stockfish: a running search stops and sends its
bestmove, so a script that pipes commands in keeps its input open until the
answer has come.

Match tools start the engine themselves and take the binary and its arguments
apart: fastchess takes cmd= and the arguments in one args="...", cutechess-cli
one arg= per argument; a whole command line in cmd= does not start.`,
		Example: `  dchess uci --player heuristic
  fastchess -engine cmd=dchess args="uci --player nnue" name=dchess -engine cmd=stockfish name=stockfish -each tc=10+0.1 -rounds 20
  cutechess-cli -engine cmd=dchess arg=uci arg=--player arg=nnue name=dchess -engine cmd=stockfish -each proto=uci tc=10+0.1 -rounds 20
  cutechess-cli -engine cmd=dchess arg=uci arg=--player arg=cnn:runs/cnn/model.dcw -engine cmd=stockfish -each proto=uci tc=10+0.1
  (printf 'uci\nposition startpos\ngo depth 5\n'; sleep 1) | dchess uci --player heuristic`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runUCI(cmd.Context(), opts, s) },
	}
	cmd.Flags().StringVar(&opts.Player, "player", "heuristic", "player SPEC to run")
	return cmd
}

func runUCI(ctx context.Context, opts *uciOptions, s *IOStreams) error {
	spec, err := playerFlag("player", opts.Player)
	if err != nil {
		return err
	}
	pin, err := family.PinWeights(family.DefaultRunsDir, spec)
	if err != nil {
		return err
	}
	spec = pin.Spec
	cfg := uciengine.Config{Version: version, Weights: pin.Shown}
	if pin.Note != "" {
		cfg.Notes = []string{pin.Note}
	}
	// A bare proposer= too: one file for the engine's whole life.
	if spec, err = player.ResolveWeights(ctx, spec); err != nil {
		return err
	}
	// Make the player once now, so a bad spec fails at start with a clear
	// error rather than as an "info string" a GUI may hide.
	p, err := player.NewFromSpec(ctx, spec)
	if err != nil {
		return err
	}
	p.Close()
	return uciengine.RunWith(ctx, s.In, s.Out, spec, cfg)
}
