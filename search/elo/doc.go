// Package elo holds the statistics behind every dchess Elo report: the Elo
// estimate of a match from its win/loss/draw counts (trinomial) or from game
// pairs played on one opening with colours swapped (pentanomial), the
// sequential probability ratio test (SPRT) that stops a match once one
// hypothesis wins, and a maximum-likelihood rating fit for several players.
//
// No cutechess, Ordo or BayesElo is available where dchess runs, so the
// formulas follow those tools and are checked against their published
// numbers (see the tests).
//
// Non-finite values: a perfect or zero score has an infinite Elo under the
// logistic model, and a 95 % interval that reaches a score of 0 or 1 is
// unbounded. Estimate keeps these as ±Inf (never NaN), the text formatters
// print them as "+inf"/"-inf"/"inf", and Estimate's JSON form writes them as
// the strings "+inf" and "-inf" because JSON has no infinity.
package elo
