// Package winprob is dchess's one mapping between centipawns and a win
// probability: p = 1/(1+exp(-0.00368208·cp)) from the side to move's view.
// Labels are scored with it (dataset.WinProbability), and the UCI engine
// turns its scores into win/draw/loss figures with it (UCI_ShowWDL). It
// lives under internal so that both the dataset and the search, which may
// not import each other, share one formula.
package winprob

import "math"

// Coefficient is the logistic slope that maps centipawns to win probability.
const Coefficient = 0.00368208

// Of maps a score from the side to move to its win probability:
// 1/(1+exp(-Coefficient·cp)); mate for the side to move (mate > 0) is 1,
// being mated (mate < 0) is 0, and cp is then ignored.
func Of(cp, mate int) float64 {
	if mate > 0 {
		return 1
	}
	if mate < 0 {
		return 0
	}
	return 1 / (1 + math.Exp(-Coefficient*float64(cp)))
}

// DrawShare is the draw model's k: of the probability mass that is not the
// leading side's certain share, the fraction k is a draw. With p the win
// probability of the side ahead (p >= 1/2), the draw probability is
// d = k·(1-|2p-1|) = 2k(1-p), the loss probability (1-p)(1-k) and the win
// probability the rest, so the expected score w + d/2 is p exactly. An
// even position (cp 0) is 250 won, 500 drawn, 250 lost per mille; the draw
// share falls to 0 as either side's win probability goes to 1.
const DrawShare = 0.5

// WDL returns the expected wins, draws and losses per mille for the side
// to move, summing to 1000, from Of(cp, mate) and the DrawShare model:
// (w + d/2)/1000 is Of(cp, mate) to within 1 per mille of rounding. A
// mate is 1000 won (mate > 0) or 1000 lost (mate < 0).
func WDL(cp, mate int) (w, d, l int) {
	switch {
	case mate > 0:
		return 1000, 0, 0
	case mate < 0:
		return 0, 0, 1000
	case cp < 0:
		// The mirror of the side ahead, so WDL(-cp) is WDL(cp) reversed.
		l, d, w = WDL(-cp, 0)
		return w, d, l
	}
	rest := 1 - Of(cp, 0) // p >= 1/2 here: 1-p is what the side ahead may not win
	d = int(math.Round(1000 * 2 * DrawShare * rest))
	l = int(math.Round(1000 * (1 - DrawShare) * rest))
	return 1000 - d - l, d, l
}

// MaxCentipawns bounds Centipawns.
const MaxCentipawns = 2000

// Centipawns is the inverse of Of: the score whose win probability is p,
// ln(p/(1-p))/Coefficient, rounded and clamped to ±MaxCentipawns (p of 0
// or 1, or beyond, gives the bound; NaN gives 0).
func Centipawns(p float64) int {
	switch {
	case math.IsNaN(p):
		return 0
	case p <= 0:
		return -MaxCentipawns
	case p >= 1:
		return MaxCentipawns
	}
	cp := math.Log(p/(1-p)) / Coefficient
	return int(math.Round(max(-MaxCentipawns, min(MaxCentipawns, cp))))
}
