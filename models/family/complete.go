package family

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/dchess/dchess/search/player"
)

// CompleteSpec lists the player SPECs that complete word, a SPEC being
// typed, for shell completion: with no ":" yet, the registered families
// it starts (in any case); after "family:", that family's weights under
// runsDir (WeightsOf); after "uci:", the files and folders whose paths
// start what follows, a folder with its trailing slash so the next
// completion goes into it. paths says the SPECs end in such a path, which
// a shell should not close with a space.
func CompleteSpec(runsDir, word string) (specs []string, paths bool) {
	fam, _, hasPath := strings.Cut(word, ":")
	if !hasPath {
		for _, f := range player.Families() {
			if strings.HasPrefix(f, strings.ToLower(word)) {
				specs = append(specs, f)
			}
		}
		return specs, false
	}
	candidates := WeightsOf(runsDir, strings.ToLower(fam))
	if paths = strings.EqualFold(fam, "uci"); paths {
		candidates = pathsFrom(word[len(fam)+1:])
	}
	for _, path := range candidates {
		if spec := fam + ":" + path; strings.HasPrefix(spec, word) {
			specs = append(specs, spec)
		}
	}
	return specs, paths
}

// CompleteSpecList completes the last SPEC of a comma-separated list
// being typed (tournament --players), keeping the ones before it.
func CompleteSpecList(runsDir, word string) (specs []string, paths bool) {
	before := ""
	if i := strings.LastIndex(word, ","); i >= 0 {
		before, word = word[:i+1], word[i+1:]
	}
	specs, paths = CompleteSpec(runsDir, word)
	for i := range specs {
		specs[i] = before + specs[i]
	}
	return specs, paths
}

// pathsFrom lists the files and folders whose paths start with prefix, a
// folder with its trailing separator.
func pathsFrom(prefix string) []string {
	matches, _ := filepath.Glob(prefix + "*")
	for i, m := range matches {
		if st, err := os.Stat(m); err == nil && st.IsDir() {
			matches[i] += string(filepath.Separator)
		}
	}
	return matches
}
