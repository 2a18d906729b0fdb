package player

import (
	"cmp"
	"context"
	"fmt"
	"time"

	"github.com/dchess/dchess/internal/chess/uci"
	"github.com/dchess/dchess/search"
)

// UCIEngine is an external engine driven over UCI.
type UCIEngine struct {
	name   string
	engine *uci.Engine
}

// StartUCI launches the engine at path. opts.Options are its UCI options.
func StartUCI(ctx context.Context, path string, opts uci.StartOptions) (*UCIEngine, error) {
	eng, err := uci.Start(ctx, path, opts)
	if err != nil {
		return nil, err
	}
	return &UCIEngine{name: eng.Name(), engine: eng}, nil
}

func newUCIFromSpec(ctx context.Context, spec Spec) (Player, error) {
	if spec.Path == "" {
		return nil, SpecErrorf("player uci needs an engine path: uci:/usr/games/stockfish?UCI_Elo=1500")
	}
	// Every other setting is a UCI option; the client rejects names the
	// engine does not have, so a typo fails here rather than silently.
	return StartUCI(ctx, spec.Path, uci.StartOptions{Options: spec.Settings})
}

func (p *UCIEngine) Name() string { return p.name }

func (p *UCIEngine) NewGame(ctx context.Context) error { return p.engine.NewGame(ctx) }

func (p *UCIEngine) Close() error { return p.engine.Close() }

func (p *UCIEngine) Move(ctx context.Context, pos Position, lim Limits) (MoveInfo, error) {
	ul := uci.Limits{Depth: int64(lim.Depth), Nodes: lim.Nodes, MoveTime: millis(lim.MoveTime),
		WTime: millis(lim.WTime), BTime: millis(lim.BTime), WInc: millis(lim.WInc), BInc: millis(lim.BInc),
		MovesToGo: int64(lim.MovesToGo), Infinite: lim.Infinite, SearchMoves: lim.SearchMoves}
	if !hasLimit(lim) {
		ul.Depth = int64(cmp.Or(lim.DefaultDepth, DefaultDepth))
	}
	var onInfo func(uci.Info)
	if lim.OnInfo != nil {
		onInfo = func(in uci.Info) {
			if in.Score.Kind == uci.ScoreNone || in.Score.Bound != uci.BoundExact {
				return
			}
			score, mate := scoreOf(in.Score)
			lim.OnInfo(Info{Depth: in.Depth, SelDepth: in.SelDepth, Score: score, Mate: mate,
				Nodes: int64(in.Nodes), Time: time.Duration(in.TimeMs) * time.Millisecond, PV: in.PV})
		}
	}
	fen := pos.StartFEN
	if fen == "" {
		fen = "startpos"
	}
	res, err := p.engine.Go(ctx, uci.Position{FEN: fen, Moves: pos.Moves}, ul, onInfo)
	if err != nil {
		return MoveInfo{}, err
	}
	if res.BestMove == "" {
		return MoveInfo{}, fmt.Errorf("%s returned no move", p.name)
	}
	info := MoveInfo{Move: res.BestMove, Nodes: int64(res.Nodes)}
	if len(res.Lines) > 0 {
		line := res.Lines[0]
		info.Depth, info.PV = line.Depth, line.PV
		if line.Score.Kind != uci.ScoreNone {
			info.HasScore = true
			info.Score, info.Mate = scoreOf(line.Score)
		}
	}
	return info, nil
}

// scoreOf converts a UCI score to centipawns on search's scale, mates as
// ±(MateScore − plies to mate), so adjudication compares them with cp.
func scoreOf(s uci.Score) (score, mate int) {
	if s.Kind != uci.ScoreMate {
		return int(s.Value), 0
	}
	mate = int(s.Value)
	switch {
	case mate > 0:
		return search.MateScore - (2*mate - 1), mate
	case mate < 0:
		return -search.MateScore + 2*(-mate), mate
	}
	// "mate 0": the side to move is mated.
	return -search.MateScore, 0
}

// millis rounds a positive duration up to at least one millisecond, since
// UCI counts whole milliseconds and 0 would mean "not set".
func millis(d time.Duration) int64 {
	if d <= 0 {
		return 0
	}
	return max(d.Milliseconds(), 1)
}
