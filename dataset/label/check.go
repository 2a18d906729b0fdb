package label

import (
	"errors"
	"fmt"
)

// Check reports the first option dchess label cannot run with, in the
// words of its flags. It is stricter than Run, which reads a zero Workers,
// Hash or MultiPV as its default: the command gives those defaults itself,
// so a zero there was typed.
func (o Options) Check() error {
	limits := 0
	for _, set := range []bool{o.Depth != 0, o.Nodes != 0, o.MoveTime != 0} {
		if set {
			limits++
		}
	}
	switch {
	case o.Stockfish == "":
		return errors.New("label needs --stockfish PATH (Debian's stockfish package installs /usr/games/stockfish)")
	case o.Input == "" || o.Output == "":
		return errors.New("label needs an input dataset (-i) and an output dataset (-o)")
	case limits > 1:
		return errors.New("give at most one of --depth, --nodes and --movetime")
	case o.Depth < 0 || o.Nodes < 0 || o.MoveTime < 0:
		return errors.New("--depth, --nodes and --movetime must be positive")
	case o.Workers < 1:
		return fmt.Errorf("--workers must be at least 1, got %d", o.Workers)
	case o.Hash < 1:
		return fmt.Errorf("--hash must be at least 1 MB, got %d", o.Hash)
	case o.PV < 0:
		return fmt.Errorf("--pv must not be negative, got %d", o.PV)
	case o.MultiPV < 1:
		return fmt.Errorf("--multipv must be at least 1, got %d", o.MultiPV)
	case o.Timeout < 0:
		return errors.New("--timeout must not be negative")
	}
	return nil
}

// Text is the summary as dchess label prints it: what a run labelled, or
// that a finished task had nothing to do.
func (s Summary) Text() string {
	if s.Skipped {
		return fmt.Sprintf("shard %s is already labelled in %s with these settings (%d positions); nothing to do\n", s.Shard, s.Output, s.Records)
	}
	return fmt.Sprintf("labelled %d positions into %s with %s: %d new, %d resumed, %d failed, %d engine restarts; %.1f s, %.0f positions/s\n",
		s.Records, s.Output, s.Engine, s.Labelled, s.Resumed, s.Failed, s.Restarts, s.Seconds, s.PositionsPerSecond)
}
