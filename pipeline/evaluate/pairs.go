package evaluate

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/dchess/dchess/models/deepchess"
	"github.com/dchess/dchess/models/family"
	"github.com/dchess/dchess/search/player"
)

// PairReport is `eval --data` for a DeepChess comparator, or `--pairs` for
// a player that scores positions: how often it names the better position of
// a pair, one from a game White won and one from a game Black won
// (docs/training.md, Pairs).
type PairReport struct {
	Player  string  `json:"player"`
	Dataset string  `json:"dataset"`
	Split   string  `json:"split"`
	Pairs   int     `json:"pairs"`
	Correct float64 `json:"correct"`
	Ties    int     `json:"ties"`
	// Unreadable counts records skipped because their position or move
	// does not parse, as training counts its rejects.
	Unreadable int     `json:"unreadable"`
	Accuracy   float64 `json:"pair_accuracy"`
}

// pairJudge says how likely the first position of a pair is the better
// one for White: 1, 0, or 0.5 for a tie, which scores half a pair. i
// numbers the pair.
type pairJudge func(ctx context.Context, i int, first, second *deepchess.PairPosition) (float64, error)

// pair is one pair to judge, as deepchess.ComparisonPairs draws it.
type pair struct {
	first, second *deepchess.PairPosition
	whiteFirst    bool
}

// Pairs scores a comparator on the dataset's test split with the
// pairs training validates on, so the figure reads like the validation
// accuracy a siamese run reports: a comparator family's network
// (Supports EvalPairs), or any other player's search scores of the two
// positions.
func Pairs(ctx context.Context, opts DataOptions) (*PairReport, error) {
	ds, split, splitName, err := openEvalData(&opts)
	if err != nil {
		return nil, err
	}
	judges, name, cfg, closeJudges, err := newPairJudges(ctx, opts.Player, opts.Limits, opts.workerCount(int64(opts.Limit)))
	if err != nil {
		return nil, err
	}
	defer closeJudges()
	score := make([]func(context.Context, int, pair) (float64, error), len(judges))
	for k, judge := range judges {
		score[k] = func(ctx context.Context, i int, pr pair) (float64, error) { return judge(ctx, i, pr.first, pr.second) }
	}
	rep := &PairReport{Player: name, Dataset: opts.Dataset, Split: splitName}
	// unreadable is counted as the pairs are drawn, on scoreInOrder's
	// producing goroutine, and read once it has returned.
	unreadable := 0
	pairs := func(ctx context.Context, emit func(pair) error) error {
		emit = emitUpTo(opts.Limit, emit)
		return deepchess.ComparisonPairs(ctx, ds, split, cfg, func() { unreadable++ }, func(first, second *deepchess.PairPosition, whiteFirst bool) error {
			return emit(pair{first, second, whiteFirst})
		})
	}
	bar := newProgress(&opts.Options, -1, "pairs")
	err = scoreInOrder(ctx, score, pairs, func(pr pair, p float64) error {
		switch {
		case p == 0.5:
			rep.Ties++
			rep.Correct += 0.5
		case (p > 0.5) == pr.whiteFirst:
			rep.Correct++
		}
		rep.Pairs++
		bar.tick()
		return nil
	})
	if err := bar.done(err); err != nil {
		return nil, err
	}
	rep.Unreadable = unreadable
	if rep.Pairs == 0 {
		return nil, fmt.Errorf("--data %s: no pair in the %s split (it needs positions from ply 10 on of games each side won)", opts.Dataset, splitName)
	}
	rep.Accuracy = rep.Correct / float64(rep.Pairs)
	return rep, nil
}

// newPairJudges builds n judges, one a worker, of the comparator SPEC
// names, and the config that draws its pairs: a siamese network with its
// training run's config, or a player whose search scores each position,
// with the siamese defaults (the same pairs as a siamese run that kept its
// filters and seed). Each judge has a network or player of its own.
func newPairJudges(ctx context.Context, spec player.Spec, lim player.Limits, n int) ([]pairJudge, string, *family.Config, func(), error) {
	name := spec.Raw
	if spec.Name != "" {
		name = spec.Name
	}
	judges := make([]pairJudge, n)
	if family.Supports(spec.Family, family.EvalPairs) {
		cfg, err := pairConfig(spec.Path)
		if err != nil {
			return nil, "", nil, nil, err
		}
		for k := range judges {
			cmp, err := deepchess.Load(spec.Path)
			if err != nil {
				return nil, "", nil, nil, err
			}
			judges[k] = func(_ context.Context, _ int, first, second *deepchess.PairPosition) (float64, error) {
				return cmp.ComparePacked(&first.Packed, &second.Packed), nil
			}
		}
		return judges, name, cfg, func() {}, nil
	}
	cfg, err := family.DefaultConfig(deepchess.SiameseFamily)
	if err != nil {
		return nil, "", nil, nil, err
	}
	players, closePlayers, err := newPlayers(ctx, spec, n)
	if err != nil {
		return nil, "", nil, nil, err
	}
	if spec.Name == "" {
		name = players[0].Name()
	}
	for k, p := range players {
		judges[k] = func(ctx context.Context, i int, first, second *deepchess.PairPosition) (float64, error) {
			a, err := whiteScore(ctx, p, spec, i, first.FEN, lim)
			if err != nil {
				return 0, err
			}
			b, err := whiteScore(ctx, p, spec, i, second.FEN, lim)
			switch {
			case err != nil:
				return 0, err
			case a > b:
				return 1, nil
			case a < b:
				return 0, nil
			}
			return 0.5, nil
		}
	}
	return judges, name, cfg, closePlayers, nil
}

// whiteScore is p's search score of fen from White's side, searched as a
// new game, the item numbered i (a pair's two positions draw from one seed).
func whiteScore(ctx context.Context, p player.Player, spec player.Spec, i int, fen string, lim player.Limits) (int, error) {
	if err := newItem(ctx, p, i); err != nil {
		return 0, err
	}
	mi, err := p.Move(ctx, player.Position{StartFEN: fen}, lim)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", fen, err)
	}
	if !mi.HasScore {
		return 0, fmt.Errorf("--player %s gives no score to compare positions by (a searching player or a UCI engine does)", spec.Raw)
	}
	return whiteView(fen, mi), nil
}

// mateValue ranks a forced mate above every centipawn score, sooner mates
// higher.
const mateValue = 1_000_000

// whiteView is a move's score from White's side: centipawns, or a mate in
// n as mateValue - n.
func whiteView(fen string, mi player.MoveInfo) int {
	v := mi.Score
	switch {
	case mi.Mate > 0:
		v = mateValue - mi.Mate
	case mi.Mate < 0:
		v = -mateValue - mi.Mate
	}
	if f := strings.Fields(fen); len(f) > 1 && f[1] == "b" {
		v = -v
	}
	return v
}

// pairConfig is the config whose data filters, shuffle buffer and seed
// draw the pairs: the training run's, when the weights sit in its run
// folder beside config.yaml, else the siamese defaults (ply 10 on, no
// captures, seed 1).
func pairConfig(weights string) (*family.Config, error) {
	path := filepath.Join(filepath.Dir(weights), "config.yaml")
	if _, err := os.Stat(path); err != nil {
		return family.DefaultConfig(deepchess.SiameseFamily)
	}
	return family.LoadConfig(path, deepchess.SiameseFamily)
}
