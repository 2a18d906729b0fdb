package evaluate

import (
	"context"
	"fmt"

	"github.com/dchess/dchess/internal/chess/board"
	"github.com/dchess/dchess/search/heuristic"
	"github.com/dchess/dchess/search/player"
)

// FENResult is `eval --fen`: the player's move in one position, its score
// and line, and with Explain the heuristic's per-component breakdown.
//
// The score is written as every position's score in dchess's JSON
// (docs/reference/json.md): CP in centipawns from the side to move, nil
// for a mate, and Mate in moves (positive: the side to move mates), nil
// when there is none; both are nil when the player gives no score.
type FENResult struct {
	FEN     string               `json:"fen"`
	Player  string               `json:"player"`
	Move    string               `json:"move"`
	SAN     string               `json:"san"`
	CP      *int                 `json:"cp"`
	Mate    *int                 `json:"mate"`
	Scored  bool                 `json:"scored"`
	Depth   int                  `json:"depth"`
	Nodes   int64                `json:"nodes"`
	PV      []string             `json:"pv"`
	Explain *heuristic.Breakdown `json:"explain,omitempty"`
}

// scoreFields are a move's score as the CP and Mate of FENResult.
func scoreFields(mi player.MoveInfo) (cp, mate *int) {
	switch {
	case !mi.HasScore:
		return nil, nil
	case mi.Mate != 0:
		return nil, &mi.Mate
	}
	return &mi.Score, nil
}

// FEN searches one position with the player; explain adds the
// heuristic evaluation's breakdown (the player must be the heuristic).
func FEN(ctx context.Context, fen string, explain bool, opts Options) (*FENResult, error) {
	b, err := board.FromFEN(fen)
	if err != nil {
		return nil, &InputError{fmt.Errorf("--fen: %v", err)}
	}
	if st := b.Status(); st != board.NotOver {
		return nil, &InputError{fmt.Errorf("--fen: the game is over (%v)", st)}
	}
	p, err := player.NewFromSpec(ctx, opts.Player)
	if err != nil {
		return nil, err
	}
	defer p.Close()
	res := &FENResult{FEN: b.FEN(), Player: p.Name()}
	if explain {
		searcher, ok := player.Unwrap(p).(*player.Searcher)
		var eval *heuristic.Evaluator
		if ok {
			eval, ok = searcher.Evaluator().(*heuristic.Evaluator)
		}
		if !ok {
			return nil, &InputError{fmt.Errorf("--explain needs the heuristic player, not %s", opts.Player.Family)}
		}
		bd := eval.Explain(b)
		res.Explain = &bd
	}
	mi, err := p.Move(ctx, player.Position{StartFEN: res.FEN}, opts.Limits)
	if err != nil {
		return nil, err
	}
	m, err := b.ParseUCI(mi.Move)
	if err != nil {
		return nil, fmt.Errorf("%s played an illegal move: %s", p.Name(), mi.Move)
	}
	res.CP, res.Mate = scoreFields(mi)
	res.Move, res.SAN, res.Scored, res.Depth, res.Nodes, res.PV = mi.Move, b.SAN(m), mi.HasScore, mi.Depth, mi.Nodes, mi.PV
	if res.PV == nil {
		res.PV = []string{}
	}
	return res, nil
}
