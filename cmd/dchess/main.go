// Command dchess turns PGN dumps and Stockfish labels into datasets, trains
// learned chess evaluators with Gorgonia and measures them in engine matches.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	// The first Ctrl-C cancels the context so long commands can flush and
	// save; a second one falls through to the default handler and kills.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop()
	}()
	streams := SystemStreams()
	root := newRootCmd(streams)
	err := root.ExecuteContext(ctx)
	stop()
	if err != nil {
		var usage *usageError
		if errors.As(err, &usage) {
			fmt.Fprintf(streams.ErrOut, "dchess: %v\n", err)
			os.Exit(2)
		}
		fmt.Fprintf(streams.ErrOut, "dchess: %v\n", err)
		os.Exit(1)
	}
}
