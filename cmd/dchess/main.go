// Command dchess turns PGN dumps and Stockfish labels into datasets, trains
// learned chess evaluators with Gorgonia and measures them in engine matches.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/dchess/dchess/models/families"
)

func main() {
	// The first Ctrl-C cancels the context so long commands can flush and
	// save; a second one falls through to the default handler and kills.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop()
	}()
	families.RegisterAll()
	streams := SystemStreams()
	cmd, err := newRootCmd(streams).ExecuteContextC(ctx)
	stop()
	if code := reportError(streams.ErrOut, cmd, err); code != 0 {
		os.Exit(code)
	}
}
