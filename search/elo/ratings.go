package elo

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// PairResult is what player A scored against player B over some games.
type PairResult struct {
	A, B                int
	Wins, Losses, Draws int
}

// Rating is a player's fitted Elo and the ± of its 95 % interval relative to
// the anchors (an anchor's Error is 0).
type Rating struct {
	Elo   float64 `json:"elo"`
	Error float64 `json:"error"`
}

// eloToNats turns Elo differences into the natural-log units of the logistic:
// ScoreFromElo(x) = 1/(1+exp(-eloToNats·x)).
const eloToNats = math.Ln10 / 400

// Prior is what a rating fit assumes before any game: VirtualDraws drawn
// games added to every pair of players that met, as BayesElo adds virtual
// draws. Each pair's draws multiply the likelihood by
// (S(d)·(1−S(d)))^(VirtualDraws/2), with S = ScoreFromElo and d the pair's
// rating difference: a prior that peaks at equal strength, pulls lopsided
// pairs inwards by a bounded amount, and depends on differences only, so one
// anchor still just fixes the origin. With VirtualDraws > 0 every rating is
// finite, whatever the results; with 0 the fit is pure maximum likelihood.
type Prior struct {
	VirtualDraws float64
}

// DefaultPrior is the prior dchess's reports use: one virtual draw per pair
// of players that met. Against a pairing's games it moves a finite result by
// little (W136 L96 D111 fits +40.58 instead of +40.70, against ± 30.43), and
// it keeps a player who won every game finite (10 wins and the virtual draw
// fit as 10.5 of 11 points, +528.9 Elo).
var DefaultPrior = Prior{VirtualDraws: 1}

// String states the prior for a report: "1 virtual draw per pair of players
// that met" or "no prior (maximum likelihood)".
func (p Prior) String() string {
	switch p.VirtualDraws {
	case 0:
		return "no prior (maximum likelihood)"
	case 1:
		return "1 virtual draw per pair of players that met"
	}
	return strconv.FormatFloat(p.VirtualDraws, 'g', -1, 64) + " virtual draws per pair of players that met"
}

// Anchor fixes one player's rating in a fit: Player is its index, Elo its
// rating.
type Anchor struct {
	Player int
	Elo    float64
}

// FitRatingsWithPrior fits Elo ratings to n players (indices 0..n-1) with
// player anchor fixed at anchorElo: FitRatingsAnchored with that one
// anchor. For two players and no prior the fit is exactly the trinomial
// EloFromScore of the score.
func FitRatingsWithPrior(games []PairResult, n, anchor int, anchorElo float64, prior Prior) ([]Rating, error) {
	return FitRatingsAnchored(games, n, []Anchor{{Player: anchor, Elo: anchorElo}}, prior)
}

// FitRatingsAnchored fits Elo ratings to n players (indices 0..n-1) by
// maximizing the likelihood of the games times the prior, with draws as
// half points, as Ordo and BayesElo do: for every pair the expected score is
// ScoreFromElo(Elo_A − Elo_B). Each anchor's player is fixed at its Elo and
// is not a parameter of the fit: its Rating is exactly that Elo with Error
// 0, and the other ratings are fitted against the fixed ones. Games between
// two anchored players cannot move any rating and are left out (of the
// error bars' dispersion too). The result is deterministic: the same games
// and anchors, the anchors in any order, give the same ratings.
//
// Error bars come from the inverse of the curvature of the log-posterior
// over the free ratings (the Fisher information, prior included), scaled by
// the observed dispersion of the real games around the fit: Σ(result −
// expected)² / Σ expected·(1 − expected). A draw varies less than a
// win-or-loss coin, so without that scaling draws would not narrow the
// bars; with it, two players get the trinomial standard error to first
// order. Games that all match the fit exactly (only draws between equal
// players) give an error of 0. The bars are relative to the anchors: they
// leave out any error in the anchors' own Elos.
//
// It fails on no anchor, an anchor that is not a player or named twice, a
// non-finite anchor Elo, bad indices, negative counts, a negative or
// non-finite prior, players with no chain of games to any anchor (their
// ratings would be arbitrary), and, without a prior, games that have no
// finite fit (a group of free players won every game, or lost every game,
// against the rest, anchors included; see HasFiniteMLEAnchored). Anchors
// need no games among themselves, nor any at all.
func FitRatingsAnchored(games []PairResult, n int, anchors []Anchor, prior Prior) ([]Rating, error) {
	if math.IsNaN(prior.VirtualDraws) || math.IsInf(prior.VirtualDraws, 0) || prior.VirtualDraws < 0 {
		return nil, fmt.Errorf("elo: the prior's virtual draws must be a finite number ≥ 0, got %v", prior.VirtualDraws)
	}
	pairs, fixed, err := checkFit(games, n, anchors)
	if err != nil {
		return nil, err
	}
	if prior.VirtualDraws == 0 && !scoresLinkAll(pairs, fixed) {
		return nil, errors.New("elo: some players won or lost every game against the rest, so the ratings have no finite fit without a prior")
	}
	return fitPairs(pairs, fixed, prior.VirtualDraws)
}

// FitRatings is the fit dchess used before the prior was stated: pure
// maximum likelihood when it is finite, else one virtual draw per pair that
// met (HasFiniteMLE tells which). It is kept for callers that print that
// distinction.
//
// Deprecated: use FitRatingsWithPrior with DefaultPrior, which applies the
// same prior whatever the results, and state DefaultPrior.String().
func FitRatings(games []PairResult, n, anchor int, anchorElo float64) ([]Rating, error) {
	pairs, fixed, err := checkFit(games, n, []Anchor{{Player: anchor, Elo: anchorElo}})
	if err != nil {
		return nil, err
	}
	prior := 0.0
	if !scoresLinkAll(pairs, fixed) {
		prior = DefaultPrior.VirtualDraws
	}
	return fitPairs(pairs, fixed, prior)
}

// fixedRatings says which players an anchor fixes, and at what Elo.
type fixedRatings struct {
	n     int
	elo   []float64 // a fixed player's Elo
	fixed []bool
	// reference is the lowest fixed player: the fit works in Elo offsets
	// from its rating, so one anchor's fit runs exactly as it did when
	// only one could be fixed.
	reference int
	// describe names the anchors in messages: "the anchor (player 2)" or
	// "any anchor (players 0, 3)".
	describe string
}

// checkFit validates a fit's input and totals the games per pair.
func checkFit(games []PairResult, n int, anchors []Anchor) ([]pairTotal, fixedRatings, error) {
	f := fixedRatings{n: n}
	if n < 1 {
		return nil, f, errors.New("elo: need at least one player")
	}
	if len(anchors) == 0 {
		return nil, f, errors.New("elo: need at least one anchor to fix the ratings' origin")
	}
	f.elo, f.fixed = make([]float64, n), make([]bool, n)
	for _, a := range anchors {
		switch {
		case a.Player < 0 || a.Player >= n:
			return nil, f, fmt.Errorf("elo: anchor %d is not a player (0..%d)", a.Player, n-1)
		case math.IsNaN(a.Elo) || math.IsInf(a.Elo, 0):
			return nil, f, fmt.Errorf("elo: anchor Elo must be a finite number, got %v for player %d", a.Elo, a.Player)
		case f.fixed[a.Player]:
			return nil, f, fmt.Errorf("elo: player %d is anchored twice", a.Player)
		}
		f.fixed[a.Player], f.elo[a.Player] = true, a.Elo
	}
	f.reference = -1
	var list []string
	for p, ok := range f.fixed {
		if ok {
			if f.reference < 0 {
				f.reference = p
			}
			list = append(list, strconv.Itoa(p))
		}
	}
	if len(list) == 1 {
		f.describe = "the anchor (player " + list[0] + ")"
	} else {
		f.describe = "any anchor (players " + strings.Join(list, ", ") + ")"
	}
	pairs, err := aggregatePairs(games, n)
	if err != nil {
		return nil, f, err
	}
	if p := firstUnlinked(pairs, f.fixed); p >= 0 {
		return nil, f, fmt.Errorf("elo: player %d has no chain of games to %s, so its rating cannot be compared", p, f.describe)
	}
	return pairs, f, nil
}

// fitPairs maximizes the posterior with prior virtual draws per pair.
func fitPairs(pairs []pairTotal, fixed fixedRatings, prior float64) ([]Rating, error) {
	f := newFit(pairs, fixed, prior)
	elos, err := f.maximize()
	if err != nil {
		return nil, err
	}
	variances, err := f.variances(elos)
	if err != nil {
		return nil, err
	}
	origin := fixed.elo[fixed.reference]
	ratings := make([]Rating, f.n)
	for p := range ratings {
		if fixed.fixed[p] && p != fixed.reference {
			ratings[p] = Rating{Elo: fixed.elo[p]} // exactly, whatever origin + offset rounds to
			continue
		}
		ratings[p] = Rating{Elo: origin + elos[p], Error: z95 * math.Sqrt(variances[p])}
	}
	return ratings, nil
}

// HasFiniteMLE reports whether these games have a finite fit without a prior
// when one player is anchored: every player is linked to every other by
// games, and no group of players scored nothing against the rest. Invalid
// input reports false.
func HasFiniteMLE(games []PairResult, n int) bool {
	return HasFiniteMLEAnchored(games, n, []Anchor{{Player: 0}})
}

// HasFiniteMLEAnchored reports whether FitRatingsAnchored finds a finite
// fit for these games and anchors without a prior: every player has a chain
// of games to an anchor, and no group of free players won every game, or
// lost every game, against the rest (anchors included). The anchors count as
// one player, since their differences are fixed: a free player who scored
// against one anchor and conceded to another is finite. Invalid input
// reports false.
func HasFiniteMLEAnchored(games []PairResult, n int, anchors []Anchor) bool {
	pairs, fixed, err := checkFit(games, n, anchors)
	return err == nil && scoresLinkAll(pairs, fixed)
}

// pairTotal sums the games between players i < j, from i's side.
type pairTotal struct {
	i, j                int
	wins, losses, draws float64
}

func (p pairTotal) games() float64 { return p.wins + p.losses + p.draws }

func aggregatePairs(games []PairResult, n int) ([]pairTotal, error) {
	index := map[[2]int]int{}
	var pairs []pairTotal
	for k, g := range games {
		switch {
		case g.A < 0 || g.A >= n || g.B < 0 || g.B >= n:
			return nil, fmt.Errorf("elo: game record %d names player %d vs %d, outside 0..%d", k, g.A, g.B, n-1)
		case g.A == g.B:
			return nil, fmt.Errorf("elo: game record %d has player %d playing itself", k, g.A)
		case g.Wins < 0 || g.Losses < 0 || g.Draws < 0:
			return nil, fmt.Errorf("elo: game record %d has a negative count (W%d L%d D%d)", k, g.Wins, g.Losses, g.Draws)
		case g.Wins+g.Losses+g.Draws == 0:
			continue
		}
		i, j, wins, losses := g.A, g.B, g.Wins, g.Losses
		if i > j {
			i, j, wins, losses = j, i, losses, wins
		}
		key := [2]int{i, j}
		at, ok := index[key]
		if !ok {
			at = len(pairs)
			index[key] = at
			pairs = append(pairs, pairTotal{i: i, j: j})
		}
		pairs[at].wins += float64(wins)
		pairs[at].losses += float64(losses)
		pairs[at].draws += float64(g.Draws)
	}
	return pairs, nil
}

// firstUnlinked is the lowest player with no chain of games to a fixed
// player, or -1.
func firstUnlinked(pairs []pairTotal, fixed []bool) int {
	linked := reachable(len(fixed), fixed, func(visit func(from, to int)) {
		for _, p := range pairs {
			visit(p.i, p.j)
			visit(p.j, p.i)
		}
	})
	for p, ok := range linked {
		if !ok {
			return p
		}
	}
	return -1
}

// scoresLinkAll reports whether the graph with an edge from each player to
// every opponent it scored against, with the fixed players merged into one
// node, is strongly connected: the condition for a finite
// maximum-likelihood fit (Zermelo, Ford; with one fixed player, exactly
// theirs). A group of free players that the graph cannot reach, or cannot
// leave, won or lost every game against the rest, and moving all of them
// up or down together raises the likelihood without end.
func scoresLinkAll(pairs []pairTotal, fixed fixedRatings) bool {
	// node merges the fixed players into the reference.
	node := func(p int) int {
		if fixed.fixed[p] {
			return fixed.reference
		}
		return p
	}
	start := make([]bool, fixed.n)
	start[fixed.reference] = true
	forward := reachable(fixed.n, start, func(visit func(from, to int)) {
		for _, p := range pairs {
			if p.wins+p.draws > 0 {
				visit(node(p.i), node(p.j))
			}
			if p.losses+p.draws > 0 {
				visit(node(p.j), node(p.i))
			}
		}
	})
	backward := reachable(fixed.n, start, func(visit func(from, to int)) {
		for _, p := range pairs {
			if p.wins+p.draws > 0 {
				visit(node(p.j), node(p.i))
			}
			if p.losses+p.draws > 0 {
				visit(node(p.i), node(p.j))
			}
		}
	})
	for p := 0; p < fixed.n; p++ {
		if q := node(p); !forward[q] || !backward[q] {
			return false
		}
	}
	return true
}

// reachable marks the players reachable from those marked in start over
// the edges that edges passes to its visit callback.
func reachable(n int, start []bool, edges func(visit func(from, to int))) []bool {
	adjacent := make([][]int, n)
	edges(func(from, to int) { adjacent[from] = append(adjacent[from], to) })
	seen := make([]bool, n)
	var queue []int
	for p, ok := range start {
		if ok {
			seen[p] = true
			queue = append(queue, p)
		}
	}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, q := range adjacent[p] {
			if !seen[q] {
				seen[q] = true
				queue = append(queue, q)
			}
		}
	}
	return seen
}

// fit is one maximum-likelihood problem. Ratings are Elo offsets from the
// reference anchor's; the fixed players' offsets stay put and the others
// are the free parameters.
type fit struct {
	pairs []pairTotal // pairs with at least one free player
	n     int
	start []float64 // the offsets the fit starts from: the fixed players' and 0
	index []int     // a player's parameter index, or -1 for a fixed player
	m     int       // free parameters
	prior float64   // virtual draws added to each pair
}

func newFit(pairs []pairTotal, fixed fixedRatings, prior float64) *fit {
	f := &fit{n: fixed.n, start: make([]float64, fixed.n), index: make([]int, fixed.n), prior: prior}
	origin := fixed.elo[fixed.reference]
	for p := range f.index {
		if fixed.fixed[p] {
			f.index[p] = -1
			f.start[p] = fixed.elo[p] - origin
			continue
		}
		f.index[p] = f.m
		f.m++
	}
	for _, p := range pairs {
		if !fixed.fixed[p.i] || !fixed.fixed[p.j] {
			f.pairs = append(f.pairs, p)
		}
	}
	return f
}

// free maps a player to its parameter index, or -1 for a fixed player.
func (f *fit) free(p int) int { return f.index[p] }

// points and games of a pair, virtual draws included.
func (f *fit) pointsAndGames(p pairTotal) (points, games float64) {
	return p.wins + (p.draws+f.prior)/2, p.games() + f.prior
}

func (f *fit) logLikelihood(elos []float64) float64 {
	total := 0.0
	for _, p := range f.pairs {
		points, games := f.pointsAndGames(p)
		x := eloToNats * (elos[p.i] - elos[p.j])
		total += points*logSigmoid(x) + (games-points)*logSigmoid(-x)
	}
	return total
}

// gradientAndCurvature returns the log-likelihood's gradient and its
// negated Hessian (the observed Fisher information) over the free ratings.
func (f *fit) gradientAndCurvature(elos []float64) ([]float64, [][]float64) {
	m := f.m
	gradient := make([]float64, m)
	information := make([][]float64, m)
	for a := range information {
		information[a] = make([]float64, m)
	}
	for _, p := range f.pairs {
		points, games := f.pointsAndGames(p)
		expected := ScoreFromElo(elos[p.i] - elos[p.j])
		g := eloToNats * (points - games*expected)
		h := eloToNats * eloToNats * games * expected * (1 - expected)
		a, b := f.free(p.i), f.free(p.j)
		if a >= 0 {
			gradient[a] += g
			information[a][a] += h
		}
		if b >= 0 {
			gradient[b] -= g
			information[b][b] += h
		}
		if a >= 0 && b >= 0 {
			information[a][b] -= h
			information[b][a] -= h
		}
	}
	return gradient, information
}

// maximize runs Newton's method with a backtracking line search; the
// log-likelihood is concave, so this converges from any start.
func (f *fit) maximize() ([]float64, error) {
	elos := append([]float64(nil), f.start...)
	if f.m == 0 {
		return elos, nil
	}
	const maxIterations = 200
	const tolerance = 1e-9 // Elo
	for iteration := 0; iteration < maxIterations; iteration++ {
		gradient, information := f.gradientAndCurvature(elos)
		factor, ok := cholesky(information)
		if !ok {
			return nil, errors.New("elo: rating fit is singular")
		}
		step := factor.solve(gradient)
		current := f.logLikelihood(elos)
		candidate := make([]float64, f.n)
		largest := 0.0
		for t := 1.0; ; t /= 2 {
			largest = 0
			for p := range candidate {
				candidate[p] = elos[p]
				if a := f.free(p); a >= 0 {
					candidate[p] += t * step[a]
					largest = math.Max(largest, math.Abs(t*step[a]))
				}
			}
			if f.logLikelihood(candidate) >= current || largest < tolerance {
				break
			}
		}
		elos = candidate
		if largest < tolerance {
			return elos, nil
		}
	}
	return nil, fmt.Errorf("elo: rating fit did not converge in %d iterations", maxIterations)
}

// variances of each rating relative to the anchors: the diagonal of the
// inverse Fisher information times the dispersion of the real games.
func (f *fit) variances(elos []float64) ([]float64, error) {
	variances := make([]float64, f.n)
	if f.m == 0 {
		return variances, nil
	}
	_, information := f.gradientAndCurvature(elos)
	factor, ok := cholesky(information)
	if !ok {
		return nil, errors.New("elo: rating fit is singular")
	}
	observed, binomial := 0.0, 0.0
	for _, p := range f.pairs {
		e := ScoreFromElo(elos[p.i] - elos[p.j])
		observed += p.wins*(1-e)*(1-e) + p.draws*(0.5-e)*(0.5-e) + p.losses*e*e
		binomial += p.games() * e * (1 - e)
	}
	dispersion := observed / binomial
	unit := make([]float64, f.m)
	for p := range variances {
		a := f.free(p)
		if a < 0 {
			continue
		}
		unit[a] = 1
		variances[p] = dispersion * factor.solve(unit)[a]
		unit[a] = 0
	}
	return variances, nil
}

// choleskyFactor is the lower-triangular L of a symmetric positive-definite
// matrix A = L·Lᵀ.
type choleskyFactor [][]float64

func cholesky(a [][]float64) (choleskyFactor, bool) {
	m := len(a)
	l := make([][]float64, m)
	for i := range l {
		l[i] = make([]float64, m)
		for j := 0; j <= i; j++ {
			sum := a[i][j]
			for k := 0; k < j; k++ {
				sum -= l[i][k] * l[j][k]
			}
			if i == j {
				if !(sum > 0) {
					return nil, false
				}
				l[i][i] = math.Sqrt(sum)
			} else {
				l[i][j] = sum / l[j][j]
			}
		}
	}
	return l, true
}

// solve returns x with L·Lᵀ·x = b.
func (l choleskyFactor) solve(b []float64) []float64 {
	m := len(l)
	y := make([]float64, m)
	for i := 0; i < m; i++ {
		sum := b[i]
		for k := 0; k < i; k++ {
			sum -= l[i][k] * y[k]
		}
		y[i] = sum / l[i][i]
	}
	x := make([]float64, m)
	for i := m - 1; i >= 0; i-- {
		sum := y[i]
		for k := i + 1; k < m; k++ {
			sum -= l[k][i] * x[k]
		}
		x[i] = sum / l[i][i]
	}
	return x
}
