package main

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/dchess/dchess/search/elo"
	"github.com/dchess/dchess/search/match"
	"github.com/dchess/dchess/search/player"
)

func init() { register(newTournamentCmd) }

type tournamentOptions struct {
	Players      []string
	Gauntlet     bool
	Anchor       string
	GamesPerPair int
	JSON         bool
	gameFlags
}

func newTournamentCmd(s *IOStreams) *cobra.Command {
	opts := &tournamentOptions{}
	cmd := &cobra.Command{
		Use:   "tournament --players SPEC,SPEC,...",
		Short: "Play a round robin or gauntlet and fit Elo ratings",
		Long: `Plays every pair of players (round robin), or the first player against each of the
others (--gauntlet), with the same openings and limits as dchess match, then fits
ratings to all games at once by logistic maximum likelihood. One player is the
anchor: by default the first at 0, or --anchor NAME=ELO. Each rating has a 95 %
error bar relative to the anchor.`,
		Example: `  dchess tournament --players heuristic:depth=1,heuristic:depth=2,heuristic:depth=3,random --games-per-pair 10
  dchess tournament --players cnn,heuristic,"uci:/usr/games/stockfish?UCI_LimitStrength=true&UCI_Elo=1350&name=SF1350" \
      --gauntlet --anchor SF1350=1350 --tc 10+0.1 --games-per-pair 40 --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runTournament(cmd.Context(), opts, s) },
	}
	cmd.Flags().StringArrayVar(&opts.Players, "players", nil, "player SPECs, comma-separated or repeated")
	cmd.Flags().BoolVar(&opts.Gauntlet, "gauntlet", false, "first player against each of the others only")
	cmd.Flags().StringVar(&opts.Anchor, "anchor", "", "fix one player's rating: NAME=ELO (default: first player = 0)")
	cmd.Flags().IntVar(&opts.GamesPerPair, "games-per-pair", 10, "games between each pair of players")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the ratings as one JSON object")
	opts.gameFlags.add(cmd)
	return cmd
}

// tournamentPlayer is one entrant with its tally over all its games.
type tournamentPlayer struct {
	Rank   int       `json:"rank"`
	Name   string    `json:"name"`
	Spec   string    `json:"spec"`
	Elo    elo.Float `json:"elo"`
	Error  elo.Float `json:"error"`
	Games  int       `json:"games"`
	Points float64   `json:"points"`
	Score  float64   `json:"score"`
}

type tournamentPair struct {
	A      string `json:"a"`
	B      string `json:"b"`
	Wins   int    `json:"wins"`
	Losses int    `json:"losses"`
	Draws  int    `json:"draws"`
}

type tournamentReport struct {
	Players []tournamentPlayer `json:"players"`
	Pairs   []tournamentPair   `json:"pairs"`
	Anchor  struct {
		Name string  `json:"name"`
		Elo  float64 `json:"elo"`
	} `json:"anchor"`
	// FiniteMLE is false when some player won or lost every game and the
	// fit needed virtual draws to stay finite.
	FiniteMLE bool `json:"finite_mle"`
}

func runTournament(ctx context.Context, opts *tournamentOptions, s *IOStreams) error {
	if ctx == nil {
		ctx = context.Background()
	}
	var specs []player.Spec
	for _, list := range opts.Players {
		for _, raw := range player.SplitList(list) {
			spec, err := player.ParseSpec(raw)
			if err != nil {
				return usagef("--players: %v", err)
			}
			specs = append(specs, spec)
		}
	}
	if len(specs) < 2 {
		return usagef("--players needs at least two player SPECs, got %d", len(specs))
	}
	if opts.GamesPerPair < 1 {
		return usagef("--games-per-pair must be at least 1, got %d", opts.GamesPerPair)
	}
	base, err := opts.gameFlags.config((opts.GamesPerPair + 1) / 2)
	if err != nil {
		return err
	}

	// Make each player once to check it and learn its name; names must be
	// unique for the table and --anchor.
	names := make([]string, len(specs))
	seen := map[string]int{}
	for i, spec := range specs {
		p, err := player.NewFromSpec(ctx, spec)
		if err != nil {
			return err
		}
		names[i] = p.Name()
		p.Close()
		seen[names[i]]++
		if seen[names[i]] > 1 {
			names[i] = fmt.Sprintf("%s (%d)", names[i], seen[names[i]])
		}
	}
	anchor, anchorElo := 0, 0.0
	if opts.Anchor != "" {
		name, value, ok := strings.Cut(opts.Anchor, "=")
		v, err := strconv.ParseFloat(value, 64)
		if !ok || err != nil {
			return usagef("--anchor wants NAME=ELO, got %q", opts.Anchor)
		}
		anchor = -1
		for i := range specs {
			if names[i] == name || specs[i].Raw == name || specs[i].Name == name {
				anchor = i
			}
		}
		if anchor < 0 {
			return usagef("--anchor: no player named %q (players: %s)", name, strings.Join(names, ", "))
		}
		anchorElo = v
	}

	type pairing struct{ a, b int }
	var pairings []pairing
	for i := range specs {
		for j := i + 1; j < len(specs); j++ {
			if opts.Gauntlet && i != 0 {
				continue
			}
			pairings = append(pairings, pairing{i, j})
		}
	}
	pgn, closePGN, err := openPGN(opts.PGN)
	if err != nil {
		return err
	}
	rep := tournamentReport{}
	var results []elo.PairResult
	var runErr error
	for k, pr := range pairings {
		cfg := base
		cfg.Games, cfg.Event = opts.GamesPerPair, "dchess tournament"
		if pgn != nil {
			cfg.PGN = pgn
		}
		for side, idx := range []int{pr.a, pr.b} {
			spec := specs[idx]
			e := match.Entrant{Name: names[idx], New: func(ctx context.Context) (player.Player, error) { return player.NewFromSpec(ctx, spec) }}
			if side == 0 {
				cfg.A = e
			} else {
				cfg.B = e
			}
		}
		s.Infof("[%d/%d] %s vs %s\n", k+1, len(pairings), names[pr.a], names[pr.b])
		mrep, err := match.Run(ctx, cfg)
		if mrep != nil && mrep.Games > 0 {
			results = append(results, elo.PairResult{A: pr.a, B: pr.b, Wins: mrep.Wins, Losses: mrep.Losses, Draws: mrep.Draws})
			rep.Pairs = append(rep.Pairs, tournamentPair{A: names[pr.a], B: names[pr.b], Wins: mrep.Wins, Losses: mrep.Losses, Draws: mrep.Draws})
			s.Infof("  %s\n", elo.ScoreLine(names[pr.a], names[pr.b], mrep.Wins, mrep.Losses, mrep.Draws))
		}
		if err != nil {
			runErr = err
			break
		}
	}
	if err := closePGN(); err != nil && runErr == nil {
		runErr = err
	}
	if len(results) == 0 {
		return runErr
	}

	// Players with no finished game yet (an interrupted run) are left out of the fit.
	ratings, err := elo.FitRatings(results, len(specs), anchor, anchorElo)
	if err != nil {
		if runErr != nil {
			return runErr
		}
		return err
	}
	rep.FiniteMLE = elo.HasFiniteMLE(results, len(specs))
	rep.Anchor.Name, rep.Anchor.Elo = names[anchor], anchorElo
	for i := range specs {
		tp := tournamentPlayer{Name: names[i], Spec: specs[i].Raw, Elo: elo.Float(ratings[i].Elo), Error: elo.Float(ratings[i].Error)}
		for _, r := range results {
			switch i {
			case r.A:
				tp.Games += r.Wins + r.Losses + r.Draws
				tp.Points += float64(r.Wins) + float64(r.Draws)/2
			case r.B:
				tp.Games += r.Wins + r.Losses + r.Draws
				tp.Points += float64(r.Losses) + float64(r.Draws)/2
			}
		}
		if tp.Games > 0 {
			tp.Score = tp.Points / float64(tp.Games)
		}
		rep.Players = append(rep.Players, tp)
	}
	sort.SliceStable(rep.Players, func(i, j int) bool { return rep.Players[i].Elo > rep.Players[j].Elo })
	for i := range rep.Players {
		rep.Players[i].Rank = i + 1
	}

	if opts.JSON {
		if err := writeJSON(s.Out, rep); err != nil {
			return err
		}
	} else {
		tw := tabwriter.NewWriter(s.Out, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "Rank\tName\tElo\t+/-\tGames\tScore\t")
		for _, p := range rep.Players {
			fmt.Fprintf(tw, "%d\t%s\t%.1f\t%.1f\t%d\t%.1f %%\t\n", p.Rank, p.Name, float64(p.Elo), float64(p.Error), p.Games, 100*p.Score)
		}
		tw.Flush()
		fmt.Fprintf(s.Out, "Anchor: %s = %g", names[anchor], anchorElo)
		if !rep.FiniteMLE {
			fmt.Fprint(s.Out, " (a player won or lost every game: ratings use one virtual draw per pair)")
		}
		fmt.Fprintln(s.Out)
	}
	if runErr != nil {
		if errors.Is(runErr, context.Canceled) {
			return errors.New("tournament interrupted; ratings cover the finished games")
		}
		return runErr
	}
	return nil
}
