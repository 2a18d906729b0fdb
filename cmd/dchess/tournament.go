package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/dchess/dchess/search/match"
	"github.com/dchess/dchess/search/player"
	"github.com/dchess/dchess/search/tournament"
)

type tournamentOptions struct {
	Players      []string
	Gauntlet     bool
	Anchors      []string
	GamesPerPair int
	JSON         bool
	Force        bool
	gameFlags
}

func newTournamentCmd(s *IOStreams) *cobra.Command {
	opts := &tournamentOptions{}
	cmd := &cobra.Command{
		Use:   "tournament --players SPEC,SPEC,...",
		Short: "Play a round robin or gauntlet and fit Elo ratings",
		Long: `Plays every pair of players (round robin), or the first player against each of the
others (--gauntlet), with the same openings and limits as dchess match, then fits
ratings to all games at once by logistic maximum likelihood. Anchors fix ratings:
by default the first player at 0, or --anchor NAME=ELO, repeated or comma-separated
to fix several players (Stockfish at several UCI_Elo levels, say); the others are
fitted against all of them. Each rating has a 95 % error bar relative to the anchors.

With --pgn every finished game also goes to a journal beside the PGN file
(.NAME.journal.jsonl), so a tournament stopped or killed part way continues when the
same command is run again, playing only the games it lacks; the journal is deleted
when the tournament ends, and the PGN file is written, whole, only then. A journal of
other settings is refused; --force starts over. An existing --pgn file is not replaced
unless --force is given.

"dchess tournament merge" fits the ratings to the games of several tournaments' --json
outputs at once.`,
		Example: `  dchess tournament --players heuristic:depth=1,heuristic:depth=2,heuristic:depth=3,random --games-per-pair 10
  dchess tournament --players cnn,heuristic,"uci:/usr/games/stockfish?UCI_LimitStrength=true&UCI_Elo=1350&name=SF1350" \
      --gauntlet --anchor SF1350=1350 --tc 10+0.1 --games-per-pair 40 --json
  dchess tournament --players "nnue,uci:/usr/games/stockfish?UCI_LimitStrength=true&UCI_Elo=2200&name=SF2200,uci:/usr/games/stockfish?UCI_LimitStrength=true&UCI_Elo=2300&name=SF2300" \
      --gauntlet --anchor SF2200=2200 --anchor SF2300=2300 --tc 10+0.1 --games-per-pair 40
  dchess tournament --players heuristic,random,cnn --movetime 100 --games-per-pair 20 --pgn rr.pgn   # rerun to continue
  dchess tournament merge seed40.json seed41.json   # one fit to the games of both`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runTournament(cmd.Context(), opts, s) },
	}
	cmd.Flags().StringArrayVar(&opts.Players, "players", nil, "player SPECs, comma-separated or repeated")
	cmd.Flags().BoolVar(&opts.Gauntlet, "gauntlet", false, "first player against each of the others only")
	cmd.Flags().StringArrayVar(&opts.Anchors, "anchor", nil, "fix players' ratings: NAME=ELO, comma-separated or repeated (default: first player = 0)")
	cmd.Flags().IntVar(&opts.GamesPerPair, "games-per-pair", 10, "games between each pair of players")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the ratings as one JSON object (its fields: docs/reference/json.md)")
	cmd.Flags().BoolVar(&opts.Force, "force", false, "replace the --pgn file if it exists, and start over instead of continuing an interrupted run's journal")
	opts.gameFlags.add(cmd)
	cmd.AddCommand(newTournamentMergeCmd(s))
	return cmd
}

type tournamentMergeOptions struct {
	Files   []string
	Anchors []string
	JSON    bool
}

func newTournamentMergeCmd(s *IOStreams) *cobra.Command {
	opts := &tournamentMergeOptions{}
	cmd := &cobra.Command{
		Use:   "merge FILE [FILE...]",
		Short: "Fit ratings to the games of several tournaments at once",
		Long: `merge reads the JSON that "dchess tournament --json" printed for each of several
tournaments (the same gauntlet on other openings, say), adds up each pairing's wins,
losses and draws by player name, and fits the ratings to all those games at once, as one
tournament of them would: the same fit, prior and 95 % error bars. It plays nothing.

The anchors are the files' own, which must then agree, or --anchor NAME=ELO for all.
Players are matched by name; when a player's SPEC differs between files (its weights
copied to another folder, say) merge says so.`,
		Example: `  dchess tournament merge seed40.json seed41.json seed42.json
  dchess tournament merge a.json b.json --anchor SF2200=2200,SF2300=2300 --json`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("tournament merge needs at least one FILE that dchess tournament --json wrote")
			}
			opts.Files = args
			return runTournamentMerge(opts, s)
		},
	}
	cmd.Flags().StringArrayVar(&opts.Anchors, "anchor", nil, "fix players' ratings: NAME=ELO, comma-separated or repeated (default: the files' anchors)")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the ratings as one JSON object (its fields: docs/reference/json.md)")
	inputArgs(cmd, inputFile)
	return cmd
}

func runTournamentMerge(opts *tournamentMergeOptions, s *IOStreams) error {
	anchors, err := tournament.ParseAnchors(opts.Anchors...)
	if err != nil {
		return usagef("--anchor %v", err)
	}
	merged, err := tournament.MergeFiles(opts.Files, anchors)
	if tournament.IsAnchorError(err) {
		return usagef("--anchor: %v", err)
	}
	if err != nil {
		return err
	}
	s.Infof("Merged %d standings files: %d games\n", len(merged.Files), merged.Games())
	for _, name := range merged.SpecsDiffer {
		s.Infof("%s has another SPEC in some files; its games are pooled by name\n", name)
	}
	return s.printReport(opts.JSON, merged, merged.Text)
}

func runTournament(ctx context.Context, opts *tournamentOptions, s *IOStreams) error {
	var specs []player.Spec
	for _, list := range opts.Players {
		for _, raw := range player.SplitList(list) {
			spec, err := playerFlag("players", raw)
			if err != nil {
				return err
			}
			specs = append(specs, spec)
		}
	}
	if len(specs) < 2 {
		return usagef("--players needs at least two player SPECs, got %d", len(specs))
	}
	if opts.GamesPerPair < 1 || opts.GamesPerPair > match.MaxGames {
		return usagef("--games-per-pair must be in 1..%d, got %d", match.MaxGames, opts.GamesPerPair)
	}
	base, err := opts.Settings.Config((opts.GamesPerPair + 1) / 2)
	if err != nil {
		return err
	}
	base.PGNTimes = true // as match's: when each game was played
	cfg := tournament.Config{Players: specs, Gauntlet: opts.Gauntlet, GamesPerPair: opts.GamesPerPair, Match: base, Restart: opts.Force}
	if opts.PGN != "" {
		cfg.Journal = match.JournalBeside(opts.PGN)
	}
	if cfg.Anchors, err = tournament.ParseAnchors(opts.Anchors...); err != nil {
		return usagef("--anchor %v", err)
	}
	bar := s.lazyProgress("tournament", "games")
	if !s.Quiet {
		cfg.Log = bar
	}
	cfg.OnProgress = func(played, toPlay int) { bar.Set(int64(played), int64(toPlay)) }
	t, err := tournament.New(ctx, cfg)
	if tournament.IsAnchorError(err) {
		return usagef("--anchor: %v", err)
	}
	if err != nil {
		return err
	}
	// The --pgn file is checked after New, so a bad --anchor is named first.
	st, runErr := t.PlayTo(ctx, opts.PGN, opts.Force)
	bar.End(runErr)
	if st == nil {
		return runErr
	}
	if err := s.printReport(opts.JSON, st, st.Text); err != nil {
		return err
	}
	return runErr
}
