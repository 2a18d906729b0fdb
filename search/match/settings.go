package match

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
)

// TimeControl is cutechess's "[moves/]seconds[+increment]": Base for the
// first Moves moves (all of them when Moves is 0), Inc added after every move.
type TimeControl struct {
	Moves     int
	Base, Inc time.Duration
}

// ParseTimeControl reads "10+0.1", "40/60", "40/60+0.6" or "5".
func ParseTimeControl(s string) (TimeControl, error) {
	var tc TimeControl
	rest := strings.TrimSpace(s)
	bad := func() (TimeControl, error) {
		return TimeControl{}, fmt.Errorf("time control %q: want [moves/]seconds[+increment], e.g. 10+0.1 or 40/60", s)
	}
	if moves, after, ok := strings.Cut(rest, "/"); ok {
		n, err := strconv.Atoi(moves)
		if err != nil || n <= 0 {
			return bad()
		}
		tc.Moves, rest = n, after
	}
	base, inc, hasInc := strings.Cut(rest, "+")
	seconds, err := strconv.ParseFloat(base, 64)
	if err != nil || seconds <= 0 || seconds > 1e6 {
		return bad()
	}
	tc.Base = time.Duration(seconds * float64(time.Second))
	if hasInc {
		incSeconds, err := strconv.ParseFloat(inc, 64)
		if err != nil || incSeconds < 0 || incSeconds > 1e5 {
			return bad()
		}
		tc.Inc = time.Duration(incSeconds * float64(time.Second))
	}
	return tc, nil
}

// String is the PGN TimeControl tag value ("40/60+0.6", "10+0.1").
func (tc TimeControl) String() string {
	s := strconv.FormatFloat(tc.Base.Seconds(), 'f', -1, 64)
	if tc.Moves > 0 {
		s = strconv.Itoa(tc.Moves) + "/" + s
	}
	if tc.Inc > 0 {
		s += "+" + strconv.FormatFloat(tc.Inc.Seconds(), 'f', -1, 64)
	}
	return s
}

// DrawAdjudication declares a draw once the game has reached MoveNumber and
// both engines scored within ±Score centipawns for MoveCount moves each.
type DrawAdjudication struct {
	MoveNumber, MoveCount, Score int
}

// ResignAdjudication declares a loss for a side whose own score was at most
// -Score for MoveCount of its consecutive moves.
type ResignAdjudication struct {
	MoveCount, Score int
}

// ParseDrawAdjudication reads "movenumber=40,movecount=8,score=10".
func ParseDrawAdjudication(s string) (DrawAdjudication, error) {
	var d DrawAdjudication
	err := parseSettings("draw adjudication", s, map[string]*int{
		"movenumber": &d.MoveNumber, "movecount": &d.MoveCount, "score": &d.Score}, "movecount", "score")
	return d, err
}

// ParseResignAdjudication reads "movecount=3,score=600".
func ParseResignAdjudication(s string) (ResignAdjudication, error) {
	var r ResignAdjudication
	err := parseSettings("resign adjudication", s, map[string]*int{
		"movecount": &r.MoveCount, "score": &r.Score}, "movecount", "score")
	if err == nil && r.Score == 0 {
		err = fmt.Errorf("resign adjudication %q: score must be above 0", s)
	}
	return r, err
}

func parseSettings(what, s string, dst map[string]*int, required ...string) error {
	seen := map[string]bool{}
	keys := make([]string, 0, len(dst))
	for k := range dst {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, field := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' }) {
		key, value, ok := strings.Cut(field, "=")
		key = strings.ToLower(key)
		p, known := dst[key]
		if !ok || !known {
			return fmt.Errorf("%s %q: %q is not one of %s=N", what, s, field, strings.Join(keys, "=N, "))
		}
		n, err := strconv.Atoi(value)
		if err != nil || n < 0 {
			return fmt.Errorf("%s %q: %s=%q is not a non-negative integer", what, s, key, value)
		}
		*p = n
		seen[key] = true
	}
	for _, k := range required {
		if !seen[k] {
			return fmt.Errorf("%s %q: %s= is required", what, s, k)
		}
	}
	if mc := dst["movecount"]; *mc == 0 {
		return fmt.Errorf("%s %q: movecount must be at least 1", what, s)
	}
	return nil
}
