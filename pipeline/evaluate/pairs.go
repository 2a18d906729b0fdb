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
// one for White: 1, 0, or 0.5 for a tie, which scores half a pair.
type pairJudge func(ctx context.Context, first, second *deepchess.PairPosition) (float64, error)

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
	judge, name, cfg, closeJudge, err := newPairJudge(ctx, opts.Player, opts.Limits)
	if err != nil {
		return nil, err
	}
	defer closeJudge()
	rep := &PairReport{Player: name, Dataset: opts.Dataset, Split: splitName}
	tally := newScanTally(&opts.Options, -1, "pairs")
	unreadable := func() { rep.Unreadable++ }
	err = tally.done(deepchess.ComparisonPairs(ctx, ds, split, cfg, unreadable, func(first, second *deepchess.PairPosition, whiteFirst bool) error {
		p, err := judge(ctx, first, second)
		if err != nil {
			return err
		}
		switch {
		case p == 0.5:
			rep.Ties++
			rep.Correct += 0.5
		case (p > 0.5) == whiteFirst:
			rep.Correct++
		}
		rep.Pairs++
		return tally.tick()
	}))
	if err != nil {
		return nil, err
	}
	if rep.Pairs == 0 {
		return nil, fmt.Errorf("--data %s: no pair in the %s split (it needs positions from ply 10 on of games each side won)", opts.Dataset, splitName)
	}
	rep.Accuracy = rep.Correct / float64(rep.Pairs)
	return rep, nil
}

// newPairJudge builds the comparator SPEC names and the config that draws
// its pairs: a siamese network with its training run's config, or a player
// whose search scores each position, with the siamese defaults (the same
// pairs as a siamese run that kept its filters and seed).
func newPairJudge(ctx context.Context, spec player.Spec, lim player.Limits) (pairJudge, string, *family.Config, func(), error) {
	name := spec.Raw
	if spec.Name != "" {
		name = spec.Name
	}
	if family.Supports(spec.Family, family.EvalPairs) {
		cmp, err := deepchess.Load(spec.Path)
		if err != nil {
			return nil, "", nil, nil, err
		}
		cfg, err := pairConfig(spec.Path)
		if err != nil {
			return nil, "", nil, nil, err
		}
		judge := func(_ context.Context, first, second *deepchess.PairPosition) (float64, error) {
			return cmp.ComparePacked(&first.Packed, &second.Packed), nil
		}
		return judge, name, cfg, func() {}, nil
	}
	cfg, err := family.DefaultConfig(deepchess.SiameseFamily)
	if err != nil {
		return nil, "", nil, nil, err
	}
	p, err := player.NewFromSpec(ctx, spec)
	if err != nil {
		return nil, "", nil, nil, err
	}
	if spec.Name == "" {
		name = p.Name()
	}
	whiteScore := func(ctx context.Context, fen string) (int, error) {
		if err := p.NewGame(ctx); err != nil {
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
	judge := func(ctx context.Context, first, second *deepchess.PairPosition) (float64, error) {
		a, err := whiteScore(ctx, first.FEN)
		if err != nil {
			return 0, err
		}
		b, err := whiteScore(ctx, second.FEN)
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
	return judge, name, cfg, func() { p.Close() }, nil
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
