package tournament

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/dchess/dchess/search/match"
)

// Merged is the standings of several tournaments' games fitted as one
// tournament: `dchess tournament merge` prints it.
type Merged struct {
	*Standings
	// Files are the standings files pooled, in the order given.
	Files []string `json:"files"`
	// SpecsDiffer names the players whose SPEC is not the same in every
	// file (a network copied to another folder, say): players are matched
	// by name, so the reader should know.
	SpecsDiffer []string `json:"specs_differ,omitempty"`
}

// ReadStandings reads what `dchess tournament --json` wrote; the error
// names the file.
func ReadStandings(path string) (*Standings, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var st Standings
	if err := json.Unmarshal(data, &st); err != nil {
		return nil, fmt.Errorf("%s: not the JSON of dchess tournament --json: %v", path, err)
	}
	if len(st.Pairs) == 0 {
		return nil, fmt.Errorf("%s: no pairings (want the JSON of dchess tournament --json)", path)
	}
	for _, p := range st.Pairs {
		if p.A == "" || p.B == "" || p.A == p.B || p.Wins < 0 || p.Losses < 0 || p.Draws < 0 {
			return nil, fmt.Errorf("%s: pairing %q vs %q +%d -%d =%d is not a result", path, p.A, p.B, p.Wins, p.Losses, p.Draws)
		}
	}
	return &st, nil
}

// MergeFiles pools the games of the tournaments whose standings files are
// given, summing each pairing's wins, losses and draws (A vs B and B vs A
// are one pairing) and each player's thinking by player name, and fits
// all ratings at once as one tournament of those games would. anchors
// fix ratings by name; none takes the files' anchors, which must then be
// the same in every file.
func MergeFiles(paths []string, anchors []Anchor) (*Merged, error) {
	if len(paths) == 0 {
		return nil, fmt.Errorf("tournament: no standings files to merge")
	}
	var (
		names    []string
		specs    = map[string]string{}
		thinking = map[string]*match.MoveStats{}
		differ   []string
		pairs    []PairScore
		fileAnch []Anchor
	)
	addName := func(name, spec string) {
		if _, ok := thinking[name]; !ok {
			names = append(names, name)
			thinking[name] = &match.MoveStats{}
			specs[name] = spec
			return
		}
		if spec != "" && specs[name] == "" {
			specs[name] = spec
		} else if spec != "" && spec != specs[name] && !slices.Contains(differ, name) {
			differ = append(differ, name)
		}
	}
	for k, path := range paths {
		st, err := ReadStandings(path)
		if err != nil {
			return nil, err
		}
		own := st.Anchors
		if len(own) == 0 && st.Anchor.Name != "" {
			own = []Anchor{st.Anchor}
		}
		if k == 0 {
			fileAnch = own
		} else if len(anchors) == 0 && !sameAnchors(own, fileAnch) {
			return nil, fmt.Errorf("%s anchors %s but %s anchors %s: give the anchors (--anchor NAME=ELO)",
				path, anchorList(own), paths[0], anchorList(fileAnch))
		}
		for _, p := range st.Players {
			addName(p.Name, p.Spec)
			thinking[p.Name].Merge(p.Thinking)
		}
		for _, p := range st.Pairs {
			addName(p.A, "")
			addName(p.B, "")
			pairs = addPair(pairs, p)
		}
	}
	if len(anchors) == 0 {
		anchors = fileAnch
	}
	if len(anchors) == 0 {
		return nil, fmt.Errorf("%s names no anchor: give the anchors (--anchor NAME=ELO)", paths[0])
	}
	fixed, err := resolveAnchors(anchors, names, func(i int, name string) bool { return names[i] == name })
	if err != nil {
		return nil, err
	}
	specList := make([]string, len(names))
	moves := make([]match.MoveStats, len(names))
	for i, name := range names {
		specList[i], moves[i] = specs[name], *thinking[name]
	}
	st, err := rate(names, specList, fixed, pairs, moves)
	if err != nil {
		return nil, err
	}
	return &Merged{Standings: st, Files: paths, SpecsDiffer: differ}, nil
}

// addPair adds p to the pairing of the same two players, from the side
// that pairing was first seen, or appends it.
func addPair(pairs []PairScore, p PairScore) []PairScore {
	for i := range pairs {
		q := &pairs[i]
		switch {
		case q.A == p.A && q.B == p.B:
			q.Wins, q.Losses, q.Draws = q.Wins+p.Wins, q.Losses+p.Losses, q.Draws+p.Draws
			return pairs
		case q.A == p.B && q.B == p.A:
			q.Wins, q.Losses, q.Draws = q.Wins+p.Losses, q.Losses+p.Wins, q.Draws+p.Draws
			return pairs
		}
	}
	return append(pairs, p)
}

// sameAnchors reports whether a and b fix the same players at the same
// ratings, in any order.
func sameAnchors(a, b []Anchor) bool {
	if len(a) != len(b) {
		return false
	}
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}

func anchorList(anchors []Anchor) string {
	if len(anchors) == 0 {
		return "nothing"
	}
	list := make([]string, len(anchors))
	for i, a := range anchors {
		list[i] = fmt.Sprintf("%s=%g", a.Name, a.Elo)
	}
	return strings.Join(list, ",")
}
