// Package elo holds the statistics behind every dchess Elo report: the Elo
// estimate of a match from its win/loss/draw counts (trinomial) or from game
// pairs played on one opening with colours swapped (pentanomial), exact
// one-sided bounds for lopsided matches, the sequential probability ratio
// test (SPRT) that stops a match once one hypothesis wins, and a rating fit
// for several players, anchored on one or more of them, with a stated
// prior.
//
// No cutechess, Ordo or BayesElo is available where dchess runs, so the
// formulas follow those tools and are checked against their published
// numbers, or against values computed independently (testdata/*.py).
//
// Non-finite values: a perfect or zero score has an infinite Elo under the
// logistic model, and a 95 % interval that reaches a score of 0 or 1 is
// unbounded. Estimate keeps these as ±Inf (never NaN) and adds one-sided
// 95 % bounds from the exact Clopper-Pearson interval, which are finite on
// the side the data bound. Reports print FormatDiff, which shows the ±
// interval when it is bounded and the one-sided bound ("> +316") when not,
// never an infinity. Estimate's JSON form writes ±Inf as the strings "+inf"
// and "-inf" because JSON has no infinity.
package elo
