package elo

import (
	"encoding/json"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mathext"
)

// oneSidedAlpha is the error rate of the one-sided 95 % bounds.
const oneSidedAlpha = 0.05

// z95 is the two-sided 95 % quantile of the standard normal distribution
// (cutechess uses the same exact value rather than 1.96).
const z95 = 1.959963984540054

// EloFromScore is the Elo difference at which the logistic model expects the
// score s (points per game, 0..1): -400·log10(1/s - 1). A score of 0 or below
// is -Inf and 1 or above is +Inf, so out-of-range scores never give NaN.
func EloFromScore(s float64) float64 {
	switch {
	case s <= 0:
		return math.Inf(-1)
	case s >= 1:
		return math.Inf(1)
	}
	return -400 * math.Log10(1/s-1)
}

// ScoreFromElo is the expected score of a player rated elo points above the
// opponent: 1 / (1 + 10^(-elo/400)). It inverts EloFromScore.
func ScoreFromElo(elo float64) float64 {
	return 1 / (1 + math.Pow(10, -elo/400))
}

// Estimate is the Elo difference of a match, from the first player's side.
//
// Edge cases, chosen so reports never show NaN:
//   - no games: Score 0.5, Elo 0, ScoreStdErr and ErrorMargin +Inf (nothing
//     is known), LOS 0.5, DrawRatio 0;
//   - all wins or all losses: Elo ±Inf and ErrorMargin +Inf;
//   - a 95 % interval that reaches a score of 0 or 1: ErrorMargin +Inf (the
//     interval is unbounded on that side); reports then print a one-sided
//     bound, LowerBound or UpperBound, which is finite (see FormatDiff);
//   - every game (or pair) with the same result: the sample variance is 0, so
//     the normal approximation says nothing about LOS; LOS then falls back to
//     cutechess's 0.5·(1 + erf((W−L)/√(2(W+L)))) over games (or pairs) won
//     and lost, which is 0.5 when there are none.
//
// Estimate marshals to JSON with ±Inf written as null (see Float).
// Embed it in a report struct as a named field, not anonymously: an
// anonymous embedding promotes MarshalJSON and hides the report's own fields.
type Estimate struct {
	// Games counts games for FromWDL and game pairs for FromPentanomial.
	Games int
	// Score is the mean points per game (0..1).
	Score float64
	// ScoreStdErr is the standard error of Score.
	ScoreStdErr float64
	// Elo is EloFromScore(Score).
	Elo float64
	// ErrorMargin is half the width between EloFromScore(Score ± 1.96·ScoreStdErr),
	// the ± of a 95 % interval.
	ErrorMargin float64
	// LOS is the likelihood of superiority, Φ((Score − 1/2)/ScoreStdErr), as
	// a fraction (0..1).
	LOS float64
	// DrawRatio is the fraction of drawn games for FromWDL, and for
	// FromPentanomial the fraction of pairs that scored exactly one half
	// (two draws, or a win and a loss), as a fraction (0..1).
	DrawRatio float64
	// LowerBound and UpperBound are one-sided 95 % bounds on the Elo from
	// the exact (Clopper-Pearson) interval on the points: the Elo is above
	// LowerBound with 95 % confidence, and below UpperBound with 95 %
	// confidence (see exactBounds). LowerBound is finite unless the score is
	// 0 and UpperBound unless it is 1, so a 100 % score still has a finite
	// lower bound.
	LowerBound, UpperBound float64
}

// FromWDL estimates the Elo difference from wins, losses and draws counted
// from the first player's side. Per-game variance is w(1−s)² + d(1/2−s)² + l·s²
// over the result frequencies w, d, l, so draws narrow the interval. It panics
// on a negative count, which only a programming error can produce.
func FromWDL(w, l, d int) Estimate {
	if w < 0 || l < 0 || d < 0 {
		panic(fmt.Sprintf("elo.FromWDL: negative count (W%d L%d D%d)", w, l, d))
	}
	n := w + l + d
	if n == 0 {
		return noGames()
	}
	fn := float64(n)
	score := (float64(w) + float64(d)/2) / fn
	variance := (float64(w)*(1-score)*(1-score) +
		float64(d)*(0.5-score)*(0.5-score) +
		float64(l)*score*score) / fn
	e := fromScoreVariance(n, score, variance, w, l)
	e.DrawRatio = float64(d) / fn
	e.LowerBound, e.UpperBound = exactBounds(float64(w)+float64(d)/2, n)
	return e
}

// pairScores are the points per game of a pentanomial bucket: the first
// player's total over the two games of a pair, halved.
var pairScores = [5]float64{0, 0.25, 0.5, 0.75, 1}

// FromPentanomial estimates the Elo difference from game pairs (one opening,
// colours swapped). counts[k] is the number of pairs in which the first
// player scored k half points: LL, LD, WL or DD, WD, WW (see PairBucket).
// Treating the pair as the unit of sampling keeps the variance honest when
// the opening biases both games the same way. It panics on a negative count.
func FromPentanomial(counts [5]int) Estimate {
	pairs := 0
	for k, c := range counts {
		if c < 0 {
			panic(fmt.Sprintf("elo.FromPentanomial: negative count %d in bucket %d", c, k))
		}
		pairs += c
	}
	if pairs == 0 {
		return noGames()
	}
	fn := float64(pairs)
	points := 0.0 // pair points halved: exact, since they are quarters
	for k, c := range counts {
		points += float64(c) * pairScores[k]
	}
	score := points / fn
	variance := 0.0
	for k, c := range counts {
		dev := pairScores[k] - score
		variance += float64(c) * dev * dev
	}
	variance /= fn
	e := fromScoreVariance(pairs, score, variance, counts[3]+counts[4], counts[0]+counts[1])
	e.DrawRatio = float64(counts[2]) / fn
	e.LowerBound, e.UpperBound = exactBounds(points, pairs)
	return e
}

func noGames() Estimate {
	return Estimate{Score: 0.5, ScoreStdErr: math.Inf(1), ErrorMargin: math.Inf(1), LOS: 0.5,
		LowerBound: math.Inf(-1), UpperBound: math.Inf(1)}
}

// exactBounds are the one-sided 95 % Clopper-Pearson bounds, as Elo, for
// points scored in n trials (games, or pairs for the pentanomial).
//
// Each trial is treated as one Bernoulli trial worth its points: a draw
// counts half a point, a pair the mean of its two games. The lower bound on
// the score is the p at which scoring the observed points or more has
// probability 5 %, I_p(x, n−x+1) = 0.05 with x the points; the upper bound
// mirrors it, I_p(x+1, n−x) = 0.95. For whole points this is the binomial
// tail exactly; half points use the same beta form, its continuous
// extension. A draw varies less than a win-or-loss coin, so with draws the
// bounds are conservative (wider than the data need). At 100 % (x = n) the
// lower bound is 0.05^(1/n): 0.861, +316.6 Elo, after 20 straight wins.
func exactBounds(x float64, n int) (lower, upper float64) {
	fn := float64(n)
	lower, upper = math.Inf(-1), math.Inf(1)
	if x > 0 {
		lower = EloFromScore(mathext.InvRegIncBeta(x, fn-x+1, oneSidedAlpha))
	}
	if x < fn {
		upper = EloFromScore(mathext.InvRegIncBeta(x+1, fn-x, 1-oneSidedAlpha))
	}
	return lower, upper
}

// fromScoreVariance fills an Estimate from n samples with mean score and
// per-sample variance; won and lost count the samples above and below one
// half, used for LOS only when the variance is zero.
func fromScoreVariance(n int, score, variance float64, won, lost int) Estimate {
	stdErr := math.Sqrt(variance / float64(n))
	e := Estimate{Games: n, Score: score, ScoreStdErr: stdErr, Elo: EloFromScore(score)}
	low, high := score-z95*stdErr, score+z95*stdErr
	if low <= 0 || high >= 1 {
		e.ErrorMargin = math.Inf(1)
	} else {
		e.ErrorMargin = (EloFromScore(high) - EloFromScore(low)) / 2
	}
	if stdErr > 0 {
		e.LOS = normalCDF((score - 0.5) / stdErr)
	} else {
		e.LOS = winLossLOS(won, lost)
	}
	return e
}

func normalCDF(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }

// winLossLOS is cutechess's likelihood of superiority, which ignores draws.
func winLossLOS(won, lost int) float64 {
	if won+lost == 0 {
		return 0.5
	}
	return 0.5 * (1 + math.Erf(float64(won-lost)/math.Sqrt(2*float64(won+lost))))
}

// Outcome is the result of one game from the first player's side.
type Outcome int

const (
	Loss Outcome = iota
	Draw
	Win
)

func (o Outcome) String() string {
	switch o {
	case Loss:
		return "loss"
	case Draw:
		return "draw"
	case Win:
		return "win"
	}
	return fmt.Sprintf("Outcome(%d)", int(o))
}

// PairBucket is the pentanomial bucket (index into FromPentanomial's counts)
// of a game pair: the first player's half points over both games, so LL=0,
// LD=1, WL and DD=2, WD=3, WW=4. The order of the two games does not matter.
// It panics on an Outcome other than Loss, Draw or Win.
func PairBucket(first, second Outcome) int {
	for _, o := range [2]Outcome{first, second} {
		if o < Loss || o > Win {
			panic(fmt.Sprintf("elo.PairBucket: invalid %v", o))
		}
	}
	return int(first) + int(second)
}

// estimateJSON is Estimate's wire form.
type estimateJSON struct {
	Games       int   `json:"games"`
	Score       Float `json:"score"`
	ScoreStdErr Float `json:"score_stderr"`
	Elo         Float `json:"elo"`
	ErrorMargin Float `json:"error_margin"`
	LOS         Float `json:"los"`
	DrawRatio   Float `json:"draw_ratio"`
	LowerBound  Float `json:"elo_lower_bound"`
	UpperBound  Float `json:"elo_upper_bound"`
}

// MarshalJSON writes finite values as numbers and an infinite one (an
// unbounded interval, the Elo of a 100 % or 0 % score) as null, beside
// the finite one-sided bound that replaces it.
func (e Estimate) MarshalJSON() ([]byte, error) {
	return json.Marshal(estimateJSON{
		Games: e.Games, Score: Float(e.Score), ScoreStdErr: Float(e.ScoreStdErr),
		Elo: Float(e.Elo), ErrorMargin: Float(e.ErrorMargin),
		LOS: Float(e.LOS), DrawRatio: Float(e.DrawRatio),
		LowerBound: Float(e.LowerBound), UpperBound: Float(e.UpperBound),
	})
}

// UnmarshalJSON reads what MarshalJSON writes, and the "+inf"/"-inf"
// strings older versions wrote. A null is the infinity it stands for: the
// Elo's sign is the score's, a margin or standard error is +Inf, a lower
// bound -Inf and an upper bound +Inf.
func (e *Estimate) UnmarshalJSON(data []byte) error {
	inf, nan := Float(math.Inf(1)), Float(math.NaN())
	w := estimateJSON{ScoreStdErr: inf, Elo: nan, ErrorMargin: inf, LowerBound: -inf, UpperBound: inf}
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	if math.IsNaN(float64(w.Elo)) {
		w.Elo = Float(EloFromScore(float64(w.Score)))
	}
	*e = Estimate{
		Games: w.Games, Score: float64(w.Score), ScoreStdErr: float64(w.ScoreStdErr),
		Elo: float64(w.Elo), ErrorMargin: float64(w.ErrorMargin),
		LOS: float64(w.LOS), DrawRatio: float64(w.DrawRatio),
		LowerBound: float64(w.LowerBound), UpperBound: float64(w.UpperBound),
	}
	return nil
}

// Float is a number that may be infinite (an Elo margin with no games, the
// Elo of a 100 % score). Its JSON is a number, or null for ±Inf: a JSON
// field holds one type, and a reader finds the finite one-sided bound in
// the field beside it (elo_lower_bound, elo_upper_bound). Versions before
// wrote "+inf" and "-inf", which it still reads.
type Float float64

// MarshalJSON writes a finite value as a number and ±Inf as null; NaN is
// an error, as it has no meaning here.
func (f Float) MarshalJSON() ([]byte, error) {
	v := float64(f)
	switch {
	case math.IsInf(v, 0):
		return []byte("null"), nil
	case math.IsNaN(v):
		return nil, fmt.Errorf("elo: NaN has no JSON form")
	}
	return json.Marshal(v)
}

// UnmarshalJSON reads a number, or the strings "+inf", "inf" and "-inf"
// that older versions wrote. A null leaves f as it is, as encoding/json
// does for any null: the caller, who knows which infinity (or none) the
// field's null stands for, sets that value before decoding.
func (f *Float) UnmarshalJSON(data []byte) error {
	switch string(data) {
	case "null":
		return nil
	case `"+inf"`, `"inf"`:
		*f = Float(math.Inf(1))
		return nil
	case `"-inf"`:
		*f = Float(math.Inf(-1))
		return nil
	}
	var v float64
	if err := json.Unmarshal(data, &v); err != nil {
		return fmt.Errorf("elo: want a number or null, got %s", data)
	}
	*f = Float(v)
	return nil
}
