package elo_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/dchess/dchess/search/elo"
)

func TestFitTwoPlayersEqualsTrinomial(t *testing.T) {
	ratings, err := elo.FitRatings([]elo.PairResult{{A: 0, B: 1, Wins: 136, Losses: 96, Draws: 111}}, 2, 1, 1500)
	if err != nil {
		t.Fatal(err)
	}
	tri := elo.FromWDL(136, 96, 111)
	within(t, "fitted difference", ratings[0].Elo-ratings[1].Elo, tri.Elo, 1e-6)
	within(t, "anchor", ratings[1].Elo, 1500, 0)
	if ratings[1].Error != 0 {
		t.Errorf("anchor error %v, want 0", ratings[1].Error)
	}
	// The fit's error is the delta-method standard error; the trinomial
	// margin is the half-width of the transformed interval. They differ
	// only by the curvature of EloFromScore over the interval.
	if r := ratings[0].Error / tri.ErrorMargin; math.Abs(r-1) > 0.01 {
		t.Errorf("error %v vs trinomial margin %v", ratings[0].Error, tri.ErrorMargin)
	}
}

func TestFitIgnoresOrientationAndSplitting(t *testing.T) {
	whole, err := elo.FitRatings([]elo.PairResult{
		{A: 0, B: 1, Wins: 30, Losses: 20, Draws: 10},
		{A: 1, B: 2, Wins: 12, Losses: 25, Draws: 5},
		{A: 0, B: 2, Wins: 8, Losses: 9, Draws: 20},
	}, 3, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	split, err := elo.FitRatings([]elo.PairResult{
		{A: 1, B: 0, Wins: 15, Losses: 20, Draws: 4},
		{A: 0, B: 1, Wins: 10, Losses: 5, Draws: 6},
		{A: 2, B: 1, Wins: 25, Losses: 12, Draws: 5},
		{A: 2, B: 0, Wins: 9, Losses: 8, Draws: 20},
		{A: 2, B: 0}, // no games: ignored
	}, 3, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	for p := range whole {
		within(t, "Elo", split[p].Elo, whole[p].Elo, 1e-6)
		within(t, "Error", split[p].Error, whole[p].Error, 1e-6)
	}
}

func TestFitAnchorRespected(t *testing.T) {
	games := []elo.PairResult{
		{A: 0, B: 1, Wins: 30, Losses: 20, Draws: 10},
		{A: 1, B: 2, Wins: 12, Losses: 25, Draws: 5},
		{A: 2, B: 3, Wins: 40, Losses: 2, Draws: 3},
		{A: 3, B: 0, Wins: 4, Losses: 30, Draws: 8},
	}
	base, err := elo.FitRatings(games, 4, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	for anchor := 0; anchor < 4; anchor++ {
		for _, anchorElo := range []float64{0, 1500, -250.5} {
			ratings, err := elo.FitRatings(games, 4, anchor, anchorElo)
			if err != nil {
				t.Fatal(err)
			}
			if ratings[anchor].Elo != anchorElo || ratings[anchor].Error != 0 {
				t.Errorf("anchor %d at %v: got %+v", anchor, anchorElo, ratings[anchor])
			}
			// Differences do not depend on which player is anchored.
			for p := range ratings {
				want := base[p].Elo - base[anchor].Elo + anchorElo
				within(t, "shifted Elo", ratings[p].Elo, want, 1e-6)
			}
		}
	}
}

// playRoundRobin simulates games between players of known ratings. Draws
// come out at up to 40 %, with wins and losses set so the expected score is
// exactly ScoreFromElo of the difference, the model FitRatings assumes.
func playRoundRobin(rng *rand.Rand, truth []float64, gamesPerPair int) []elo.PairResult {
	var games []elo.PairResult
	for a := range truth {
		for b := a + 1; b < len(truth); b++ {
			expected := elo.ScoreFromElo(truth[a] - truth[b])
			draw := math.Min(0.4, 2*math.Min(expected, 1-expected))
			win := expected - draw/2
			g := elo.PairResult{A: a, B: b}
			for i := 0; i < gamesPerPair; i++ {
				switch r := rng.Float64(); {
				case r < win:
					g.Wins++
				case r < win+draw:
					g.Draws++
				default:
					g.Losses++
				}
			}
			games = append(games, g)
		}
	}
	return games
}

func TestFitRecoversRoundRobinRatings(t *testing.T) {
	truth := []float64{0, 150, -100, 320, 40, -260}
	rng := rand.New(rand.NewPCG(2024, 6))
	ratings, err := elo.FitRatings(playRoundRobin(rng, truth, 400), len(truth), 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	for p, r := range ratings {
		if math.Abs(r.Elo-truth[p]) > r.Error {
			t.Errorf("player %d: %.1f ± %.1f, true %v", p, r.Elo, r.Error, truth[p])
		}
		if p != 0 && (r.Error < 5 || r.Error > 60) {
			t.Errorf("player %d: implausible error %.1f for 2000 games", p, r.Error)
		}
	}
}

func TestFitErrorBarsCover95Percent(t *testing.T) {
	// Over many simulated tournaments the true rating should fall inside the
	// 95 % bar about 95 % of the time. Without the dispersion scaling the
	// 40 % draws would push coverage to about 99 %.
	truth := []float64{0, 80, -60, 200}
	rng := rand.New(rand.NewPCG(99, 1))
	inside, total := 0, 0
	for trial := 0; trial < 400; trial++ {
		ratings, err := elo.FitRatings(playRoundRobin(rng, truth, 60), len(truth), 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		for p := 1; p < len(truth); p++ {
			total++
			if math.Abs(ratings[p].Elo-truth[p]) <= ratings[p].Error {
				inside++
			}
		}
	}
	coverage := float64(inside) / float64(total)
	if coverage < 0.93 || coverage > 0.97 {
		t.Errorf("95 %% bars covered the truth %.1f %% of the time", 100*coverage)
	}
}

func TestFitPlayerWithAllWins(t *testing.T) {
	// Player 0 won every game: no finite maximum-likelihood rating, so the
	// fit adds one virtual draw to each pair that met.
	games := []elo.PairResult{
		{A: 0, B: 1, Wins: 10},
		{A: 0, B: 2, Wins: 10},
		{A: 1, B: 2, Wins: 12, Losses: 8, Draws: 10},
	}
	if elo.HasFiniteMLE(games, 3) {
		t.Fatal("HasFiniteMLE: true for a player who won every game")
	}
	ratings, err := elo.FitRatings(games, 3, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	for p, r := range ratings {
		if math.IsNaN(r.Elo) || math.IsInf(r.Elo, 0) || math.IsNaN(r.Error) || math.IsInf(r.Error, 0) {
			t.Fatalf("player %d: %+v not finite", p, r)
		}
	}
	if ratings[0].Elo < 300 || ratings[0].Error <= 0 {
		t.Errorf("unbeaten player: %+v, want far above the others with an error bar", ratings[0])
	}
	more := append([]elo.PairResult{{A: 0, B: 1, Wins: 10}}, games...)
	stronger, err := elo.FitRatings(more, 3, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	if stronger[0].Elo <= ratings[0].Elo {
		t.Errorf("ten more wins lowered the rating: %v → %v", ratings[0].Elo, stronger[0].Elo)
	}
}

func TestFitTwoPlayersAllWinsUsesOneVirtualDraw(t *testing.T) {
	ratings, err := elo.FitRatings([]elo.PairResult{{A: 0, B: 1, Wins: 10}}, 2, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	within(t, "Elo after 10 wins", ratings[0].Elo, elo.EloFromScore(10.5/11), 1e-6)
	losses, err := elo.FitRatings([]elo.PairResult{{A: 0, B: 1, Losses: 10}}, 2, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	within(t, "Elo after 10 losses", losses[0].Elo, -ratings[0].Elo, 1e-6)
	within(t, "Error after 10 losses", losses[0].Error, ratings[0].Error, 1e-6)
}

func TestHasFiniteMLE(t *testing.T) {
	for _, c := range []struct {
		name  string
		games []elo.PairResult
		n     int
		want  bool
	}{
		{"mixed results", []elo.PairResult{{A: 0, B: 1, Wins: 3, Losses: 1}}, 2, true},
		{"draws only", []elo.PairResult{{A: 0, B: 1, Draws: 2}}, 2, true},
		{"all wins", []elo.PairResult{{A: 0, B: 1, Wins: 3}}, 2, false},
		// A cycle of wins links everyone both ways.
		{"cycle", []elo.PairResult{{A: 0, B: 1, Wins: 1}, {A: 1, B: 2, Wins: 1}, {A: 2, B: 0, Wins: 1}}, 3, true},
		// 0 and 1 beat each other, but neither scored against 2.
		{"group never scored", []elo.PairResult{{A: 0, B: 1, Wins: 1, Losses: 1}, {A: 2, B: 0, Wins: 1}, {A: 2, B: 1, Wins: 2}}, 3, false},
		{"unlinked player", []elo.PairResult{{A: 0, B: 1, Wins: 1, Losses: 1}}, 3, false},
		{"bad index", []elo.PairResult{{A: 0, B: 5, Wins: 1, Losses: 1}}, 2, false},
	} {
		if got := elo.HasFiniteMLE(c.games, c.n); got != c.want {
			t.Errorf("%s: HasFiniteMLE = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestFitDoesNotUsePriorWhenNotNeeded(t *testing.T) {
	// Every player lost at least once, so the fit is pure maximum
	// likelihood and the virtual draws must not shift it.
	games := []elo.PairResult{{A: 0, B: 1, Wins: 9, Losses: 1}, {A: 1, B: 2, Wins: 5, Losses: 5}, {A: 2, B: 0, Wins: 1, Losses: 9}}
	ratings, err := elo.FitRatings(games, 3, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	// By symmetry player 2 equals player 1, so player 0's 18/20 over both
	// gives exactly EloFromScore(0.9).
	within(t, "player 0", ratings[0].Elo, elo.EloFromScore(0.9), 1e-6)
	within(t, "player 2", ratings[2].Elo, 0, 1e-6)
}

func TestFitRatingsErrors(t *testing.T) {
	mixed := elo.PairResult{A: 0, B: 1, Wins: 2, Losses: 1}
	for _, c := range []struct {
		name      string
		games     []elo.PairResult
		n, anchor int
		anchorElo float64
		want      string
	}{
		{"no players", nil, 0, 0, 0, "at least one player"},
		{"anchor out of range", []elo.PairResult{mixed}, 2, 2, 0, "anchor 2 is not a player"},
		{"anchor Elo NaN", []elo.PairResult{mixed}, 2, 0, math.NaN(), "finite"},
		{"player out of range", []elo.PairResult{{A: 0, B: 2, Wins: 1}}, 2, 0, 0, "outside 0..1"},
		{"plays itself", []elo.PairResult{{A: 1, B: 1, Wins: 1}}, 2, 0, 0, "playing itself"},
		{"negative count", []elo.PairResult{{A: 0, B: 1, Draws: -1}}, 2, 0, 0, "negative count"},
		{"unlinked player", []elo.PairResult{mixed}, 3, 0, 0, "player 2 has no chain of games to the anchor"},
		{"separate groups", []elo.PairResult{mixed, {A: 2, B: 3, Wins: 1, Losses: 1}}, 4, 3, 0, "player 0 has no chain"},
	} {
		_, err := elo.FitRatings(c.games, c.n, c.anchor, c.anchorElo)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
}

func TestFitSinglePlayer(t *testing.T) {
	ratings, err := elo.FitRatings(nil, 1, 0, 2000)
	if err != nil || len(ratings) != 1 || ratings[0] != (elo.Rating{Elo: 2000}) {
		t.Errorf("single player: %+v, %v", ratings, err)
	}
}

func TestFitExtremeButFiniteResults(t *testing.T) {
	// A ladder of ten players, each beating the next 999 to 1: the fit must
	// converge to about 1200 Elo per step, 10,800 from top to bottom.
	var games []elo.PairResult
	for p := 0; p < 9; p++ {
		games = append(games, elo.PairResult{A: p, B: p + 1, Wins: 999, Losses: 1})
	}
	if !elo.HasFiniteMLE(games, 10) {
		t.Fatal("HasFiniteMLE: false for mixed results")
	}
	ratings, err := elo.FitRatings(games, 10, 9, 0)
	if err != nil {
		t.Fatal(err)
	}
	step := elo.EloFromScore(0.999)
	for p, r := range ratings {
		within(t, "ladder rung", r.Elo, float64(9-p)*step, 1e-6)
		if math.IsNaN(r.Error) || math.IsInf(r.Error, 0) {
			t.Errorf("player %d: error %v", p, r.Error)
		}
	}
}

func BenchmarkFitRatings20Players(b *testing.B) {
	truth := make([]float64, 20)
	for p := range truth {
		truth[p] = float64(p*37%400) - 200
	}
	games := playRoundRobin(rand.New(rand.NewPCG(1, 1)), truth, 50)
	b.ResetTimer()
	for b.Loop() {
		if _, err := elo.FitRatings(games, len(truth), 0, 0); err != nil {
			b.Fatal(err)
		}
	}
}

func TestFitWithPriorAlwaysAppliesIt(t *testing.T) {
	games := []elo.PairResult{{A: 0, B: 1, Wins: 136, Losses: 96, Draws: 111}}
	// The default prior adds one draw even where the data alone are finite:
	// 136 + 112/2 = 192 points of 344 games.
	ratings, err := elo.FitRatingsWithPrior(games, 2, 1, 0, elo.DefaultPrior)
	if err != nil {
		t.Fatal(err)
	}
	within(t, "W136 L96 D111 with the prior", ratings[0].Elo, 40.58305630351081, 1e-6)
	within(t, "same", ratings[0].Elo, elo.EloFromScore(192.0/344), 1e-6)
	// No prior: the pure maximum likelihood, the trinomial Elo.
	mle, err := elo.FitRatingsWithPrior(games, 2, 1, 0, elo.Prior{})
	if err != nil {
		t.Fatal(err)
	}
	within(t, "no prior", mle[0].Elo, elo.FromWDL(136, 96, 111).Elo, 1e-6)
	// A stronger prior pulls harder towards equality.
	strong, err := elo.FitRatingsWithPrior(games, 2, 1, 0, elo.Prior{VirtualDraws: 40})
	if err != nil {
		t.Fatal(err)
	}
	within(t, "40 virtual draws", strong[0].Elo, elo.EloFromScore((136+151.0/2)/383), 1e-6)
}

func TestFitWithPriorKeepsEveryRatingFinite(t *testing.T) {
	// Player 0 won everything, player 3 lost everything; the ratings stay
	// finite, ordered, and the anchor only moves the origin.
	games := []elo.PairResult{
		{A: 0, B: 1, Wins: 10}, {A: 0, B: 2, Wins: 10}, {A: 0, B: 3, Wins: 10},
		{A: 1, B: 2, Wins: 12, Losses: 8, Draws: 10}, {A: 1, B: 3, Wins: 10}, {A: 2, B: 3, Wins: 10},
	}
	if _, err := elo.FitRatingsWithPrior(games, 4, 0, 0, elo.Prior{}); err == nil || !strings.Contains(err.Error(), "no finite fit without a prior") {
		t.Errorf("no prior on all wins: error %v", err)
	}
	base, err := elo.FitRatingsWithPrior(games, 4, 0, 0, elo.DefaultPrior)
	if err != nil {
		t.Fatal(err)
	}
	for p, r := range base {
		if math.IsNaN(r.Elo) || math.IsInf(r.Elo, 0) || math.IsNaN(r.Error) || math.IsInf(r.Error, 0) {
			t.Fatalf("player %d: %+v", p, r)
		}
	}
	if !(base[0].Elo > base[1].Elo && base[1].Elo > base[2].Elo && base[2].Elo > base[3].Elo) {
		t.Errorf("ratings out of order: %+v", base)
	}
	for anchor := range base {
		ratings, err := elo.FitRatingsWithPrior(games, 4, anchor, 1500, elo.DefaultPrior)
		if err != nil {
			t.Fatal(err)
		}
		if ratings[anchor] != (elo.Rating{Elo: 1500}) {
			t.Errorf("anchor %d: %+v", anchor, ratings[anchor])
		}
		for p := range ratings {
			within(t, "shifted Elo", ratings[p].Elo, base[p].Elo-base[anchor].Elo+1500, 1e-6)
		}
	}
	again, _ := elo.FitRatingsWithPrior(games, 4, 0, 0, elo.DefaultPrior)
	for p := range again {
		if again[p] != base[p] {
			t.Errorf("player %d: %+v then %+v: not deterministic", p, base[p], again[p])
		}
	}
}

func TestPriorValidationAndString(t *testing.T) {
	games := []elo.PairResult{{A: 0, B: 1, Wins: 2, Losses: 1}}
	for _, bad := range []float64{-1, math.NaN(), math.Inf(1)} {
		if _, err := elo.FitRatingsWithPrior(games, 2, 0, 0, elo.Prior{VirtualDraws: bad}); err == nil || !strings.Contains(err.Error(), "virtual draws") {
			t.Errorf("prior %v: error %v", bad, err)
		}
	}
	for _, c := range []struct {
		p    elo.Prior
		want string
	}{
		{elo.DefaultPrior, "1 virtual draw per pair of players that met"},
		{elo.Prior{VirtualDraws: 2}, "2 virtual draws per pair of players that met"},
		{elo.Prior{}, "no prior (maximum likelihood)"},
	} {
		if got := c.p.String(); got != c.want {
			t.Errorf("%+v.String() = %q, want %q", c.p, got, c.want)
		}
	}
}

// oneFreePlayer is the fit of one free player against fixed opponents,
// computed here without the package: with the opponents at E_k, the
// log-likelihood of rating x is Σ_k s_k·ln S(x−E_k) + (N_k−s_k)·ln(1−S(x−E_k)),
// S(d) = 1/(1+10^(−d/400)), points s_k and games N_k including v virtual
// draws per pair (s_k += v/2, N_k += v). Its derivative is
// (ln10/400)·Σ_k (s_k − N_k·S(x−E_k)), which falls from Σ s_k to
// Σ s_k − Σ N_k as x rises, so the maximum is the one root of
// Σ_k N_k·S(x−E_k) = Σ_k s_k, found by bisection. The ± is
// 1.96·sqrt(φ/I): I = (ln10/400)²·Σ_k N_k·S(1−S) with the virtual draws,
// φ = Σ (result − S)² / Σ S(1−S) over the real games.
func oneFreePlayer(t *testing.T, opponents []float64, wld [][3]int, v float64) elo.Rating {
	t.Helper()
	score := func(d float64) float64 { return 1 / (1 + math.Pow(10, -d/400)) }
	points, games := 0.0, 0.0
	for _, r := range wld {
		points += float64(r[0]) + (float64(r[2])+v)/2
		games += float64(r[0]+r[1]+r[2]) + v
	}
	expected := func(x float64) float64 {
		total := 0.0
		for k, r := range wld {
			total += (float64(r[0]+r[1]+r[2]) + v) * score(x-opponents[k])
		}
		return total
	}
	low, high := -10000.0, 10000.0
	if expected(low) > points || expected(high) < points {
		t.Fatalf("no root in [%v, %v]", low, high)
	}
	for i := 0; i < 200 && high-low > 1e-10; i++ {
		if mid := (low + high) / 2; expected(mid) < points {
			low = mid
		} else {
			high = mid
		}
	}
	x := (low + high) / 2
	c := math.Ln10 / 400
	information, observed, binomial := 0.0, 0.0, 0.0
	for k, r := range wld {
		e := score(x - opponents[k])
		w, l, d := float64(r[0]), float64(r[1]), float64(r[2])
		information += c * c * (w + l + d + v) * e * (1 - e)
		observed += w*(1-e)*(1-e) + d*(0.5-e)*(0.5-e) + l*e*e
		binomial += (w + l + d) * e * (1 - e)
	}
	return elo.Rating{Elo: x, Error: 1.959963984540054 * math.Sqrt(observed/binomial/information)}
}

// TestFitTwoAnchorsByHand: a player who scored half its points over equal
// numbers of games against anchors at 2200 and 2300 rates exactly 2250,
// since S(50) + S(−50) = 1, whatever the split between the two. The
// anchors' own game (2200 beat 2300 ten times) must not move them, nor it.
func TestFitTwoAnchorsByHand(t *testing.T) {
	games := []elo.PairResult{
		{A: 0, B: 1, Wins: 3, Losses: 5, Draws: 2}, // 4 of 10 against 2200
		{A: 2, B: 0, Wins: 1, Losses: 3, Draws: 6}, // 6 of 10 against 2300
		{A: 1, B: 2, Wins: 10},
	}
	anchors := []elo.Anchor{{Player: 1, Elo: 2200}, {Player: 2, Elo: 2300}}
	for _, prior := range []elo.Prior{{}, elo.DefaultPrior} {
		ratings, err := elo.FitRatingsAnchored(games, 3, anchors, prior)
		if err != nil {
			t.Fatal(err)
		}
		within(t, "player between the anchors", ratings[0].Elo, 2250, 1e-6)
		if ratings[1] != (elo.Rating{Elo: 2200}) || ratings[2] != (elo.Rating{Elo: 2300}) {
			t.Errorf("%v: the fit moved the anchors: %+v, %+v", prior, ratings[1], ratings[2])
		}
	}
}

// TestFitTwoAnchorsAgainstBisection checks the rating and its ± against
// oneFreePlayer, with and without the prior, with the anchors given in
// either order and a game between them that must be left out.
func TestFitTwoAnchorsAgainstBisection(t *testing.T) {
	wld := [][3]int{{8, 5, 7}, {4, 9, 7}}
	games := []elo.PairResult{
		{A: 0, B: 1, Wins: 8, Losses: 5, Draws: 7},
		{A: 2, B: 0, Wins: 9, Losses: 4, Draws: 7},
		{A: 2, B: 1, Wins: 1, Losses: 9}, // the anchors: ignored
	}
	anchors := []elo.Anchor{{Player: 1, Elo: 2200}, {Player: 2, Elo: 2300}}
	reversed := []elo.Anchor{anchors[1], anchors[0]}
	for _, prior := range []elo.Prior{{}, elo.DefaultPrior, {VirtualDraws: 3}} {
		want := oneFreePlayer(t, []float64{2200, 2300}, wld, prior.VirtualDraws)
		ratings, err := elo.FitRatingsAnchored(games, 3, anchors, prior)
		if err != nil {
			t.Fatal(err)
		}
		within(t, prior.String()+": Elo", ratings[0].Elo, want.Elo, 1e-6)
		within(t, prior.String()+": error", ratings[0].Error, want.Error, 1e-6)
		if ratings[1] != (elo.Rating{Elo: 2200}) || ratings[2] != (elo.Rating{Elo: 2300}) {
			t.Errorf("%v: the fit moved the anchors: %+v, %+v", prior, ratings[1], ratings[2])
		}
		again, err := elo.FitRatingsAnchored(games, 3, reversed, prior)
		if err != nil {
			t.Fatal(err)
		}
		for p := range again {
			if again[p] != ratings[p] {
				t.Errorf("%v: player %d is %+v with the anchors reversed, %+v before", prior, p, again[p], ratings[p])
			}
		}
	}
	// Anchored on 2200 alone, the same games fit 2300's player from its
	// results (it lost 1-9 to 2200) and the free player with it: the
	// second anchor is what holds it at 2300.
	single, err := elo.FitRatingsWithPrior(games, 3, 1, 2200, elo.DefaultPrior)
	if err != nil {
		t.Fatal(err)
	}
	if single[2].Elo > 2200 || math.Abs(single[0].Elo-oneFreePlayer(t, []float64{2200, 2300}, wld, 1).Elo) < 20 {
		t.Errorf("one anchor: %+v", single)
	}
}

// TestFitAnchoredAtTheFreeFit: fixing a second player at the rating the
// one-anchor fit gave it leaves the maximum where it was, and narrows the
// other players' bars, now relative to two fixed ratings.
func TestFitAnchoredAtTheFreeFit(t *testing.T) {
	games := []elo.PairResult{
		{A: 0, B: 1, Wins: 30, Losses: 20, Draws: 10},
		{A: 1, B: 2, Wins: 12, Losses: 25, Draws: 5},
		{A: 2, B: 3, Wins: 40, Losses: 2, Draws: 3},
		{A: 3, B: 0, Wins: 4, Losses: 30, Draws: 8},
		{A: 1, B: 3, Wins: 14, Losses: 6, Draws: 9},
	}
	one, err := elo.FitRatingsWithPrior(games, 4, 0, 1000, elo.DefaultPrior)
	if err != nil {
		t.Fatal(err)
	}
	two, err := elo.FitRatingsAnchored(games, 4, []elo.Anchor{{Player: 0, Elo: 1000}, {Player: 2, Elo: one[2].Elo}}, elo.DefaultPrior)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []int{1, 3} {
		within(t, "Elo", two[p].Elo, one[p].Elo, 1e-6)
		if !(two[p].Error > 0 && two[p].Error < one[p].Error) {
			t.Errorf("player %d: ± %v with two anchors, %v with one", p, two[p].Error, one[p].Error)
		}
	}
	if two[2].Elo != one[2].Elo || two[2].Error != 0 {
		t.Errorf("second anchor: %+v", two[2])
	}
}

// TestFitAnchoredFiniteMLE: with several anchors the anchors count as one
// player. A free player who scored nothing against one anchor but scored
// and conceded against another is finite without a prior, which no single
// anchor gives; one who won every game, or a group of free players who won
// every game against the rest, is not. Anchors need no games at all.
func TestFitAnchoredFiniteMLE(t *testing.T) {
	anchors := []elo.Anchor{{Player: 1, Elo: 2200}, {Player: 2, Elo: 2300}, {Player: 3, Elo: 2400}}
	whitewashed := []elo.PairResult{
		{A: 0, B: 2, Losses: 10},                   // nothing against 2300
		{A: 0, B: 1, Wins: 3, Losses: 3, Draws: 4}, // half against 2200
	}
	if !elo.HasFiniteMLEAnchored(whitewashed, 4, anchors) {
		t.Error("HasFiniteMLEAnchored: false for a player who scored against one anchor and conceded to another")
	}
	if elo.HasFiniteMLE(whitewashed, 4) {
		t.Error("HasFiniteMLE: true with a player who never played")
	}
	if elo.HasFiniteMLE(whitewashed[:2], 3) {
		t.Error("HasFiniteMLE: true though 2300 won every game")
	}
	ratings, err := elo.FitRatingsAnchored(whitewashed, 4, anchors, elo.Prior{})
	if err != nil {
		t.Fatal(err)
	}
	want := oneFreePlayer(t, []float64{2300, 2200}, [][3]int{{0, 10, 0}, {3, 3, 4}}, 0)
	within(t, "Elo", ratings[0].Elo, want.Elo, 1e-6)
	within(t, "error", ratings[0].Error, want.Error, 1e-6)
	if ratings[3] != (elo.Rating{Elo: 2400}) {
		t.Errorf("the anchor without games: %+v", ratings[3])
	}

	for _, c := range []struct {
		name  string
		n     int
		games []elo.PairResult
	}{
		{"won every game", 4, []elo.PairResult{{A: 0, B: 1, Wins: 5}, {A: 0, B: 2, Wins: 3}}},
		{"lost every game", 4, []elo.PairResult{{A: 1, B: 0, Wins: 5}, {A: 0, B: 3, Losses: 1}}},
		// 0 and 4 split their games but won every game against the anchors.
		{"group won every game", 5, []elo.PairResult{{A: 0, B: 4, Wins: 2, Losses: 2}, {A: 0, B: 1, Wins: 4}, {A: 4, B: 2, Wins: 1}, {A: 3, B: 4, Losses: 2}}},
	} {
		name, n, games := c.name, c.n, c.games
		if elo.HasFiniteMLEAnchored(games, n, anchors) {
			t.Errorf("%s: HasFiniteMLEAnchored true", name)
		}
		if _, err := elo.FitRatingsAnchored(games, n, anchors, elo.Prior{}); err == nil || !strings.Contains(err.Error(), "no finite fit without a prior") {
			t.Errorf("%s, no prior: error %v", name, err)
		}
		ratings, err := elo.FitRatingsAnchored(games, n, anchors, elo.DefaultPrior)
		if err != nil {
			t.Fatalf("%s, with the prior: %v", name, err)
		}
		for p, r := range ratings {
			if math.IsNaN(r.Elo) || math.IsInf(r.Elo, 0) || math.IsNaN(r.Error) || math.IsInf(r.Error, 0) {
				t.Errorf("%s: player %d: %+v", name, p, r)
			}
		}
	}
	// Every player anchored: nothing to fit.
	all, err := elo.FitRatingsAnchored([]elo.PairResult{{A: 0, B: 1, Wins: 1}}, 2, []elo.Anchor{{Player: 0, Elo: 5}, {Player: 1, Elo: 7}}, elo.Prior{})
	if err != nil || all[0] != (elo.Rating{Elo: 5}) || all[1] != (elo.Rating{Elo: 7}) {
		t.Errorf("all anchored: %+v, %v", all, err)
	}
}

func TestFitAnchoredErrors(t *testing.T) {
	mixed := elo.PairResult{A: 0, B: 1, Wins: 2, Losses: 1}
	for _, c := range []struct {
		name    string
		games   []elo.PairResult
		n       int
		anchors []elo.Anchor
		want    string
	}{
		{"no anchor", []elo.PairResult{mixed}, 2, nil, "at least one anchor"},
		{"anchor out of range", []elo.PairResult{mixed}, 2, []elo.Anchor{{Player: 0, Elo: 0}, {Player: 2, Elo: 0}}, "anchor 2 is not a player"},
		{"anchored twice", []elo.PairResult{mixed}, 2, []elo.Anchor{{Player: 1, Elo: 0}, {Player: 1, Elo: 0}}, "player 1 is anchored twice"},
		{"anchor Elo infinite", []elo.PairResult{mixed}, 2, []elo.Anchor{{Player: 0, Elo: 0}, {Player: 1, Elo: math.Inf(1)}}, "finite"},
		{"unlinked player", []elo.PairResult{mixed, {A: 3, B: 2, Wins: 1, Losses: 1}}, 5, []elo.Anchor{{Player: 1, Elo: 0}, {Player: 3, Elo: 0}},
			"player 4 has no chain of games to any anchor (players 1, 3)"},
		{"group linked to no anchor", []elo.PairResult{mixed, {A: 3, B: 2, Wins: 1, Losses: 1}}, 4, []elo.Anchor{{Player: 1, Elo: 0}, {Player: 0, Elo: 0}},
			"player 2 has no chain of games to any anchor (players 0, 1)"},
	} {
		_, err := elo.FitRatingsAnchored(c.games, c.n, c.anchors, elo.DefaultPrior)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
}
