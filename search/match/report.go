package match

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/dchess/dchess/search/elo"
)

// SPRTReport is the state of the sequential test.
type SPRTReport struct {
	Test   string     `json:"test"`
	LLR    float64    `json:"llr"`
	Lower  float64    `json:"lower"`
	Upper  float64    `json:"upper"`
	Result elo.Result `json:"result"`
}

// Report is a match's result from A's side.
type Report struct {
	A      string    `json:"a"`
	B      string    `json:"b"`
	Games  int       `json:"games"`
	Wins   int       `json:"wins"`
	Losses int       `json:"losses"`
	Draws  int       `json:"draws"`
	Score  elo.Float `json:"score"`
	// Elo, EloError, LOS and DrawRatio are the trinomial (per-game)
	// estimate cutechess prints; LOS and DrawRatio are fractions. In the
	// JSON an infinite Elo or EloError (a 100 % or 0 % score, an interval
	// that reaches one) is null, and the bounds beside it say how far the
	// interval goes (docs/reference/json.md).
	Elo       elo.Float `json:"elo"`
	EloError  elo.Float `json:"elo_error"`
	LOS       elo.Float `json:"los"`
	DrawRatio elo.Float `json:"draw_ratio"`
	// EloLowerBound and EloUpperBound are the one-sided 95 % bounds of the
	// exact interval (elo.Estimate), which the text prints when the
	// ± interval is unbounded.
	EloLowerBound elo.Float `json:"elo_lower_bound"`
	EloUpperBound elo.Float `json:"elo_upper_bound"`
	// Pentanomial counts finished game pairs by A's points: LL, LD, WL+DD,
	// WD, WW; PentanomialElo is the estimate over pairs, with its ± and
	// its one-sided bounds as above.
	Pentanomial              [5]int    `json:"pentanomial"`
	PentanomialElo           elo.Float `json:"pentanomial_elo"`
	PentanomialEloError      elo.Float `json:"pentanomial_elo_error"`
	PentanomialEloLowerBound elo.Float `json:"pentanomial_elo_lower_bound"`
	PentanomialEloUpperBound elo.Float `json:"pentanomial_elo_upper_bound"`
	// SPRT is null when no test was asked for.
	SPRT *SPRTReport `json:"sprt"`
	// Terminations counts games by how they ended (the Term* keys).
	Terminations map[string]int `json:"terminations"`
	// Faults counts each player's faults by kind, under "a" and "b".
	Faults map[string]map[string]int `json:"faults"`
	// ThinkingA and ThinkingB sum up how each player spent its moves (for
	// tournaments; timings vary from run to run, so the JSON leaves them out
	// and a merged report equals one run's).
	ThinkingA MoveStats `json:"-"`
	ThinkingB MoveStats `json:"-"`
	// StoppedEarly is "sprt" when the test ended the match.
	StoppedEarly string `json:"stopped_early,omitempty"`

	sprt        *elo.SPRT
	firstOfPair map[int]elo.Outcome
	// toCount is how many games the run counts when none fails, the
	// journal's included; 0 when the report is not a run's.
	toCount int
	// timed says a counted game was played on a clock or a move time (its
	// GameResult.Timed), where a game searched slower than the player's
	// usual is a handicap, not noise.
	timed bool
	// speeds holds A's and B's nodes a second, game by game (games where
	// the player reported nodes); lastSlow says the side's last such game
	// was slow, and speedWarning describes the last counted game's drop.
	speeds       [2][]float64
	lastSlow     [2]bool
	speedWarning string
}

// slowShare is the share of a player's median nodes a second below which
// a game of its counts as slow, and minSpeedGames how many of its games
// the median needs before one is judged: a game on the clock that another
// program's work slowed by a third or more is a handicap the Elo then
// measures.
const (
	slowShare     = 0.7
	minSpeedGames = 4
)

func newReport(a, b string, sprt *elo.SPRT) *Report {
	r := &Report{A: a, B: b, Terminations: map[string]int{},
		Faults: map[string]map[string]int{"a": {}, "b": {}}, sprt: sprt, firstOfPair: map[int]elo.Outcome{}}
	r.update()
	return r
}

// MoveStats sums up one player's moves: how many, the time they took, the
// nodes searched and, over the moves that report one, the depth reached.
type MoveStats struct {
	Moves      int     `json:"moves"`
	Seconds    float64 `json:"seconds"`
	Nodes      int64   `json:"nodes"`
	DepthSum   int64   `json:"depth_sum"`
	DepthMoves int     `json:"depth_moves"`
}

// Add counts one move.
func (s *MoveStats) Add(m PlayedMove) {
	s.Moves++
	s.Seconds += m.Elapsed.Seconds()
	s.Nodes += m.Info.Nodes
	if m.Info.Depth > 0 {
		s.DepthSum += int64(m.Info.Depth)
		s.DepthMoves++
	}
}

// thinking sums up each side's moves in g: A's, then B's.
func thinking(g GameResult) (a, b MoveStats) {
	for _, m := range g.Moves {
		if m.White == g.AIsWhite {
			a.Add(m)
		} else {
			b.Add(m)
		}
	}
	return a, b
}

// Merge adds o's moves.
func (s *MoveStats) Merge(o MoveStats) {
	s.Moves += o.Moves
	s.Seconds += o.Seconds
	s.Nodes += o.Nodes
	s.DepthSum += o.DepthSum
	s.DepthMoves += o.DepthMoves
}

// MsPerMove is the mean time of a move in milliseconds.
func (s MoveStats) MsPerMove() float64 { return ratio(1000*s.Seconds, float64(s.Moves)) }

// NodesPerSecond is the search speed over all moves (0 for players that
// report no nodes).
func (s MoveStats) NodesPerSecond() float64 { return ratio(float64(s.Nodes), s.Seconds) }

// MeanDepth is the mean depth reached over the moves that report one.
func (s MoveStats) MeanDepth() float64 { return ratio(float64(s.DepthSum), float64(s.DepthMoves)) }

func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

func (r *Report) add(g GameResult) {
	a, b := thinking(g)
	r.count(g, a, b)
}

// count counts game g, in which A and B spent a and b.
func (r *Report) count(g GameResult, a, b MoveStats) {
	r.timed = r.timed || g.Timed
	r.ThinkingA.Merge(a)
	r.ThinkingB.Merge(b)
	r.addSpeeds(g.Number, a, b)
	outcome := g.OutcomeForA()
	switch outcome {
	case elo.Win:
		r.Wins++
	case elo.Loss:
		r.Losses++
	default:
		r.Draws++
	}
	r.Games++
	r.Terminations[g.Termination]++
	if g.FaultySide != "" {
		r.Faults[g.FaultySide][g.Termination]++
	}
	pair := (g.Number - 1) / 2
	if first, ok := r.firstOfPair[pair]; ok {
		r.Pentanomial[elo.PairBucket(first, outcome)]++
		delete(r.firstOfPair, pair)
	} else {
		r.firstOfPair[pair] = outcome
	}
	r.update()
}

// addJournalled counts a game from a journal as add counted it when it was
// played (the journal keeps each side's move tally, not the moves).
func (r *Report) addJournalled(e JournalEntry) {
	r.count(e.Result(), e.ThinkingA, e.ThinkingB)
}

// addSpeeds records each side's nodes a second in game n and, on the
// clock, sets SpeedWarning when a side's game falls under slowShare of its
// median, once for each stretch of slow games.
func (r *Report) addSpeeds(n int, a, b MoveStats) {
	r.speedWarning = ""
	for side, st := range [2]MoveStats{a, b} {
		v := st.NodesPerSecond()
		if v <= 0 {
			continue
		}
		r.speeds[side] = append(r.speeds[side], v)
		med := median(r.speeds[side])
		slow := r.timed && len(r.speeds[side]) >= minSpeedGames && v < slowShare*med
		if slow && !r.lastSlow[side] {
			name := r.A
			if side == 1 {
				name = r.B
			}
			r.speedWarning = fmt.Sprintf("warning: game %d: %s searched %s nodes/s, %.0f %% of its median %s: other work is "+
				"taking the machine's cores, and on the clock that costs strength (the report counts such games)",
				n, name, siNodes(v), 100*v/med, siNodes(med))
		}
		r.lastSlow[side] = slow
	}
}

// SpeedWarning is a line about the last counted game when, on the clock,
// a player searched far slower in it than in its median game (and had not
// in the game before); "" otherwise.
func (r *Report) SpeedWarning() string { return r.speedWarning }

// slowGames counts a side's games under slowShare of its median speed
// over the whole match.
func (r *Report) slowGames(side int) int {
	if len(r.speeds[side]) < minSpeedGames {
		return 0
	}
	med, n := median(r.speeds[side]), 0
	for _, v := range r.speeds[side] {
		if v < slowShare*med {
			n++
		}
	}
	return n
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// siNodes writes a speed as 1.19M or 850k.
func siNodes(v float64) string {
	if v >= 1e6 {
		return fmt.Sprintf("%.2fM", v/1e6)
	}
	return fmt.Sprintf("%.0fk", v/1e3)
}

func (r *Report) update() {
	tri := elo.FromWDL(r.Wins, r.Losses, r.Draws)
	r.Score, r.Elo, r.EloError, r.LOS, r.DrawRatio = elo.Float(tri.Score), elo.Float(tri.Elo), elo.Float(tri.ErrorMargin), elo.Float(tri.LOS), elo.Float(tri.DrawRatio)
	r.EloLowerBound, r.EloUpperBound = elo.Float(tri.LowerBound), elo.Float(tri.UpperBound)
	penta := elo.FromPentanomial(r.Pentanomial)
	r.PentanomialElo, r.PentanomialEloError = elo.Float(penta.Elo), elo.Float(penta.ErrorMargin)
	r.PentanomialEloLowerBound, r.PentanomialEloUpperBound = elo.Float(penta.LowerBound), elo.Float(penta.UpperBound)
	if r.sprt != nil {
		st := r.sprt.Status(r.Wins, r.Losses, r.Draws)
		r.SPRT = &SPRTReport{Test: r.sprt.String(), LLR: st.LLR, Lower: st.Lower, Upper: st.Upper, Result: st.Result}
	}
}

func (r *Report) sprtStatus() elo.Status {
	return elo.Status{LLR: r.SPRT.LLR, Lower: r.SPRT.Lower, Upper: r.SPRT.Upper, Result: r.SPRT.Result}
}

// InterimLines are the short lines printed while a match runs, after
// every `every` counted games: none between, and none after the game that
// ends the match (the last to play, or the one that decided the SPRT),
// since the final report (Text) follows it with the same score.
func (r *Report) InterimLines(every int) []string {
	if every <= 0 || r.Games%every != 0 || r.toCount > 0 && r.Games >= r.toCount ||
		r.SPRT != nil && r.SPRT.Result != elo.Continue {
		return nil
	}
	lines := []string{
		elo.ScoreLine(r.A, r.B, r.Wins, r.Losses, r.Draws),
		elo.EloLine(r.estimate()),
	}
	if r.SPRT != nil {
		lines = append(lines, elo.SPRTLine(r.sprtStatus()))
	}
	return lines
}

// estimate is the trinomial estimate the report's Elo fields come from.
func (r *Report) estimate() elo.Estimate { return elo.FromWDL(r.Wins, r.Losses, r.Draws) }

// Text is the final report, cutechess-style.
func (r *Report) Text() string {
	var b strings.Builder
	b.WriteString(elo.ScoreLine(r.A, r.B, r.Wins, r.Losses, r.Draws) + "\n")
	b.WriteString(elo.EloLine(r.estimate()) + "\n")
	fmt.Fprintf(&b, "%s, Elo (pairs): %s\n", elo.PentanomialLine(r.Pentanomial),
		elo.FormatDiff(elo.FromPentanomial(r.Pentanomial)))
	if r.SPRT != nil {
		b.WriteString(elo.SPRTLine(r.sprtStatus()) + "\n")
	}
	if len(r.Terminations) > 0 {
		b.WriteString("Terminations: " + countsLine(r.Terminations) + "\n")
	}
	for _, side := range []string{"a", "b"} {
		if len(r.Faults[side]) == 0 {
			continue
		}
		name := r.A
		if side == "b" {
			name = r.B
		}
		fmt.Fprintf(&b, "Faults of %s: %s\n", name, countsLine(r.Faults[side]))
	}
	if r.timed {
		var slow []string
		for side, name := range []string{r.A, r.B} {
			if n := r.slowGames(side); n > 0 {
				slow = append(slow, fmt.Sprintf("%s %d of %d", name, n, len(r.speeds[side])))
			}
		}
		if len(slow) > 0 {
			fmt.Fprintf(&b, "Slow games: %s (under %.0f %% of the player's median nodes/s: other work took the cores, "+
				"which on the clock costs strength)\n", strings.Join(slow, ", "), 100*slowShare)
		}
	}
	if r.StoppedEarly == "sprt" {
		b.WriteString("Stopped early: the SPRT reached a decision\n")
	}
	return b.String()
}

func countsLine(counts map[string]int) string {
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	// Most frequent first; ties by name, so the line is stable.
	sort.Slice(keys, func(i, j int) bool {
		if counts[keys[i]] != counts[keys[j]] {
			return counts[keys[i]] > counts[keys[j]]
		}
		return keys[i] < keys[j]
	})
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, counts[k])
	}
	return strings.Join(parts, ", ")
}
