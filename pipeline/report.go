package pipeline

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/dchess/dchess/dataset"
	"github.com/dchess/dchess/internal/safefile"
	"github.com/dchess/dchess/models/experience"
	"github.com/dchess/dchess/pipeline/plot"
	"github.com/dchess/dchess/pipeline/selfplay"
	"github.com/dchess/dchess/pipeline/train"
	"github.com/dchess/dchess/search/elo"
	"github.com/dchess/dchess/search/player"
	"github.com/dchess/dchess/search/tournament"
)

// ReportFile is the report inside RunReportDir.
const ReportFile = "report.md"

// WriteReport writes Out/report/report.md from the stages' outputs (and a
// copy of the training curves) and returns its path. Sections whose stage
// has not run are left out.
func WriteReport(ctx context.Context, cfg *RunConfig, timings map[string]float64) (string, error) {
	dir := cfg.path(RunReportDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# dchess pipeline report\n\nWritten %s from the run in `%s`. Every figure below comes from files in that folder.\n\n",
		time.Now().UTC().Format("2006-01-02 15:04 UTC"), cfg.Out)

	if st, err := ReadStandings(cfg); err == nil {
		writeRatings(&b, cfg, st)
	}
	writeTraining(&b, cfg, dir)
	writeData(ctx, &b, cfg)
	writeGames(&b, cfg)
	writeTimings(&b, cfg, timings)

	path := filepath.Join(dir, ReportFile)
	return path, safefile.WriteFile(path, []byte(b.String()))
}

// ReadStandings reads the standings the run's tournament stage wrote.
func ReadStandings(cfg *RunConfig) (*tournament.Standings, error) {
	var st tournament.Standings
	if err := readJSONFile(cfg.path(RunTournament), &st); err != nil {
		return nil, err
	}
	return &st, nil
}

func readJSONFile(path string, v any) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return json.Unmarshal(data, v)
}

// ratingText prints a fitted rating, which the prior keeps finite.
func ratingText(v tournament.Rating) string { return fmt.Sprintf("%+.0f", float64(v)) }

// depthSentence says how deep the tournament's searching players went: the
// config's depth bounds them all; without it each plays its SPEC's depth,
// or the default.
func depthSentence(depth int) string {
	if depth > 0 {
		return fmt.Sprintf("to depth %d at most, or less where their SPEC says so", depth)
	}
	return fmt.Sprintf("to the depth their SPEC gives, or %d where it gives none", defaultMatchDepth)
}

func writeRatings(b *strings.Builder, cfg *RunConfig, st *tournament.Standings) {
	t := cfg.Tournament
	fmt.Fprintf(b, "## Ratings\n\nA round robin of %d games per pair (each opening twice, colours swapped; openings of %d random plies, seed %d). "+
		"The searching players search each move %s; the sequence models "+
		"play the first move of the line they decode and Deep Red's tree plays its stored moves, neither searching. "+
		"Ratings are a maximum-likelihood fit of all games with %s fixed at %g and a stated prior (%s); "+
		"the error bars are 95 %% intervals relative to the anchor.\n\n",
		t.GamesPerPair, t.RandomPlies, t.Seed, depthSentence(t.Depth), st.Anchor.Name, st.Anchor.Elo, orSame(st.Prior, "none"))
	b.WriteString("| Rank | Player | Elo | ± 95 % | Games | Score | ms a move | mean depth |\n| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |\n")
	for _, p := range st.Players {
		bar := strings.TrimPrefix(ratingText(p.Error), "+")
		if p.Name == st.Anchor.Name {
			bar = "anchor"
		}
		depth := "-"
		if p.Thinking.DepthMoves > 0 {
			depth = fmt.Sprintf("%.1f", p.Thinking.MeanDepth())
		}
		fmt.Fprintf(b, "| %d | %s | %s | %s | %d | %.1f %% | %.1f | %s |\n", p.Rank, p.Name, ratingText(p.Elo), bar, p.Games,
			100*p.Score, p.Thinking.MsPerMove(), depth)
	}
	b.WriteString("\n### What each player is\n\n")
	var ev Evaluation
	_ = readJSONFile(cfg.path(RunEvaluation), &ev) // no evaluation: the sentences say less
	for _, p := range st.Players {
		fmt.Fprintf(b, "- %s\n", cfg.explain(p, ev[p.Name]))
	}
	b.WriteString("\n| Pair | Wins | Losses | Draws | Elo difference (95 %) |\n| --- | ---: | ---: | ---: | ---: |\n")
	for _, p := range st.Pairs {
		fmt.Fprintf(b, "| %s vs %s | %d | %d | %d | %s |\n", p.A, p.B, p.Wins, p.Losses, p.Draws,
			elo.FormatDiff(elo.FromWDL(p.Wins, p.Losses, p.Draws)))
	}
	b.WriteString("\nWhere a pair's score is 100 % or 0 %, the difference is a one-sided 95 % bound from an exact " +
		"(Clopper-Pearson) interval on the score, not an estimate.\n\n")

	// The goals: who is clearly above the anchor, and whether learning paid.
	b.WriteString("\n### Checks\n\n")
	for _, p := range st.Players {
		if p.Name == st.Anchor.Name {
			continue
		}
		low := float64(p.Elo) - float64(p.Error)
		verdict := "not clearly above"
		if low > st.Anchor.Elo {
			verdict = "clearly above"
		}
		fmt.Fprintf(b, "- %s is %s %s: %s ± %.0f, so at least %s.\n", p.Name, verdict, st.Anchor.Name,
			ratingText(p.Elo), float64(p.Error), ratingText(tournament.Rating(low)))
	}
	before, after := "", ""
	for _, p := range st.Players {
		switch {
		case strings.Contains(p.Spec, cfg.path(RunExperienceFirst)):
			before = p.Name
		case strings.Contains(p.Spec, cfg.path(RunExperience)):
			after = p.Name
		}
	}
	if before == "" || after == "" {
		return
	}
	for _, p := range st.Pairs {
		var w, l, d int
		switch {
		case p.A == after && p.B == before:
			w, l, d = p.Wins, p.Losses, p.Draws
		case p.A == before && p.B == after:
			w, l, d = p.Losses, p.Wins, p.Draws
		default:
			continue
		}
		e := elo.FromWDL(w, l, d)
		verdict := "is not clearly stronger than"
		if e.LowerBound > 0 {
			verdict = "is stronger than"
		}
		fmt.Fprintf(b, "- After learning, %s %s before (%s): +%d -%d =%d head to head, %s Elo, LOS %.1f %%.\n",
			after, verdict, before, w, l, d, elo.FormatDiff(e), 100*e.LOS)
	}
	if cfg.Experience.Learner != "" {
		var opponents []string
		for _, o := range cfg.Experience.Opponents {
			if s, err := player.ParseSpec(o); err == nil && s.Name != "" {
				o = s.Name
			}
			opponents = append(opponents, o)
		}
		fmt.Fprintf(b, "\n%s learnt from %d rounds of games against %s on the tournament's own openings (`%s`). Deep Red's tree "+
			"generalises nothing: against players that answer the same way every time it replays the lines that won, "+
			"so its gain here is memorised lines from these openings, not strength elsewhere.\n",
			after, cfg.Experience.Rounds, strings.Join(opponents, ", "), RunLearningGames)
	}
	b.WriteString("\n")
}

func writeTraining(b *strings.Builder, cfg *RunConfig, dir string) {
	b.WriteString("## Training\n\n")
	for _, t := range cfg.Train {
		var res train.Result
		if err := readJSONFile(cfg.TrainResultFile(t), &res); err != nil {
			continue
		}
		name := cfg.trainingName(t)
		fmt.Fprintf(b, "**%s** (%s) trained %.2f epochs (%d steps, %.0f samples/s), stopped by %s. ",
			name, res.Family, res.EpochFraction, res.Steps, res.SamplesSec, res.Stopped)
		// The summary's figure lines, between its headline and the weights' path.
		lines := res.Summary()
		fmt.Fprintf(b, "Last epoch: %s", strings.Join(lines[1:len(lines)-1], "; "))
		if res.BestEpoch > 0 {
			fmt.Fprintf(b, "; the exported weights are those of epoch %d", res.BestEpoch)
		}
		b.WriteString(".\n\n")
		png := "loss-" + name + ".png"
		if data, err := os.ReadFile(filepath.Join(cfg.trainDir(t), plot.LossFile)); err == nil {
			if safefile.WriteFile(filepath.Join(dir, png), data) == nil {
				fmt.Fprintf(b, "![%s: training and validation loss](%s)\n\n", name, png)
			}
		}
	}
}

func writeData(ctx context.Context, b *strings.Builder, cfg *RunConfig) {
	b.WriteString("## Data\n\n")
	var sp selfplay.Result
	if readJSONFile(cfg.path("selfplay.json"), &sp) == nil {
		fmt.Fprintf(b, "- Self-play: %d games of %s against %s (1-0 %d, 0-1 %d, draws %d; %.0f plies a game).\n",
			sp.Games, cfg.SelfPlay.A, orSame(cfg.SelfPlay.B, cfg.SelfPlay.A), sp.WhiteWins, sp.BlackWins, sp.Draws, float64(sp.Plies)/float64(max(sp.Games, 1)))
	}
	if d, err := dataset.Open(cfg.path(RunPositions)); err == nil {
		fmt.Fprintf(b, "- Positions: %d from %d games.\n", d.Manifest().Counts.Records, d.Manifest().Counts.Games)
	}
	if d, err := dataset.Open(cfg.path(RunLabelled)); err == nil {
		m := d.Manifest()
		fmt.Fprintf(b, "- Labelled by Stockfish: %d positions (%d failed)", m.Counts.Records, m.Counts.Failed)
		if m.Split != nil {
			fmt.Fprintf(b, "; split by game into train %d, val %d, test %d", m.Split.Records.Train, m.Split.Records.Val, m.Split.Records.Test)
		}
		b.WriteString(".\n")
	}
	for _, f := range []struct{ name, path string }{
		{"Experience tree from self-play", cfg.path(RunExperienceFirst)},
		{"Experience tree after learning", cfg.path(RunExperience)},
	} {
		if !exists(f.path) {
			continue
		}
		db, err := experience.Open(ctx, f.path)
		if err != nil {
			continue
		}
		st, err := db.Stats(ctx)
		db.Close()
		if err == nil {
			fmt.Fprintf(b, "- %s: %d games (%d learnt in play), %d moves from %d positions.\n", f.name, st.Games, st.Learnt, st.Moves, st.Positions)
		}
	}
	b.WriteString("\n")
}

func orSame(b, a string) string {
	if b == "" {
		return a
	}
	return b
}

func writeGames(b *strings.Builder, cfg *RunConfig) {
	b.WriteString("## Games\n\n")
	for _, g := range []struct{ what, file string }{
		{"Self-play games", RunGames}, {"Learning games", RunLearningGames}, {"Tournament games", RunTournamentGames},
	} {
		if exists(cfg.path(g.file)) {
			fmt.Fprintf(b, "- [%s](../%s)\n", g.what, g.file)
		}
	}
	b.WriteString("\n")
}

func writeTimings(b *strings.Builder, cfg *RunConfig, timings map[string]float64) {
	if len(timings) == 0 {
		return
	}
	var order []string
	for _, st := range cfg.Stages(RunOptions{}) {
		order = append(order, st.name)
	}
	b.WriteString("## Time per stage\n\nThe last run of each stage, in seconds of wall time.\n\n| Stage | Seconds |\n| --- | ---: |\n")
	var total float64
	for _, name := range order {
		if s, ok := timings[name]; ok {
			fmt.Fprintf(b, "| %s | %.1f |\n", name, s)
			total += s
		}
	}
	fmt.Fprintf(b, "| total | %.1f |\n", total)
}
