// Package tournament plays a round robin or a gauntlet between players and
// fits all their ratings at once (search/elo's logistic maximum likelihood,
// one or more players anchored at a fixed Elo). `dchess tournament` and
// `dchess pipeline run` both call New and Play; the standings are a value,
// written as JSON by whoever wants it.
package tournament

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/dchess/dchess/internal/jobarray"
	"github.com/dchess/dchess/internal/safefile"
	"github.com/dchess/dchess/search/elo"
	"github.com/dchess/dchess/search/match"
	"github.com/dchess/dchess/search/player"
)

// Config is a tournament: who plays, how the ratings are anchored, and the
// match settings every pairing shares.
type Config struct {
	Players []player.Spec
	// Gauntlet plays the first player against each of the others only.
	Gauntlet bool
	// Anchors fix players' ratings, and the others are fitted against all
	// of them; none is the first player at 0.
	Anchors      []Anchor
	GamesPerPair int
	// Match holds the limits, openings and concurrency of every pairing;
	// its players, Games, Event and PGN are set per pairing.
	Match match.Config
	// Log receives a line per pairing and its score; nil discards them.
	Log io.Writer
	// OnProgress, when set, is told the games this run has played of those
	// it has to play (the journal's games are in neither, as label counts
	// a resumed run): once before the first game and after every game.
	OnProgress func(played, toPlay int)
	// Journal, when not "", is the file every finished game goes to first,
	// so that a killed tournament run again with the same settings plays
	// only the games it lacks; it is deleted when the tournament ends.
	// Restart discards a journal of other settings instead of refusing it.
	Journal string
	Restart bool
}

// Anchor is a player whose rating is fixed, by name, SPEC or name=; in
// Standings, by its name in the tournament.
type Anchor struct {
	Name string  `json:"name"`
	Elo  float64 `json:"elo"`
}

// ParseAnchor reads NAME=ELO, the ELO after the last "=" (so a SPEC with
// settings such as heuristic:depth=2=1000 is a name), a finite number.
func ParseAnchor(s string) (*Anchor, error) {
	at := strings.LastIndex(s, "=")
	if at < 0 {
		return nil, fmt.Errorf("wants NAME=ELO, got %q", s)
	}
	name := strings.TrimSpace(s[:at])
	v, err := strconv.ParseFloat(strings.TrimSpace(s[at+1:]), 64)
	if name == "" || err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return nil, fmt.Errorf("wants NAME=ELO with a finite ELO, got %q", s)
	}
	return &Anchor{Name: name, Elo: v}, nil
}

// ParseAnchors reads each value as NAME=ELO or a comma-separated list of
// them: SF2200=2200,SF2300=2300. A piece that does not end in =ELO belongs
// to the next, so a name may hold a comma (heuristic:search=pvs,depth=3=1500)
// as long as no piece of it ends in =NUMBER; give such a player name= in its
// SPEC. New refuses two anchors of the same player.
func ParseAnchors(values ...string) ([]Anchor, error) {
	var anchors []Anchor
	for _, value := range values {
		pending := ""
		for _, piece := range strings.Split(value, ",") {
			if pending != "" {
				piece, pending = pending+","+piece, ""
			}
			if strings.TrimSpace(piece) == "" {
				continue
			}
			if !endsInElo(piece) {
				pending = piece
				continue
			}
			a, err := ParseAnchor(piece)
			if err != nil {
				return nil, err
			}
			anchors = append(anchors, *a)
		}
		if pending != "" {
			_, err := ParseAnchor(pending)
			return nil, err // not nil: pending does not end in =ELO
		}
	}
	return anchors, nil
}

// endsInElo reports whether s ends in "=" and a finite number.
func endsInElo(s string) bool {
	at := strings.LastIndex(s, "=")
	if at < 0 {
		return false
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(s[at+1:]), 64)
	return err == nil && !math.IsNaN(v) && !math.IsInf(v, 0)
}

// UnknownAnchorError says the anchor names no player.
type UnknownAnchorError struct {
	Name    string
	Players []string
}

func (e *UnknownAnchorError) Error() string {
	return fmt.Sprintf("no player named %q (players: %s)", e.Name, strings.Join(e.Players, ", "))
}

// DuplicateAnchorError says two anchors, Name and Other (the same string
// when it was given twice), fix the same player, Player by its name.
type DuplicateAnchorError struct {
	Name, Other, Player string
}

func (e *DuplicateAnchorError) Error() string {
	if e.Name == e.Other {
		return fmt.Sprintf("%q is anchored twice", e.Name)
	}
	return fmt.Sprintf("%q and %q are the same player (%s), anchored twice", e.Name, e.Other, e.Player)
}

// ErrInterrupted is returned with the standings of the finished games when
// the context ends the tournament.
var ErrInterrupted = errors.New("tournament interrupted; ratings cover the finished games")

// Standings are a tournament's fitted ratings, as `dchess tournament
// --json` prints them.
type Standings struct {
	Players []Standing  `json:"players"`
	Pairs   []PairScore `json:"pairs"`
	// Anchor is the first of Anchors, as standings gave it when only one
	// player could be anchored.
	Anchor Anchor `json:"anchor"`
	// Anchors are the players whose ratings the fit fixed, by name, in
	// the order they were given; the error bars are relative to them.
	Anchors []Anchor `json:"anchors"`
	// FiniteMLE is false when a player, or a group of players, won or
	// lost every game against the rest (the anchors counting as one), so
	// that without the prior no finite fit exists.
	FiniteMLE bool `json:"finite_mle"`
	// Prior is the prior the fit applies, in words (elo.DefaultPrior).
	Prior string `json:"prior"`
}

// Standing is one player's rating, relative to the anchors, with its 95 %
// error bar, and its tally over all its games.
type Standing struct {
	Rank int    `json:"rank"`
	Name string `json:"name"`
	Spec string `json:"spec"`
	Elo  Rating `json:"elo"`
	// Error is the ± of the 95 % interval, elo_error as in dchess match's
	// JSON; versions before wrote it as "error", which still reads.
	Error  Rating  `json:"elo_error"`
	Games  int     `json:"games"`
	Points float64 `json:"points"`
	Score  float64 `json:"score"`
	// Thinking sums up the player's moves over all its games.
	Thinking match.MoveStats `json:"thinking,omitzero"`
}

// UnmarshalJSON reads a standing as MarshalJSON writes it, and as versions
// before wrote it: the error bar under "error", an infinity as a string.
// A null error bar is an unbounded one, +Inf.
func (s *Standing) UnmarshalJSON(data []byte) error {
	type plain Standing
	var w struct {
		plain
		// The outer fields win over plain's "elo_error".
		EloError json.RawMessage `json:"elo_error"`
		OldError json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*s = Standing(w.plain)
	raw := w.EloError
	if raw == nil {
		raw = w.OldError
	}
	if raw != nil {
		s.Error = Rating(math.Inf(1))
		if err := json.Unmarshal(raw, &s.Error); err != nil {
			return err
		}
	}
	return nil
}

// PairScore is one pairing's result from A's side.
type PairScore struct {
	A      string `json:"a"`
	B      string `json:"b"`
	Wins   int    `json:"wins"`
	Losses int    `json:"losses"`
	Draws  int    `json:"draws"`
}

// Rating is an Elo value whose JSON is a number, or null when it is not
// finite (as elo.Float writes it; the fit's prior keeps every rating and
// error bar finite). It reads back, and reads the "+inf" and "-inf" that
// versions before wrote; a null leaves the value as it was.
type Rating float64

func (r Rating) MarshalJSON() ([]byte, error) { return elo.Float(r).MarshalJSON() }

func (r *Rating) UnmarshalJSON(data []byte) error { return (*elo.Float)(r).UnmarshalJSON(data) }

// uniqueNames makes each player once, to check it and learn its display name;
// a repeated name gets " (2)", " (3)", ... so names are unique.
func uniqueNames(ctx context.Context, specs []player.Spec) ([]string, error) {
	names := make([]string, len(specs))
	seen := map[string]int{}
	for i, spec := range specs {
		p, err := player.NewFromSpec(ctx, spec)
		if err != nil {
			return nil, err
		}
		names[i] = p.Name()
		p.Close()
		seen[names[i]]++
		if seen[names[i]] > 1 {
			names[i] = fmt.Sprintf("%s (%d)", names[i], seen[names[i]])
		}
	}
	return names, nil
}

type pairing struct{ a, b int }

// pairings lists who plays whom, in order: every pair, or the first
// player's only for a gauntlet.
func pairings(n int, gauntlet bool) []pairing {
	var list []pairing
	for i := range n {
		for j := i + 1; j < n; j++ {
			if gauntlet && i != 0 {
				continue
			}
			list = append(list, pairing{i, j})
		}
	}
	return list
}

// Tournament is a checked Config whose players are named and anchored.
type Tournament struct {
	cfg     Config
	names   []string
	anchors []elo.Anchor // in the order of cfg.Anchors
}

// New checks cfg and makes each player once, to learn its name and find
// the anchor, before anything is played or written.
func New(ctx context.Context, cfg Config) (*Tournament, error) {
	specs := cfg.Players
	if len(specs) < 2 {
		return nil, fmt.Errorf("tournament: at least two players are needed, got %d", len(specs))
	}
	if cfg.GamesPerPair < 1 || cfg.GamesPerPair > match.MaxGames {
		return nil, fmt.Errorf("tournament: games per pair must be in 1..%d, got %d", match.MaxGames, cfg.GamesPerPair)
	}
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	// A bare model name is resolved once, so every game plays the same
	// weights, and keeps the name it was typed with.
	specs = slices.Clone(specs)
	for i := range specs {
		resolved, err := player.ResolveWeights(ctx, specs[i])
		if err != nil {
			return nil, err
		}
		specs[i] = resolved
	}
	cfg.Players = specs
	names, err := uniqueNames(ctx, specs)
	if err != nil {
		return nil, err
	}
	t := &Tournament{cfg: cfg, names: names}
	if len(cfg.Anchors) == 0 {
		t.anchors = []elo.Anchor{{Player: 0, Elo: 0}}
		return t, nil
	}
	t.anchors, err = resolveAnchors(cfg.Anchors, names, func(i int, name string) bool {
		return names[i] == name || specs[i].Raw == name || specs[i].Name == name
	})
	if err != nil {
		return nil, err
	}
	return t, nil
}

// resolveAnchors finds each anchor's player: the last index of names for
// which is(index, the anchor's name) holds.
func resolveAnchors(anchors []Anchor, names []string, is func(player int, name string) bool) ([]elo.Anchor, error) {
	var fixed []elo.Anchor
	anchoredBy := map[int]string{}
	for _, a := range anchors {
		player := -1
		for i := range names {
			if is(i, a.Name) {
				player = i
			}
		}
		if player < 0 {
			return nil, &UnknownAnchorError{Name: a.Name, Players: names}
		}
		if other, ok := anchoredBy[player]; ok {
			return nil, &DuplicateAnchorError{Name: other, Other: a.Name, Player: names[player]}
		}
		if math.IsNaN(a.Elo) || math.IsInf(a.Elo, 0) {
			return nil, fmt.Errorf("tournament: anchor %s's Elo must be a finite number, got %v", a.Name, a.Elo)
		}
		anchoredBy[player] = a.Name
		fixed = append(fixed, elo.Anchor{Player: player, Elo: a.Elo})
	}
	return fixed, nil
}

// Play plays every pairing in order, writing each game to pgn when it is
// not nil, and fits the ratings. Games are numbered through the
// tournament: pairing k's games follow the k-1 before it. With a journal,
// the games it holds are not played again; they count, and go to pgn, as
// if they had been. When a pairing fails or the context ends, the
// standings of the games finished so far are returned with the error (nil
// standings when no game finished).
func (t *Tournament) Play(ctx context.Context, pgn io.Writer) (*Standings, error) {
	return t.play(ctx, pgn, nil)
}

// PlayToFile is Play with the games going to the PGN file path, which
// appears whole when the tournament ends, before the journal is removed
// (so a kill in between loses no game), and not at all when it does not
// end: a stopped tournament leaves no file that looks finished.
func (t *Tournament) PlayToFile(ctx context.Context, path string) (*Standings, error) {
	f, err := safefile.Create(path)
	if err != nil {
		return nil, fmt.Errorf("writing %s: %w", path, err)
	}
	defer f.Discard()
	return t.play(ctx, f, f.Commit)
}

// play is Play; finish, when not nil, is called once every game is in
// pgn, before the journal is removed, and its error is the run's.
func (t *Tournament) play(ctx context.Context, pgn io.Writer, finish func() error) (*Standings, error) {
	cfg, specs, names := t.cfg, t.cfg.Players, t.names
	log := cfg.Log
	var pairs []PairScore
	thinking := make([]match.MoveStats, len(specs))
	list := pairings(len(specs), cfg.Gauntlet)
	j, cleanup, err := t.openJournal(ctx, len(list))
	if err != nil {
		return nil, err
	}
	defer cleanup()
	event, tc := "dchess tournament", "-"
	if cfg.Match.TimeControl != nil {
		tc = cfg.Match.TimeControl.String()
	}
	played, toPlay := 0, len(j.Remaining(gameNumbers(0, len(list)*cfg.GamesPerPair)))
	progress := func() {
		if cfg.OnProgress != nil {
			cfg.OnProgress(played, toPlay)
		}
	}
	progress()
	var runErr error
	for k, pr := range list {
		offset := k * cfg.GamesPerPair
		numbers := gameNumbers(offset, cfg.GamesPerPair)
		remaining := j.Remaining(numbers)
		mcfg := cfg.Match
		mcfg.Games, mcfg.Event, mcfg.PGN = cfg.GamesPerPair, event, nil
		mcfg.GameNumbers = make([]int, len(remaining))
		for i, n := range remaining {
			mcfg.GameNumbers[i] = n - offset
		}
		for side, idx := range []int{pr.a, pr.b} {
			spec := specs[idx]
			e := match.Entrant{Name: names[idx], New: func(ctx context.Context) (player.Player, error) { return player.NewFromSpec(ctx, spec) }}
			if side == 0 {
				mcfg.A = e
			} else {
				mcfg.B = e
			}
		}
		resumed := ""
		if done := len(numbers) - len(remaining); done > 0 {
			resumed = fmt.Sprintf(" (%d of %d games from the journal)", done, len(numbers))
		}
		fmt.Fprintf(log, "[%d/%d] %s vs %s%s\n", k+1, len(list), names[pr.a], names[pr.b], resumed)
		// A game that cannot be journalled would be lost on a kill: stop.
		pairCtx, stop := context.WithCancel(ctx)
		var err, writeErr error
		mcfg.OnGame = func(g match.GameResult, rep *match.Report) {
			if writeErr != nil {
				return
			}
			numbered := g
			numbered.Number += offset
			if writeErr = j.Add(names[pr.a], names[pr.b], numbered, event, tc); writeErr != nil {
				stop()
				return
			}
			played++
			progress()
			if w := rep.SpeedWarning(); w != "" {
				fmt.Fprintf(log, "%s vs %s: %s\n", names[pr.a], names[pr.b], w)
			}
			if cfg.Match.OnGame != nil {
				cfg.Match.OnGame(g, rep)
			}
		}
		if len(remaining) > 0 {
			_, err = match.Run(pairCtx, mcfg)
		}
		stop()
		if writeErr != nil {
			err = fmt.Errorf("tournament journal %s: %w", j.Path(), writeErr)
		}
		var pair elo.PairResult
		played := 0
		for _, n := range numbers {
			e, ok := j.Game(n)
			if !ok {
				continue
			}
			played++
			switch e.Result().OutcomeForA() {
			case elo.Win:
				pair.Wins++
			case elo.Loss:
				pair.Losses++
			default:
				pair.Draws++
			}
			thinking[pr.a].Merge(e.ThinkingA)
			thinking[pr.b].Merge(e.ThinkingB)
			if pgn != nil && err == nil {
				err = writeJournalledPGN(pgn, j, n)
			}
		}
		if played > 0 {
			pairs = append(pairs, PairScore{A: names[pr.a], B: names[pr.b], Wins: pair.Wins, Losses: pair.Losses, Draws: pair.Draws})
			fmt.Fprintf(log, "  %s\n", elo.ScoreLine(names[pr.a], names[pr.b], pair.Wins, pair.Losses, pair.Draws))
		}
		if err != nil {
			runErr = err
			break
		}
	}
	if runErr == nil && finish != nil {
		runErr = finish()
	}
	if runErr == nil {
		if err := j.Remove(); err != nil {
			runErr = fmt.Errorf("tournament: %w", err)
		}
	}
	if len(pairs) == 0 {
		return nil, runErr
	}
	if errors.Is(runErr, context.Canceled) {
		runErr = ErrInterrupted
	}

	// Players with no finished game yet (an interrupted run) are left out of the fit.
	st, err := t.Rate(pairs, thinking)
	if err != nil {
		if runErr != nil {
			return nil, runErr
		}
		return nil, err
	}
	return st, runErr
}

// Rate fits the standings to the scores of finished pairings, each naming
// two of the tournament's players by their names in it, as Play does once
// its games are over; it plays nothing. thinking, when not nil, holds each
// player's move tally in the order of Config.Players.
func (t *Tournament) Rate(pairs []PairScore, thinking []match.MoveStats) (*Standings, error) {
	specs := make([]string, len(t.cfg.Players))
	for i, sp := range t.cfg.Players {
		specs[i] = sp.Raw
	}
	return rate(t.names, specs, t.anchors, pairs, thinking)
}

// rate fits ratings to pairs, which name players by names; specs and
// thinking (nil: none) are in the order of names.
func rate(names, specs []string, anchors []elo.Anchor, pairs []PairScore, thinking []match.MoveStats) (*Standings, error) {
	index := make(map[string]int, len(names))
	for i, name := range names {
		index[name] = i
	}
	results := make([]elo.PairResult, len(pairs))
	for k, p := range pairs {
		a, okA := index[p.A]
		b, okB := index[p.B]
		if !okA || !okB {
			return nil, fmt.Errorf("tournament: pairing %s vs %s names a player not in the tournament (players: %s)", p.A, p.B, strings.Join(names, ", "))
		}
		results[k] = elo.PairResult{A: a, B: b, Wins: p.Wins, Losses: p.Losses, Draws: p.Draws}
	}
	ratings, err := elo.FitRatingsAnchored(results, len(names), anchors, elo.DefaultPrior)
	if err != nil {
		return nil, err
	}
	st := &Standings{Pairs: pairs}
	st.FiniteMLE = elo.HasFiniteMLEAnchored(results, len(names), anchors)
	st.Prior = elo.DefaultPrior.String()
	for _, a := range anchors {
		st.Anchors = append(st.Anchors, Anchor{Name: names[a.Player], Elo: a.Elo})
	}
	st.Anchor = st.Anchors[0]
	for i := range names {
		sp := Standing{Name: names[i], Spec: specs[i], Elo: Rating(ratings[i].Elo), Error: Rating(ratings[i].Error)}
		if thinking != nil {
			sp.Thinking = thinking[i]
		}
		for _, r := range results {
			switch i {
			case r.A:
				sp.Games += r.Wins + r.Losses + r.Draws
				sp.Points += float64(r.Wins) + float64(r.Draws)/2
			case r.B:
				sp.Games += r.Wins + r.Losses + r.Draws
				sp.Points += float64(r.Losses) + float64(r.Draws)/2
			}
		}
		if sp.Games > 0 {
			sp.Score = sp.Points / float64(sp.Games)
		}
		st.Players = append(st.Players, sp)
	}
	sort.SliceStable(st.Players, func(i, j int) bool { return st.Players[i].Elo > st.Players[j].Elo })
	for i := range st.Players {
		st.Players[i].Rank = i + 1
	}
	return st, nil
}

// gameNumbers are the tournament's game numbers offset+1 .. offset+count.
func gameNumbers(offset, count int) []int {
	numbers := make([]int, count)
	for i := range numbers {
		numbers[i] = offset + i + 1
	}
	return numbers
}

// openJournal opens the tournament's journal, or, with none configured, a
// throwaway one in a temporary folder (the games are counted from it the
// same way); cleanup closes it and removes the temporary folder. Its
// settings hash covers everything the games depend on: the players and
// their files, the pairings and every match setting.
func (t *Tournament) openJournal(ctx context.Context, pairingCount int) (j *match.Journal, cleanup func(), err error) {
	cfg := t.cfg
	path, tmp := cfg.Journal, ""
	if path == "" {
		if tmp, err = os.MkdirTemp("", "dchess-tournament-"); err != nil {
			return nil, nil, fmt.Errorf("tournament: %w", err)
		}
		path = filepath.Join(tmp, "journal.jsonl")
	}
	fail := func(err error) (*match.Journal, func(), error) {
		if tmp != "" {
			os.RemoveAll(tmp)
		}
		return nil, nil, err
	}
	players := make([]any, len(cfg.Players))
	for i, spec := range cfg.Players {
		files, _, err := match.SettingsFiles(ctx, "", spec.Raw, "random")
		if err != nil {
			return fail(fmt.Errorf("tournament: %w", err))
		}
		players[i] = map[string]any{"spec": spec.Raw, "file_sha256": files["player a"]}
	}
	settings := match.GameSettings(cfg.Match)
	maps.Copy(settings, map[string]any{"kind": "tournament", "players": players, "gauntlet": cfg.Gauntlet,
		"games_per_pair": cfg.GamesPerPair, "pairings": pairingCount})
	j, err = match.OpenJournal(path, jobarray.Hash(settings), cfg.Restart)
	if errors.Is(err, match.ErrJournalSettings) {
		return fail(fmt.Errorf("tournament: cannot continue: %w, from an interrupted run; rerun with its settings to continue, or delete it or use --force to start over", err))
	}
	if err != nil {
		return fail(fmt.Errorf("tournament: %w", err))
	}
	return j, func() {
		j.Close()
		if tmp != "" {
			os.RemoveAll(tmp)
		}
	}, nil
}

// writeJournalledPGN copies game n's PGN from the journal to w.
func writeJournalledPGN(w io.Writer, j *match.Journal, n int) error {
	text, err := j.PGN(n)
	if err != nil {
		return err
	}
	_, err = io.WriteString(w, text)
	return err
}
