package elo

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// SPRT is a sequential probability ratio test of H0: the Elo difference is
// Elo0 against H1: it is Elo1, with false-positive rate Alpha (accepting H1
// when H0 holds) and false-negative rate Beta. Elo0 and Elo1 are ordinary
// (logistic) Elo differences that LLR converts to BayesElo as cutechess does,
// so cutechess settings carry over unchanged.
type SPRT struct {
	Elo0, Elo1  float64
	Alpha, Beta float64
}

// maxHypothesisElo bounds elo0 and elo1: beyond it a test is meaningless
// (a 1000 Elo stronger player scores 99.7 %) and the model's arithmetic
// could overflow.
const maxHypothesisElo = 1000

// Result is the decision of an SPRT after some games.
type Result int

const (
	Continue Result = iota
	AcceptH0
	AcceptH1
)

func (r Result) String() string {
	switch r {
	case Continue:
		return "continue"
	case AcceptH0:
		return "accept_h0"
	case AcceptH1:
		return "accept_h1"
	}
	return fmt.Sprintf("Result(%d)", int(r))
}

// MarshalText makes a Result read as its name in JSON.
func (r Result) MarshalText() ([]byte, error) { return []byte(r.String()), nil }

// Status is an SPRT's state after some games.
type Status struct {
	LLR    float64 `json:"llr"`
	Lower  float64 `json:"lower_bound"`
	Upper  float64 `json:"upper_bound"`
	Result Result  `json:"result"`
}

// Validate reports the first setting that makes the test meaningless.
func (t SPRT) Validate() error {
	for _, v := range [...]struct {
		name  string
		value float64
	}{{"elo0", t.Elo0}, {"elo1", t.Elo1}, {"alpha", t.Alpha}, {"beta", t.Beta}} {
		if math.IsNaN(v.value) || math.IsInf(v.value, 0) {
			return fmt.Errorf("sprt: %s must be a finite number", v.name)
		}
	}
	switch {
	case math.Abs(t.Elo0) > maxHypothesisElo || math.Abs(t.Elo1) > maxHypothesisElo:
		return fmt.Errorf("sprt: elo0 and elo1 must lie within ±%d", maxHypothesisElo)
	case t.Elo0 >= t.Elo1:
		return fmt.Errorf("sprt: elo0 (%g) must be below elo1 (%g)", t.Elo0, t.Elo1)
	case t.Alpha <= 0 || t.Alpha >= 1:
		return fmt.Errorf("sprt: alpha (%g) must be between 0 and 1", t.Alpha)
	case t.Beta <= 0 || t.Beta >= 1:
		return fmt.Errorf("sprt: beta (%g) must be between 0 and 1", t.Beta)
	case t.Alpha+t.Beta >= 1:
		return fmt.Errorf("sprt: alpha + beta (%g) must be below 1", t.Alpha+t.Beta)
	}
	return nil
}

// Bounds are Wald's stopping bounds ln(β/(1−α)) and ln((1−β)/α).
func (t SPRT) Bounds() (lower, upper float64) {
	return math.Log(t.Beta / (1 - t.Alpha)), math.Log((1 - t.Beta) / t.Alpha)
}

// LLR is the log-likelihood ratio of H1 against H0 after w wins, l losses and
// d draws, under the BayesElo model as cutechess computes it: half a game is
// added to each count (so no probability is 0), the draw Elo is estimated
// from those counts, and Elo0/Elo1 are divided by the scale 4x/(1+x)² with
// x = 10^(−drawElo/400) to turn them into BayesElo differences. No games
// means no evidence: LLR 0. It panics on a negative count.
func (t SPRT) LLR(w, l, d int) float64 {
	if w < 0 || l < 0 || d < 0 {
		panic(fmt.Sprintf("elo.SPRT.LLR: negative count (W%d L%d D%d)", w, l, d))
	}
	if w+l+d == 0 {
		return 0
	}
	wins, losses, draws := float64(w)+0.5, float64(l)+0.5, float64(d)+0.5
	n := wins + losses + draws
	pWin, pLoss := wins/n, losses/n
	drawElo := 200 * math.Log10((1-pLoss)/pLoss*(1-pWin)/pWin)
	x := math.Pow(10, -drawElo/400)
	scale := 4 * x / ((1 + x) * (1 + x))
	win0, loss0, draw0 := bayesEloLogProbabilities(t.Elo0/scale, drawElo)
	win1, loss1, draw1 := bayesEloLogProbabilities(t.Elo1/scale, drawElo)
	return wins*(win1-win0) + losses*(loss1-loss0) + draws*(draw1-draw0)
}

// bayesEloLogProbabilities are the natural logs of the win, loss and draw
// probabilities of a player elo BayesElo points stronger, with draw Elo
// drawElo: win = 1/(1+10^((drawElo−elo)/400)), loss = 1/(1+10^((drawElo+elo)/400)),
// draw = 1 − win − loss. Logs keep the LLR finite after thousands of draws,
// where the scale is tiny and elo/scale makes the probabilities underflow.
func bayesEloLogProbabilities(elo, drawElo float64) (win, loss, draw float64) {
	const k = math.Ln10 / 400
	// draw = σ(a) − σ(b) with a = k(drawElo−elo), b = −k(drawElo+elo); over a
	// common denominator that is e^b·(e^(a−b) − 1) / ((1+e^a)(1+e^b)).
	a, b := k*(drawElo-elo), -k*(drawElo+elo)
	win, loss = logSigmoid(-a), logSigmoid(b)
	draw = b + logExpm1(a-b) + logSigmoid(-a) + logSigmoid(-b)
	return win, loss, draw
}

// logSigmoid is log(1/(1+e^-x)) without overflow for large |x|.
func logSigmoid(x float64) float64 {
	if x >= 0 {
		return -math.Log1p(math.Exp(-x))
	}
	return x - math.Log1p(math.Exp(x))
}

// logExpm1 is log(e^y − 1) for y > 0, without overflow for large y.
func logExpm1(y float64) float64 {
	if y > 30 {
		return y + math.Log1p(-math.Exp(-y))
	}
	return math.Log(math.Expm1(y))
}

// Status is the LLR, the bounds and the decision after w wins, l losses and
// d draws; reaching a bound counts as crossing it.
func (t SPRT) Status(w, l, d int) Status {
	llr := t.LLR(w, l, d)
	lower, upper := t.Bounds()
	st := Status{LLR: llr, Lower: lower, Upper: upper, Result: Continue}
	switch {
	case llr >= upper:
		st.Result = AcceptH1
	case llr <= lower:
		st.Result = AcceptH0
	}
	return st
}

// String is the form ParseSPRT reads.
func (t SPRT) String() string {
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	return "elo0=" + f(t.Elo0) + ",elo1=" + f(t.Elo1) + ",alpha=" + f(t.Alpha) + ",beta=" + f(t.Beta)
}

// ParseSPRT reads "elo0=0,elo1=10,alpha=0.05,beta=0.05" (commas or spaces
// between settings, any order). elo0 and elo1 are required; alpha and beta
// default to 0.05. The result is validated.
func ParseSPRT(spec string) (SPRT, error) {
	t := SPRT{Alpha: 0.05, Beta: 0.05}
	seen := map[string]bool{}
	fields := strings.FieldsFunc(spec, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' })
	if len(fields) == 0 {
		return SPRT{}, fmt.Errorf("sprt: empty; want e.g. elo0=0,elo1=10,alpha=0.05,beta=0.05")
	}
	for _, field := range fields {
		key, value, ok := strings.Cut(field, "=")
		if !ok {
			return SPRT{}, fmt.Errorf("sprt: %q is not key=value; want e.g. elo0=0,elo1=10,alpha=0.05,beta=0.05", field)
		}
		key = strings.ToLower(key)
		var dst *float64
		switch key {
		case "elo0":
			dst = &t.Elo0
		case "elo1":
			dst = &t.Elo1
		case "alpha":
			dst = &t.Alpha
		case "beta":
			dst = &t.Beta
		default:
			return SPRT{}, fmt.Errorf("sprt: unknown setting %q (want elo0, elo1, alpha, beta)", key)
		}
		if seen[key] {
			return SPRT{}, fmt.Errorf("sprt: %s given twice", key)
		}
		seen[key] = true
		v, err := strconv.ParseFloat(value, 64)
		if err != nil {
			return SPRT{}, fmt.Errorf("sprt: %s=%q is not a number", key, value)
		}
		*dst = v
	}
	for _, key := range []string{"elo0", "elo1"} {
		if !seen[key] {
			return SPRT{}, fmt.Errorf("sprt: %s is required", key)
		}
	}
	if err := t.Validate(); err != nil {
		return SPRT{}, err
	}
	return t, nil
}
