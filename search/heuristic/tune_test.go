package heuristic

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/dchess/dchess/internal/chess/board"
)

// playouts returns positions from random games, a varied mix of material
// and phases.
func playouts(t *testing.T, games int) []*board.Board {
	t.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	var positions []*board.Board
	for range games {
		b := board.New()
		for ply := 0; ply < 120; ply++ {
			moves := b.LegalMoves()
			if len(moves) == 0 {
				break
			}
			b.Make(moves[rng.IntN(len(moves))])
			if ply%6 == 5 {
				positions = append(positions, b.Clone())
			}
		}
	}
	return positions
}

func whiteScore(e *Evaluator, b *board.Board) int {
	if b.SideToMove() == board.Black {
		return -e.Evaluate(b)
	}
	return e.Evaluate(b)
}

func TestSamplesReconstructEvaluation(t *testing.T) {
	positions := playouts(t, 30)
	samples := NewSamples(positions, make([]int, len(positions)), 0.004)
	flat := flatten(&DefaultWeights)
	for i, b := range positions {
		// Evaluate truncates the tapered blend to whole centipawns.
		got, want := samples[i].eval(flat), whiteScore(New(), b)
		if math.Abs(got-float64(want)) >= 1 {
			t.Fatalf("%s: coefficients give %.2f, Evaluate %d", b.FEN(), got, want)
		}
	}
}

func TestFitRecoversWeights(t *testing.T) {
	positions := playouts(t, 40)
	truth := DefaultWeights
	truth.PieceValue[board.Knight] = [2]int{400, 380}
	truth.RookOpen = [2]int{60, 30}
	scorer := WithWeights(truth)
	scores := make([]int, len(positions))
	for i, b := range positions {
		scores[i] = whiteScore(scorer, b)
	}
	const slope = 0.004
	samples := NewSamples(positions, scores, slope)
	before := Loss(samples, DefaultWeights, slope)
	fitted := Fit(samples, DefaultWeights, FitOptions{Slope: slope, Iterations: 300, LearningRate: 2})
	after := Loss(samples, fitted, slope)
	if after >= before/4 {
		t.Errorf("loss %.6f before, %.6f after fitting", before, after)
	}
	if knight := fitted.PieceValue[board.Knight][0]; knight < 360 {
		t.Errorf("fitted knight %d (true 400, start %d)", knight, DefaultWeights.PieceValue[board.Knight][0])
	}
}

func TestRidgeHoldsWeights(t *testing.T) {
	positions := playouts(t, 10)
	samples := NewSamples(positions, make([]int, len(positions)), 0.004)
	fitted := Fit(samples, DefaultWeights, FitOptions{Slope: 0.004, Iterations: 100, LearningRate: 1, Ridge: 1})
	if fitted != DefaultWeights {
		t.Errorf("a strong ridge still moved the weights: %+v", fitted.PieceValue)
	}
}
