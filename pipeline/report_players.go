package pipeline

import (
	"fmt"
	"strings"

	"github.com/dchess/dchess/internal/record"
	"github.com/dchess/dchess/models/family"
	"github.com/dchess/dchess/pipeline/train"
	"github.com/dchess/dchess/search/player"
	"github.com/dchess/dchess/search/tournament"
)

// playerKinds describe the players that are no model family; where one
// stands follows, from the record (internal/record's standing.yaml).
var playerKinds = map[string]string{
	"random":     "plays a random legal move",
	"heuristic":  "the hand-written evaluation (seed 000's terms and more, weights fitted to Stockfish's scores) in dchess's alpha-beta",
	"experience": "Deep Red's tree of game statistics (seed 002): it plays the stored move with the best score, else its fallback player",
	"uci":        "an external UCI engine",
}

// explain says in one sentence what a tournament player is and how it got
// its result, from the run's own files: its kind, its training, its
// figures on the test split, how it spent its moves, and where measured
// results of its family stand, as the record gives them.
func (c *RunConfig) explain(p tournament.Standing, ev *PlayerEvaluation) string {
	var parts []string
	spec, err := player.ParseSpec(p.Spec)
	var fam *family.Family
	if err == nil {
		if kind, ok := playerKinds[spec.Family]; ok {
			parts = append(parts, kind)
			if standing := record.Standing(spec.Family); standing != "" {
				parts = append(parts, standing)
			}
		} else if fam, err = family.Lookup(spec.Family); err == nil {
			parts = append(parts, fam.Description)
		}
	}
	for _, t := range c.Train {
		var res train.Result
		if err == nil && spec.Path == c.weights(t) && readJSONFile(c.TrainResultFile(t), &res) == nil {
			parts = append(parts, fmt.Sprintf("trained %.1f epochs (%d steps, %.0f s), stopped by %s",
				res.EpochFraction, res.Steps, res.Seconds, strings.ReplaceAll(res.Stopped, "_", " ")))
		}
	}
	if ev != nil {
		parts = append(parts, ev.figures())
	}
	th := p.Thinking
	play := fmt.Sprintf("in the tournament it scored %.0f %% of %d games, %.1f ms a move", 100*p.Score, p.Games, th.MsPerMove())
	if th.DepthMoves > 0 {
		play += fmt.Sprintf(", mean depth %.1f", th.MeanDepth())
	}
	if th.Nodes > 0 {
		play += fmt.Sprintf(", %.0fk nodes/s", th.NodesPerSecond()/1000)
	}
	parts = append(parts, play)
	if standing := record.Standing(spec.Family); fam != nil && standing != "" {
		parts = append(parts, "for comparison, "+standing)
	}
	return "**" + p.Name + "**: " + strings.Join(parts, "; ") + "."
}

// figures are a player's test-split figures in words.
func (e *PlayerEvaluation) figures() string {
	switch {
	case e.Pairs != nil:
		return fmt.Sprintf("test pair accuracy %.1f %% on %d pairs", 100*e.Pairs.Accuracy, e.Pairs.Pairs)
	case e.Data == nil:
		return "not evaluated"
	}
	d := e.Data
	s := fmt.Sprintf("plays Stockfish's best move in %.1f %% of %d test positions", 100*d.Accuracy, d.Positions)
	if v := d.Value; v != nil {
		s += fmt.Sprintf(" (depth 1); static evaluation against Stockfish's win probability: MSE %.4f, sign agreement %.1f %%",
			v.MSE, 100*v.SignAgreement)
	}
	if dec := d.Decoding; dec != nil && dec.Positions > 0 {
		if dec.LegalMask {
			s += " (a_i over the legal moves only: legal_mask)"
		} else {
			s += fmt.Sprintf(" (its unrestricted a_i legal in %.1f %%)", 100*float64(dec.UnrestrictedLegal)/float64(dec.Positions))
		}
		if im := dec.Imagined; im != nil && im.All.StatePositions > 0 {
			s += fmt.Sprintf("; it imagines s_{i+1} exactly in %.1f %%", 100*im.All.StateExactRate)
		}
	}
	return s
}
