// Package suggest picks the "did you mean" answer for a misspelt name:
// a command's flag, a player family. One rule for all of them, so the
// same typo gets the same kind of answer everywhere.
package suggest

import "strings"

// Closest is the candidate word most likely meant, ignoring case: one that
// starts with word (someone typing a name often stops early: "heur" means
// heuristic, though nnue is fewer edits away), else one at most two edits
// away; the fewest edits first, then the earlier candidate. "" when none
// is. A one-letter word is no prefix of anything, or every name would match.
func Closest(word string, candidates []string) string {
	word = strings.ToLower(word)
	best, bestIsPrefix, bestDistance := "", false, 3
	for _, c := range candidates {
		lc := strings.ToLower(c)
		isPrefix := len(word) > 1 && strings.HasPrefix(lc, word)
		d := editDistance(word, lc)
		if isPrefix == bestIsPrefix && d < bestDistance || isPrefix && !bestIsPrefix {
			best, bestIsPrefix, bestDistance = c, isPrefix, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	previous := make([]int, len(rb)+1)
	for j := range previous {
		previous[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		current := make([]int, len(rb)+1)
		current[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			current[j] = min(previous[j]+1, current[j-1]+1, previous[j-1]+cost)
		}
		previous = current
	}
	return previous[len(rb)]
}
