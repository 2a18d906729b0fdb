package elo

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// FormatElo writes an Elo value with its sign and a ± margin, two decimals:
// "+40.70 +/- 30.43". Infinite values print as "+inf", "-inf" and "inf".
func FormatElo(elo, margin float64) string {
	return signedNumber(elo) + " +/- " + number(margin)
}

// FormatDiff is how every dchess report prints an Elo difference, from the
// first player's side:
//   - "+40.7 ± 30.4", the estimate and the ± of its 95 % interval, when that
//     interval is bounded;
//   - "> +316" or "< -316", a one-sided 95 % bound from the exact interval
//     (Estimate.LowerBound or UpperBound, rounded outwards to whole Elo),
//     when the interval reaches a score of 0 or 1 (always at 100 % or 0 %);
//     the lower bound for scores of one half or more, else the upper;
//   - "no games" without games.
//
// It never prints an infinity.
func FormatDiff(e Estimate) string {
	switch {
	case e.Games == 0:
		return "no games"
	case !math.IsInf(e.ErrorMargin, 0) && !math.IsInf(e.Elo, 0):
		return signedFixed(e.Elo, 1) + " ± " + strconv.FormatFloat(e.ErrorMargin, 'f', 1, 64)
	case e.Score >= 0.5:
		return "> " + signedFixed(math.Floor(e.LowerBound), 0)
	}
	return "< " + signedFixed(math.Ceil(e.UpperBound), 0)
}

// signedFixed prints v with its sign and the given decimals, never "-0".
func signedFixed(v float64, decimals int) string {
	s := strconv.FormatFloat(v, 'f', decimals, 64)
	if strings.Trim(s, "-0.") == "" {
		s = strings.TrimPrefix(s, "-")
	}
	if !strings.HasPrefix(s, "-") {
		s = "+" + s
	}
	return s
}

// ScoreLine is cutechess's score line, counts from a's side:
// "Score of a vs b: 136 - 96 - 111 [0.558] 343".
// With no games the score prints as 0.500, as Estimate reports it.
func ScoreLine(a, b string, w, l, d int) string {
	score := 0.5
	if n := w + l + d; n > 0 {
		score = (float64(w) + float64(d)/2) / float64(n)
	}
	return fmt.Sprintf("Score of %s vs %s: %d - %d - %d [%.3f] %d", a, b, w, l, d, score, w+l+d)
}

// EloLine is cutechess's Elo line:
// "Elo difference: 40.70 +/- 30.43, LOS: 99.60 %, DrawRatio: 32.36 %".
// Where cutechess would print "inf" (the 95 % interval reaches a score of 0
// or 1) it prints FormatDiff's one-sided bound instead:
// "Elo difference: > +316 (one-sided 95 %), LOS: ...".
func EloLine(e Estimate) string {
	diff := number(e.Elo) + " +/- " + number(e.ErrorMargin)
	if e.Games > 0 && (math.IsInf(e.ErrorMargin, 0) || math.IsInf(e.Elo, 0)) {
		diff = FormatDiff(e) + " (one-sided 95 %)"
	}
	return fmt.Sprintf("Elo difference: %s, LOS: %.2f %%, DrawRatio: %.2f %%", diff, 100*e.LOS, 100*e.DrawRatio)
}

// PentanomialLine lists pair counts from LL to WW: "Ptnml(0-2): [34, 54, 63, 64, 75]".
func PentanomialLine(counts [5]int) string {
	parts := make([]string, len(counts))
	for k, c := range counts {
		parts[k] = strconv.Itoa(c)
	}
	return "Ptnml(0-2): [" + strings.Join(parts, ", ") + "]"
}

// SPRTLine is cutechess's SPRT line, for example
// "SPRT: llr 2.52 (54.9%), lbound -4.60, ubound 4.60 - H1 was accepted".
// The percentage is how far the LLR has gone towards the bound it heads for.
func SPRTLine(st Status) string {
	progress := 0.0
	switch {
	case st.LLR > 0 && st.Upper > 0:
		progress = st.LLR / st.Upper
	case st.LLR < 0 && st.Lower < 0:
		progress = -st.LLR / st.Lower
	}
	line := fmt.Sprintf("SPRT: llr %.2f (%.1f%%), lbound %.2f, ubound %.2f", st.LLR, 100*progress, st.Lower, st.Upper)
	switch st.Result {
	case AcceptH0:
		line += " - H0 was accepted"
	case AcceptH1:
		line += " - H1 was accepted"
	}
	return line
}

// number prints two decimals, "inf"/"-inf" for infinities, and never "-0.00".
func number(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "inf"
	case math.IsInf(v, -1):
		return "-inf"
	case math.Abs(v) < 0.005:
		return "0.00"
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

func signedNumber(v float64) string {
	s := number(v)
	if !strings.HasPrefix(s, "-") {
		s = "+" + s
	}
	return s
}
