package label

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/dchess/dchess/dataset"
	"github.com/dchess/dchess/internal/chess/board"
	"github.com/dchess/dchess/internal/chess/uci"
)

// MaxAttempts is how often a position is tried, with a fresh engine after
// each crash or timeout, before it is given up as LabelFailed.
const MaxAttempts = 3

// MatedCP is the centipawn score of a position whose side to move is
// already checkmated (Mate 0 would mean "CP holds the score"). It is
// Stockfish's VALUE_MATE; WinProbability of it is 0.
const MatedCP = -32000

// job is one input record to label.
type job struct {
	index uint64
	key   uint64
	fen   string
}

// result is a worker's answer for a job. skipped means the run was
// interrupted before the job was done: it is not journalled. fatal means the
// engine could not be (re)started; the run stops.
type result struct {
	entry   entry
	skipped bool
	fatal   error
}

// worker owns one engine process and labels jobs with it.
type worker struct {
	cfg      *config
	engine   *uci.Engine
	restarts int
}

func (w *worker) start(ctx context.Context) error {
	var err error
	for attempt := 1; attempt <= MaxAttempts; attempt++ {
		w.engine, err = uci.Start(ctx, w.cfg.stockfish, uci.StartOptions{
			Options: map[string]string{"Threads": "1", "Hash": strconv.Itoa(w.cfg.hash)},
			// A search past the generous position timeout is restarted
			// anyway, so waiting long for its answer to "stop" buys nothing.
			StopTimeout: 500 * time.Millisecond,
		})
		if err == nil || ctx.Err() != nil {
			return err
		}
	}
	return err
}

func (w *worker) close() {
	if w.engine != nil {
		w.engine.Close()
		w.engine = nil
	}
}

// label labels one position; stop ends retries early when the run is
// interrupted (the search in progress is allowed to finish).
func (w *worker) label(stop context.Context, j job) result {
	e := entry{Index: j.index, Key: j.key}
	b, err := board.FromFEN(j.fen)
	if err != nil {
		e.Label = dataset.Label{Status: dataset.LabelFailed, Error: err.Error()}
		return result{entry: e}
	}
	if len(b.LegalMoves()) == 0 {
		// Mate or stalemate: there is nothing to search, and engines
		// disagree on how to report it.
		e.Label = dataset.Label{Status: dataset.LabelOK, WinProb: 0.5}
		if b.InCheck() {
			e.Label.CP, e.Label.WinProb = MatedCP, 0
		}
		return result{entry: e}
	}
	fen := b.FEN()
	var lastErr error
	for attempt := 1; attempt <= MaxAttempts; attempt++ {
		if stop.Err() != nil {
			return result{entry: e, skipped: true}
		}
		if w.engine == nil {
			if err := w.start(stop); err != nil {
				if stop.Err() != nil {
					return result{entry: e, skipped: true}
				}
				return result{fatal: fmt.Errorf("restarting the engine: %w", err)}
			}
			w.restarts++
		}
		lab, err := w.search(fen)
		if err == nil {
			e.Label = lab
			return result{entry: e}
		}
		lastErr = err
		// Crashed, hung or confused: never trust this process again.
		w.close()
	}
	e.Label = dataset.Label{Status: dataset.LabelFailed, Error: fmt.Sprintf("%d attempts failed, last: %v", MaxAttempts, lastErr)}
	return result{entry: e}
}

func (w *worker) search(fen string) (dataset.Label, error) {
	// Not the run's context: on Ctrl-C the search in progress completes,
	// bounded by the per-position timeout.
	ctx, cancel := context.WithTimeout(context.Background(), w.cfg.timeout)
	defer cancel()
	// A fresh hash and history for every position makes labels independent
	// of the order positions reach a worker, so --nodes labels repeat exactly.
	if err := w.engine.NewGame(ctx); err != nil {
		return dataset.Label{}, timeoutOr(err, w.cfg.timeout)
	}
	res, err := w.engine.Go(ctx, uci.Position{FEN: fen}, w.cfg.limits, nil)
	if err != nil {
		return dataset.Label{}, timeoutOr(err, w.cfg.timeout)
	}
	return labelFromResult(res, fen, w.cfg.limits.Depth, w.cfg.pv)
}

// signaturePositions and signatureDepth make a bench signature: the
// nodes an engine searches on fixed positions to a fixed depth from a fresh
// hash. It is the same for every run of one build of one engine (as
// Stockfish's own "bench" node count is) and differs between builds that
// search differently, so shards labelled by such builds do not merge. It
// costs a few milliseconds of the engine a run starts anyway.
var signaturePositions = []string{
	board.StartFEN,
	"r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
	"8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
}

const signatureDepth = 8

// signature searches the signature positions and returns the node count.
func (w *worker) signature() (string, error) {
	var nodes uint64
	for _, fen := range signaturePositions {
		ctx, cancel := context.WithTimeout(context.Background(), w.cfg.timeout)
		err := w.engine.NewGame(ctx)
		var res uci.SearchResult
		if err == nil {
			res, err = w.engine.Go(ctx, uci.Position{FEN: fen}, uci.Limits{Depth: signatureDepth, MultiPV: 1}, nil)
		}
		cancel()
		if err != nil {
			return "", fmt.Errorf("engine signature search: %w", timeoutOr(err, w.cfg.timeout))
		}
		nodes += res.Nodes
	}
	return fmt.Sprintf("%d nodes to depth %d on %d positions", nodes, signatureDepth, len(signaturePositions)), nil
}

func timeoutOr(err error, limit time.Duration) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("no answer within %v", limit)
	}
	return err
}

// labelFromResult turns the engine's verdict on fen into a label (Engine is
// filled in later from the journal's settings). An answer that cannot be
// right, an illegal move or a shallower search than depth asked for, is an
// error like a crash: the engine is not trusted again.
func labelFromResult(res uci.SearchResult, fen string, depth int64, pvLen int) (dataset.Label, error) {
	if len(res.Lines) == 0 {
		return dataset.Label{}, errors.New("engine gave no score")
	}
	if res.BestMove == "" {
		return dataset.Label{}, errors.New("engine gave no best move in a position with legal moves")
	}
	main := res.Lines[0]
	// The search must reach the depth asked; its score is the deepest
	// exact one, which a last iteration ending on a bound leaves a ply
	// shallower (Label.Depth says so).
	if depth > 0 && int64(res.Depth) < depth {
		return dataset.Label{}, fmt.Errorf("engine reported depth %d, depth %d was asked", res.Depth, depth)
	}
	// Check the whole lines the engine sent, not only the part kept.
	l := dataset.Label{Status: dataset.LabelOK, BestMove: res.BestMove, PV: main.PV}
	for _, line := range res.Lines[1:] {
		l.MultiPV = append(l.MultiPV, dataset.PVLine{PV: line.PV})
	}
	if err := l.CheckMoves(fen); err != nil {
		return dataset.Label{}, fmt.Errorf("engine answered nonsense: %w", err)
	}
	l.PV = head(main.PV, pvLen)
	l.Depth = uint16(min(main.Depth, 65535))
	l.Nodes = res.Nodes
	l.Mate, l.CP = scoreOf(main.Score)
	l.WinProb = dataset.WinProbability(l.CP, l.Mate)
	for i, line := range res.Lines[1:] {
		mate, cp := scoreOf(line.Score)
		l.MultiPV[i] = dataset.PVLine{Mate: mate, CP: cp, PV: head(line.PV, pvLen)}
	}
	return l, nil
}

func scoreOf(s uci.Score) (mate, cp int32) {
	if s.Kind == uci.ScoreMate {
		return s.Value, 0
	}
	return 0, s.Value
}

func head(moves []string, n int) []string {
	if n <= 0 || len(moves) == 0 {
		return nil
	}
	return append([]string(nil), moves[:min(n, len(moves))]...)
}

// positionTimeout is how long one search may take before the engine is
// deemed hung. It is generous (a shared, loaded machine is slow) and grows
// with the limit: depth costs roughly 1.5x per ply beyond 12.
func positionTimeout(depth int, nodes int64, moveTime time.Duration) time.Duration {
	switch {
	case moveTime > 0:
		return 3*moveTime + 10*time.Second
	case nodes > 0:
		// Even a loaded machine searches more than 20k nodes per second.
		return 10*time.Second + time.Duration(nodes/20_000)*time.Second
	}
	d := 10 * time.Second
	for ply := 12; ply < depth && d < 2*time.Hour; ply++ {
		d = d * 3 / 2
	}
	return min(d, 2*time.Hour)
}
