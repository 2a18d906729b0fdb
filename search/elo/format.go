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
func EloLine(e Estimate) string {
	return fmt.Sprintf("Elo difference: %s +/- %s, LOS: %.2f %%, DrawRatio: %.2f %%",
		number(e.Elo), number(e.ErrorMargin), 100*e.LOS, 100*e.DrawRatio)
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
