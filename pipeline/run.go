// Package pipeline is `dchess pipeline run`: the end-to-end run a config
// describes (self-play, ingest, label, split, train, export, experience,
// evaluate, tournament) and its report, on top of pipeline/selfplay,
// pipeline/train, pipeline/plot and pipeline/evaluate.
package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/dchess/dchess/dataset"
	"github.com/dchess/dchess/dataset/ingest"
	"github.com/dchess/dchess/dataset/label"
	"github.com/dchess/dchess/internal/safefile"
	"github.com/dchess/dchess/models/experience"
	"github.com/dchess/dchess/models/family"
	"github.com/dchess/dchess/pipeline/evaluate"
	"github.com/dchess/dchess/pipeline/plot"
	"github.com/dchess/dchess/pipeline/selfplay"
	"github.com/dchess/dchess/pipeline/train"
	"github.com/dchess/dchess/search"
	"github.com/dchess/dchess/search/match"
	"github.com/dchess/dchess/search/player"
	"github.com/dchess/dchess/search/tournament"
)

// RunConfig is a `dchess pipeline run` config (configs/quickstart.yaml):
// self-play → ingest → label → split → train → export → experience tree
// → learning games → tournament → report, all under Out.
type RunConfig struct {
	// Out is the folder every output of the run goes to, relative to
	// the working folder (required); a run started again with the same
	// Out resumes at its first unfinished stage.
	Out string `yaml:"out"`
	// Concurrency is the number of games played at once in self-play,
	// the learning games and the tournament (0: one).
	Concurrency int `yaml:"concurrency"`
	// SelfPlay plays the games everything else learns from, into
	// games.pgn: A against B on generated openings, colours swapped.
	SelfPlay struct {
		// A is the first player's SPEC (required).
		A string `yaml:"a"`
		// B is its opponent's SPEC ("": the same as A).
		B string `yaml:"b"`
		// Games is the number of games, in pairs of the same opening
		// with colours swapped.
		Games int `yaml:"games"`
		// OpeningPlies is the number of random plies of each generated
		// opening (0: 6), kept when the heuristic scores it within
		// ±BalanceCP centipawns (0: any).
		OpeningPlies int `yaml:"opening_plies"`
		BalanceCP    int `yaml:"balance_cp"`
		// RandomRate is the chance that a move is a uniformly random legal
		// move instead of the player's, within the first RandomRatePlies
		// plies of each game (0: the whole game).
		RandomRate      float64 `yaml:"random_rate"`
		RandomRatePlies int     `yaml:"random_rate_plies"`
		// Depth caps the search depth of every move (0: no cap); a move
		// that neither it nor the player's SPEC bounds is searched to
		// depth 4.
		Depth int `yaml:"depth"`
		// MaxMoves adjudicates a game a draw after this many full moves
		// (0: no limit).
		MaxMoves int `yaml:"max_moves"`
		// Seed seeds the openings and the random moves.
		Seed uint64 `yaml:"seed"`
	} `yaml:"selfplay"`
	// Ingest turns the self-play games into the positions dataset.
	Ingest struct {
		// MinPly skips the positions before this ply.
		MinPly int `yaml:"min_ply"`
	} `yaml:"ingest"`
	// Label has Stockfish score every position, as dchess label.
	Label struct {
		// Stockfish is the engine's path ("": $DCHESS_STOCKFISH, then
		// stockfish on PATH, then /usr/games/stockfish).
		Stockfish string `yaml:"stockfish"`
		// Depth is the search depth per position; Nodes the nodes per
		// position instead (reproducible labels). At most one of them is
		// set; neither is depth 8.
		Depth int   `yaml:"depth"`
		Nodes int64 `yaml:"nodes"`
		// PV keeps Stockfish's principal variation up to this many moves
		// (0: none), which the sequence families learn from.
		PV int `yaml:"pv"`
		// Workers is the number of Stockfish processes, each with one
		// thread (0: one per CPU).
		Workers int `yaml:"workers"`
	} `yaml:"label"`
	// Split assigns each game, by a seeded hash, to the train, val or
	// test split.
	Split struct {
		// Val and Test are the fractions of games for validation and for
		// testing; the rest, which must not be empty, is for training.
		Val  float64 `yaml:"val"`
		Test float64 `yaml:"test"`
		// Seed seeds the hash that assigns the splits.
		Seed uint64 `yaml:"seed"`
	} `yaml:"split"`
	// Train lists the models the run trains, in order; one mapping reads
	// as a list of one.
	Train Trainings `yaml:"train"`
	// Experience builds Deep Red's experience tree from the self-play
	// games, then lets a learning player add to a copy of it by playing.
	Experience struct {
		// Learner is the learning player's SPEC ("": no learning games);
		// Opponents are whom it learns against, on the tournament's
		// openings, Rounds times each with a new seed.
		Learner   string   `yaml:"learner"`
		Opponents []string `yaml:"opponents"`
		Rounds    int      `yaml:"rounds"`
	} `yaml:"experience"`
	// Evaluate scores every tournament player that has a static figure
	// (an evaluator's accuracy, a comparator's pairs, a sequence model's
	// moves) on the first Positions records of the test split, for the
	// report (0: no evaluation).
	Evaluate struct {
		// Positions is the number of test-split records (or pairs) each
		// player's figures are measured on (0: no evaluation).
		Positions int `yaml:"positions"`
		// Workers is how many positions are scored side by side, each
		// with a player of its own (0: one per core); every figure but the
		// time per move is the same for any number.
		Workers int `yaml:"workers"`
	} `yaml:"evaluate"`
	// Tournament plays every pair of players and rates them, for the
	// report.
	Tournament struct {
		// Players are the players' SPECs (at least two); they may name
		// the run's files: {model:NAME}, {experience}, ...
		Players []string `yaml:"players"`
		// Anchor fixes one player's rating, NAME=ELO ("": the first
		// player at 0).
		Anchor string `yaml:"anchor"`
		// GamesPerPair is the number of games between each pair of
		// players, in pairs of the same opening with colours swapped.
		GamesPerPair int `yaml:"games_per_pair"`
		// RandomPlies is the number of random plies of each opening.
		RandomPlies int `yaml:"random_plies"`
		// Depth caps the search depth of every move (0: no cap); a move
		// that neither it nor the player's SPEC bounds is searched to
		// depth 4.
		Depth int `yaml:"depth"`
		// MaxMoves adjudicates a game a draw after this many full moves
		// (0: no limit).
		MaxMoves int `yaml:"max_moves"`
		// Seed seeds the openings.
		Seed uint64 `yaml:"seed"`
	} `yaml:"tournament"`

	// dir is the config file's folder.
	dir string
}

// Training is one model a run trains on the labelled dataset and exports.
type Training struct {
	// Name names its run folder runs/<name>, its weights <name>.dcw and
	// the placeholder {model:<name>} ("": the family's name).
	Name string `yaml:"name"`
	// Model is the family trained (required), as dchess train --model.
	Model string `yaml:"model"`
	// Config is the training config ("": the built-in
	// configs/<model>.yaml); a path is relative to the run config's file.
	Config string `yaml:"config"`
	// Init names an earlier training whose weights this one starts from
	// (siamese from autoencoder).
	Init string `yaml:"init"`
	// Epochs, MaxSteps and Seed override the training config's epochs,
	// max_steps and seed (0: the config's).
	Epochs   int   `yaml:"epochs"`
	MaxSteps int64 `yaml:"max_steps"`
	Seed     int64 `yaml:"seed"`
}

// Trainings are a run's trainings.
type Trainings []Training

// UnmarshalYAML reads a list of trainings, or one training as a mapping
// (the form of configs written before a run could train several).
func (t *Trainings) UnmarshalYAML(node *yaml.Node) error {
	if node.Kind == yaml.MappingNode {
		var one Training
		if err := node.Decode(&one); err != nil {
			return err
		}
		*t = Trainings{one}
		return nil
	}
	var list []Training
	if err := node.Decode(&list); err != nil {
		return err
	}
	*t = list
	return nil
}

// name is the training's name: its own, else "model" for a run's only
// training (runs/model and model.dcw, as before runs trained several),
// else its family's.
func (c *RunConfig) trainingName(t Training) string {
	switch {
	case t.Name != "":
		return t.Name
	case len(c.Train) == 1:
		return "model"
	}
	return t.Model
}

func (c *RunConfig) trainDir(t Training) string {
	return c.path(filepath.Join("runs", c.trainingName(t)))
}
func (c *RunConfig) weights(t Training) string { return c.path(c.trainingName(t) + ".dcw") }

// Placeholders in player SPECs, replaced by the pipeline's own files.
const (
	PlaceholderModel            = "{model}"             // the first training's exported weights; {model:NAME} a named one's
	PlaceholderExperience       = "{experience}"        // the tree after learning
	PlaceholderExperienceBefore = "{experience_before}" // the tree from self-play only
)

// LoadRunConfig reads a pipeline config. Unknown keys are errors.
func LoadRunConfig(path string) (*RunConfig, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	cfg := &RunConfig{}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(cfg); err != nil {
		// yaml lists several problems on several lines; keep one line.
		return nil, fmt.Errorf("%s: %s", path, strings.Join(strings.Fields(err.Error()), " "))
	}
	cfg.dir = filepath.Dir(path)
	if err := cfg.check(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return cfg, nil
}

// runBounds bound every size of a run config, checked before anything
// runs, so a slip such as games: 100000000000 is a one-line error and not
// memory exhausted part way (the trainings' own configs have theirs).
var runBounds = family.Bounds{
	"concurrency":                {Min: 0, Max: 1024},
	"selfplay.games":             {Min: 2, Max: match.MaxGames},
	"selfplay.opening_plies":     {Min: 0, Max: 200},
	"selfplay.balance_cp":        {Min: 0, Max: 100_000},
	"selfplay.random_rate_plies": {Min: 0, Max: 10_000},
	"selfplay.depth":             {Min: 0, Max: search.MaxPly},
	"selfplay.max_moves":         {Min: 0, Max: 100_000},
	"ingest.min_ply":             {Min: 0, Max: 1<<16 - 1},
	"label.depth":                {Min: 0, Max: 250},
	"label.nodes":                {Min: 0, Max: 1 << 40},
	"label.pv":                   {Min: 0, Max: 256},
	"label.workers":              {Min: 0, Max: 1024},
	"train":                      {Min: 1, Max: 64},
	"train[].epochs":             {Min: 0, Max: 1_000_000_000},
	"train[].max_steps":          {Min: 0, Max: 1_000_000_000_000},
	"experience.opponents":       {Min: 0, Max: 64},
	"experience.rounds":          {Min: 0, Max: 100_000},
	"evaluate.positions":         {Min: 0, Max: 100_000_000},
	"evaluate.workers":           {Min: 0, Max: 1024},
	"tournament.players":         {Min: 2, Max: 256},
	"tournament.games_per_pair":  {Min: 2, Max: match.MaxGames},
	"tournament.random_plies":    {Min: 1, Max: 200},
	"tournament.depth":           {Min: 0, Max: search.MaxPly},
	"tournament.max_moves":       {Min: 0, Max: 100_000},
}

func (c *RunConfig) check() error {
	if err := family.CheckBounds(c, runBounds); err != nil {
		return err
	}
	switch {
	case c.Out == "":
		return errors.New("out: the folder everything goes to is required")
	case c.Concurrency < 0:
		return errors.New("concurrency must not be negative")
	case c.SelfPlay.A == "" || c.SelfPlay.Games < 2:
		return errors.New("selfplay: a (a player SPEC) and games (at least 2) are required")
	case len(c.Train) == 0:
		return errors.New("train: at least one model is required")
	case len(c.Tournament.Players) < 2 || c.Tournament.GamesPerPair < 2 || c.Tournament.RandomPlies < 1:
		return errors.New("tournament: at least two players, games_per_pair of at least 2 and random_plies of at least 1 are required")
	case c.Experience.Learner != "" && (len(c.Experience.Opponents) == 0 || c.Experience.Rounds < 1):
		return errors.New("experience: a learner needs opponents and rounds of at least 1")
	case c.Split.Val < 0 || c.Split.Test < 0 || c.Split.Val+c.Split.Test >= 1:
		return errors.New("split: val and test must be fractions that leave some games for training")
	}
	names := map[string]bool{}
	for _, t := range c.Train {
		name := c.trainingName(t)
		switch {
		case t.Model == "":
			return fmt.Errorf("train %s: model is required", name)
		case names[name]:
			return fmt.Errorf("train: two trainings are called %s: give them names", name)
		case t.Init != "" && !names[t.Init]:
			return fmt.Errorf("train %s: init %q is not an earlier training", name, t.Init)
		case t.Epochs < 0 || t.MaxSteps < 0:
			return fmt.Errorf("train %s: epochs and max_steps must not be negative", name)
		}
		f, err := family.Lookup(t.Model)
		if err != nil {
			return fmt.Errorf("train %s: %w", name, err)
		}
		if t.Init != "" && f.SetInit == nil {
			return fmt.Errorf("train %s: %s does not start from another run's weights (init)", name, t.Model)
		}
		if _, err := c.trainConfig(t); err != nil {
			return fmt.Errorf("train %s: %w", name, err)
		}
		names[name] = true
	}
	specs := append(append([]string{c.SelfPlay.A, c.SelfPlay.B, c.Experience.Learner}, c.Experience.Opponents...), c.Tournament.Players...)
	for _, s := range specs {
		if s == "" {
			continue
		}
		if _, err := player.ParseSpec(c.expand(s, "")); err != nil {
			return err
		}
	}
	return nil
}

// Files of a pipeline run under Out.
const (
	RunGames           = "games.pgn"
	RunPositions       = "positions"
	RunLabelled        = "labelled"
	RunExperienceFirst = "experience-before.db"
	RunExperience      = "experience.db"
	RunLearningGames   = "learning.pgn"
	RunEvaluation      = "evaluation.json"
	RunTournament      = "tournament.json"
	RunTournamentGames = "tournament.pgn"
	RunTimings         = "timings.json"
	RunReportDir       = "report"
)

func (c *RunConfig) path(name string) string { return filepath.Join(c.Out, name) }

// expand replaces the placeholders; experience is the tree the learning
// player writes to ("" for the finished one).
func (c *RunConfig) expand(spec, experiencePath string) string {
	if experiencePath == "" {
		experiencePath = c.path(RunExperience)
	}
	pairs := []string{PlaceholderExperience, experiencePath, PlaceholderExperienceBefore, c.path(RunExperienceFirst)}
	for _, t := range c.Train {
		pairs = append(pairs, "{model:"+c.trainingName(t)+"}", c.weights(t))
	}
	if len(c.Train) > 0 {
		pairs = append(pairs, PlaceholderModel, c.weights(c.Train[0]))
	}
	return strings.NewReplacer(pairs...).Replace(spec)
}

// RunOptions are what a run needs besides its config.
type RunOptions struct {
	// Log receives a line per stage and the stages' own summaries.
	Log io.Writer
	// Progress, when set, makes the progress reporters of training and labelling.
	Progress train.ProgressFunc
	// Command is recorded in the datasets' manifests.
	Command []string
}

// StageResult is one stage of a run.
type StageResult struct {
	Name    string  `json:"name"`
	Output  string  `json:"output"`
	Skipped bool    `json:"skipped"` // its output was already complete
	Seconds float64 `json:"seconds"`
}

// Run runs every stage whose output is not complete yet, then writes the
// report. Stages write their outputs under temporary names and rename them
// when done (datasets, PGNs, databases), so an interrupted run resumes at
// the first unfinished stage; labelling and training resume within the
// stage too.
func Run(ctx context.Context, cfg *RunConfig, opts RunOptions) ([]StageResult, error) {
	if opts.Log == nil {
		opts.Log = io.Discard
	}
	if err := cfg.checkOut(); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(cfg.Out, 0o755); err != nil {
		return nil, err
	}
	timings := readTimings(cfg.path(RunTimings))
	stages := cfg.Stages(opts)
	var results []StageResult
	for _, st := range stages {
		res := StageResult{Name: st.name, Output: st.output}
		if st.done() {
			res.Skipped = true
			fmt.Fprintf(opts.Log, "== %s: done before (%s)\n", st.name, st.output)
			results = append(results, res)
			continue
		}
		fmt.Fprintf(opts.Log, "== %s → %s\n", st.name, st.output)
		began := time.Now()
		if err := st.run(ctx); err != nil {
			return results, fmt.Errorf("pipeline stage %s: %w", st.name, err)
		}
		res.Seconds = time.Since(began).Seconds()
		timings[st.name] = res.Seconds
		if err := writeJSONFile(cfg.path(RunTimings), timings); err != nil {
			return results, err
		}
		fmt.Fprintf(opts.Log, "   %s took %.1fs\n", st.name, res.Seconds)
		results = append(results, res)
	}
	report, err := WriteReport(ctx, cfg, timings)
	if err != nil {
		return results, fmt.Errorf("pipeline report: %w", err)
	}
	fmt.Fprintf(opts.Log, "== report: %s\n", report)
	return results, nil
}

type stage struct {
	name, output string
	done         func() bool
	run          func(ctx context.Context) error
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func (c *RunConfig) Stages(opts RunOptions) []stage {
	var out []stage
	for _, st := range c.fixedStages(opts) {
		if st.name != "trainings" {
			out = append(out, st)
			continue
		}
		for _, t := range c.Train {
			name := c.trainingName(t)
			out = append(out,
				stage{"train " + name, c.trainDir(t), func() bool { return exists(filepath.Join(c.trainDir(t), family.ModelFile)) }, c.train(t, opts)},
				stage{"export " + name, c.weights(t), func() bool { return exists(c.weights(t)) }, c.export(t, opts)})
		}
	}
	return out
}

func (c *RunConfig) fixedStages(opts RunOptions) []stage {
	datasetDone := func(dir string) func() bool {
		return func() bool { return exists(filepath.Join(dir, dataset.ManifestFile)) }
	}
	return []stage{
		{"selfplay", c.path(RunGames), func() bool { return exists(c.path(RunGames)) }, c.selfPlay(opts)},
		{"ingest", c.path(RunPositions), datasetDone(c.path(RunPositions)), c.ingest(opts)},
		{"label", c.path(RunLabelled), datasetDone(c.path(RunLabelled)), c.label(opts)},
		{"split", c.path(RunLabelled), c.splitDone, c.split(opts)},
		{"trainings", "", nil, nil},
		{"experience", c.path(RunExperienceFirst), func() bool { return exists(c.path(RunExperienceFirst)) }, c.buildExperience(opts)},
		{"learn", c.path(RunExperience), func() bool { return c.Experience.Learner == "" || exists(c.path(RunExperience)) }, c.learn(opts)},
		{"evaluate", c.path(RunEvaluation), func() bool { return c.Evaluate.Positions == 0 || exists(c.path(RunEvaluation)) }, c.evaluate(opts)},
		{"tournament", c.path(RunTournament), func() bool { return exists(c.path(RunTournament)) }, c.tournament(opts)},
	}
}

func (c *RunConfig) concurrency() int { return max(c.Concurrency, 1) }

func (c *RunConfig) selfPlay(opts RunOptions) func(context.Context) error {
	return func(ctx context.Context) error {
		sp := c.SelfPlay
		res, err := selfplay.Run(ctx, selfplay.Options{
			Match: match.Config{Concurrency: c.concurrency(), Depth: sp.Depth, DefaultDepth: defaultMatchDepth, MaxMoves: sp.MaxMoves, Seed: sp.Seed},
			A:     sp.A, B: sp.B, Games: sp.Games, OpeningPlies: sp.OpeningPlies, BalanceCP: sp.BalanceCP,
			BalanceDepth: selfplay.DefaultBalanceDepth, RandomRate: sp.RandomRate, RandomPlies: sp.RandomRatePlies, Output: c.path(RunGames),
		})
		if err != nil {
			return err
		}
		fmt.Fprintf(opts.Log, "   %d games (1-0 %d, 0-1 %d, draws %d), %.0f plies a game\n",
			res.Games, res.WhiteWins, res.BlackWins, res.Draws, float64(res.Plies)/float64(max(res.Games, 1)))
		return writeJSONFile(c.path("selfplay.json"), res)
	}
}

func (c *RunConfig) ingest(opts RunOptions) func(context.Context) error {
	return func(ctx context.Context) error {
		iopts := ingest.DefaultOptions()
		iopts.MinPly = c.Ingest.MinPly
		sum, st, err := ingest.ToDataset(ctx, []string{c.path(RunGames)}, nil, iopts,
			ingest.Destination{Out: c.path(RunPositions), Command: opts.Command})
		if err != nil {
			return err
		}
		fmt.Fprintf(opts.Log, "   %d games, %d positions stored\n", sum.GamesKept, st.Records)
		return nil
	}
}

// FindStockfish is the engine the label stage uses: the config's, then
// $DCHESS_STOCKFISH, then stockfish on PATH, then Debian's /usr/games/stockfish.
func FindStockfish(configured string) (string, error) {
	for _, p := range []string{configured, os.Getenv("DCHESS_STOCKFISH")} {
		if p != "" {
			return p, nil
		}
	}
	if p, err := exec.LookPath("stockfish"); err == nil {
		return p, nil
	}
	if exists("/usr/games/stockfish") {
		return "/usr/games/stockfish", nil
	}
	//lint:ignore ST1005 the message starts with a name
	return "", errors.New("Stockfish not found: install it (apt-get install stockfish), set DCHESS_STOCKFISH, or set label.stockfish in the config")
}

func (c *RunConfig) label(opts RunOptions) func(context.Context) error {
	return func(ctx context.Context) error {
		sf, err := FindStockfish(c.Label.Stockfish)
		if err != nil {
			return err
		}
		sum, err := label.Run(ctx, label.Options{Stockfish: sf, Input: c.path(RunPositions), Output: c.path(RunLabelled),
			Depth: c.Label.Depth, Nodes: c.Label.Nodes, PV: c.Label.PV, Workers: c.Label.Workers, Command: opts.Command}, nil)
		if err != nil {
			return err
		}
		fmt.Fprintf(opts.Log, "   %d positions labelled by %s (%d failed), %.0f positions/s\n",
			sum.Records, sum.Engine, sum.Failed, sum.PositionsPerSecond)
		return nil
	}
}

func (c *RunConfig) splitDone() bool {
	d, err := dataset.Open(c.path(RunLabelled))
	if err != nil {
		return false
	}
	sp := d.Manifest().Split
	return sp != nil && sp.Val == c.Split.Val && sp.Test == c.Split.Test && sp.Seed == c.Split.Seed
}

func (c *RunConfig) split(opts RunOptions) func(context.Context) error {
	return func(ctx context.Context) error {
		m, err := dataset.WriteSplitContext(ctx, c.path(RunLabelled), c.Split.Val, c.Split.Test, c.Split.Seed)
		if err != nil {
			return err
		}
		fmt.Fprintf(opts.Log, "   train %d, val %d, test %d records\n", m.Split.Records.Train, m.Split.Records.Val, m.Split.Records.Test)
		return nil
	}
}

func (c *RunConfig) trainConfig(t Training) (*family.Config, error) {
	path := t.Config
	if path != "" && !filepath.IsAbs(path) {
		path = filepath.Join(c.dir, path)
	}
	return train.LoadConfig(path, t.Model)
}

// TrainResultFile is where a training's result is kept: train-<name>.json.
func (c *RunConfig) TrainResultFile(t Training) string {
	return c.path("train-" + c.trainingName(t) + ".json")
}

func (c *RunConfig) train(t Training, opts RunOptions) func(context.Context) error {
	return func(ctx context.Context) error {
		runDir := c.trainDir(t)
		topts := train.Options{Data: c.path(RunLabelled), RunDir: runDir, Epochs: t.Epochs, MaxSteps: t.MaxSteps,
			Progress: opts.Progress, AfterEpoch: plot.DrawLoss, Infof: func(format string, args ...any) { fmt.Fprintf(opts.Log, "   "+format, args...) }}
		// A run interrupted after a checkpoint continues from it.
		if train.Resumable(runDir) {
			topts.Resume = true
		} else {
			cfg, err := c.trainConfig(t)
			if err != nil {
				return err
			}
			if t.Seed != 0 {
				cfg.Seed = t.Seed
			}
			if t.Init != "" {
				f, _ := family.Lookup(t.Model) // check has seen it
				for _, from := range c.Train {
					if c.trainingName(from) == t.Init {
						f.SetInit(cfg, c.weights(from))
					}
				}
			}
			topts.Config = cfg
		}
		res, err := train.Run(ctx, topts)
		if err != nil {
			return err
		}
		for _, line := range res.Summary() {
			fmt.Fprintf(opts.Log, "   %s\n", line)
		}
		return writeJSONFile(c.TrainResultFile(t), res)
	}
}

func (c *RunConfig) export(t Training, opts RunOptions) func(context.Context) error {
	return func(context.Context) error {
		path, err := train.Export(c.trainDir(t), c.weights(t), false)
		if err != nil {
			return err
		}
		fmt.Fprintf(opts.Log, "   best validated weights in %s\n", path)
		return nil
	}
}

// buildExperience imports the self-play games into a new tree, built
// under a temporary name.
func (c *RunConfig) buildExperience(opts RunOptions) func(context.Context) error {
	return func(ctx context.Context) error {
		final := c.path(RunExperienceFirst)
		tmp := tempName(final)
		removeDB(tmp)
		db, err := experience.Open(ctx, tmp)
		if err != nil {
			return err
		}
		f, err := os.Open(c.path(RunGames))
		if err != nil {
			db.Close()
			return err
		}
		sum, err := experience.Import(ctx, db, f, experience.ImportSource{Name: RunGames}, nil)
		f.Close()
		if cerr := db.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			removeDB(tmp)
			return err
		}
		fmt.Fprintf(opts.Log, "   %d games imported (%.0f games/s)\n", sum.Games, sum.GamesPerSecond())
		return os.Rename(tmp, final)
	}
}

// LearnOpenings are the openings the learning games and the tournament
// share: the tournament's generated openings.
func (c *RunConfig) LearnOpenings() []match.Opening {
	t := c.Tournament
	return match.GenerateOpenings((t.GamesPerPair+1)/2, t.RandomPlies, t.Seed)
}

// learn copies the self-play tree and lets the learner play Rounds
// rounds against each opponent on the tournament's openings, recording
// every game; the copy becomes RunExperience when all rounds are played.
func (c *RunConfig) learn(opts RunOptions) func(context.Context) error {
	return func(ctx context.Context) error {
		final, pgnFinal := c.path(RunExperience), c.path(RunLearningGames)
		tmp := tempName(final)
		removeDB(tmp)
		src, err := experience.Open(ctx, c.path(RunExperienceFirst))
		if err != nil {
			return err
		}
		err = src.CopyTo(ctx, tmp)
		src.Close()
		if err != nil {
			return err
		}
		pgnFile, err := safefile.Create(pgnFinal)
		if err != nil {
			return err
		}
		defer pgnFile.Discard()
		learner, err := player.ParseSpec(c.expand(c.Experience.Learner, tmp))
		if err != nil {
			return err
		}
		t := c.Tournament
		openings := c.LearnOpenings()
		var w, l, d int
		for round := 1; round <= c.Experience.Rounds; round++ {
			spec := learner.With("seed", fmt.Sprint(round))
			a := match.Entrant{Name: learner.Name, New: func(ctx context.Context) (player.Player, error) { return player.NewFromSpec(ctx, spec) }}
			for i, opp := range c.Experience.Opponents {
				b, err := match.SpecEntrant(c.expand(opp, tmp))
				if err != nil {
					return err
				}
				rep, err := match.Run(ctx, match.Config{A: a, B: b, Games: t.GamesPerPair, Concurrency: c.concurrency(),
					Openings: openings, Seed: uint64(round)<<8 | uint64(i), Depth: t.Depth, DefaultDepth: defaultMatchDepth, MaxMoves: t.MaxMoves,
					Event: fmt.Sprintf("dchess pipeline learning round %d", round), PGN: pgnFile})
				if err != nil {
					return err
				}
				w, l, d = w+rep.Wins, l+rep.Losses, d+rep.Draws
			}
		}
		fmt.Fprintf(opts.Log, "   %d learning games: +%d -%d =%d for the learner\n", w+l+d, w, l, d)
		if err := pgnFile.Commit(); err != nil {
			return err
		}
		return os.Rename(tmp, final)
	}
}

// defaultMatchDepth is the depth of a move in the run's games when neither
// the config's depth nor the player's own depth= or nodes= bounds it, as
// dchess match's default.
const defaultMatchDepth = 4

// Evaluation is the evaluate stage's output: each evaluated player's
// report on the test split, by the player's name in the tournament.
type Evaluation map[string]*PlayerEvaluation

// PlayerEvaluation is one player's: its moves and static figures, or a
// comparator's pairs.
type PlayerEvaluation struct {
	Data  *evaluate.DataReport `json:"data,omitempty"`
	Pairs *evaluate.PairReport `json:"pairs,omitempty"`
}

// evaluate scores the tournament's players on the test split, each with
// the figures its family supports; players without such figures (random,
// the heuristic's search, Deep Red's tree, engines) are scored by their
// moves against Stockfish's and their static evaluation where they have one.
func (c *RunConfig) evaluate(opts RunOptions) func(context.Context) error {
	return func(ctx context.Context) error {
		out := Evaluation{}
		for _, raw := range c.Tournament.Players {
			spec, err := player.ParseSpec(c.expand(raw, ""))
			if err != nil {
				return err
			}
			if spec.Family == "random" || spec.Family == "experience" || spec.Family == "uci" {
				continue // nothing static to score: their strength is in the tournament
			}
			do := evaluate.DataOptions{Dataset: c.path(RunLabelled),
				Options: evaluate.Options{Player: spec, Limits: player.Limits{Depth: 1}, Limit: c.Evaluate.Positions, Workers: c.Evaluate.Workers}}
			ev := &PlayerEvaluation{}
			if family.Supports(spec.Family, family.EvalPairs) {
				ev.Pairs, err = evaluate.Pairs(ctx, do)
			} else {
				ev.Data, err = evaluate.Data(ctx, do)
			}
			if err != nil {
				return fmt.Errorf("evaluating %s: %w", spec.DisplayName(), err)
			}
			out[spec.DisplayName()] = ev
			fmt.Fprintf(opts.Log, "   %s: %s\n", spec.DisplayName(), ev.figures())
		}
		return writeJSONFile(c.path(RunEvaluation), out)
	}
}

func (c *RunConfig) tournament(opts RunOptions) func(context.Context) error {
	return func(ctx context.Context) error {
		t := c.Tournament
		specs := make([]player.Spec, len(t.Players))
		for i, raw := range t.Players {
			spec, err := player.ParseSpec(c.expand(raw, ""))
			if err != nil {
				return fmt.Errorf("tournament: %v", err)
			}
			specs[i] = spec
		}
		cfg := tournament.Config{Players: specs, GamesPerPair: t.GamesPerPair, Log: opts.Log,
			Match: match.Config{Concurrency: c.concurrency(), RandomPlies: t.RandomPlies, Seed: t.Seed,
				Depth: t.Depth, DefaultDepth: defaultMatchDepth, MaxMoves: t.MaxMoves}}
		if t.Anchor != "" {
			anchor, err := tournament.ParseAnchor(t.Anchor)
			if err != nil {
				return fmt.Errorf("tournament: anchor %v", err)
			}
			cfg.Anchors = []tournament.Anchor{*anchor}
		}
		pgnFinal := c.path(RunTournamentGames)
		cfg.Journal = match.JournalBeside(pgnFinal) // a stopped run continues
		tour, err := tournament.New(ctx, cfg)
		if err != nil {
			return err
		}
		// The PGN goes in place before the journal is removed, so a kill
		// in between loses no game.
		st, err := tour.PlayToFile(ctx, pgnFinal)
		if err != nil {
			return err
		}
		return writeJSONFile(c.path(RunTournament), st)
	}
}

// tempName is where a stage builds path before renaming it into place.
func tempName(path string) string {
	return filepath.Join(filepath.Dir(path), ".tmp-"+filepath.Base(path))
}

// removeDB removes a SQLite file and its journal files.
func removeDB(path string) {
	for _, suffix := range []string{"", "-wal", "-shm", "-journal"} {
		os.Remove(path + suffix)
	}
}

// writeJSONFile writes v as indented JSON, whole or not at all.
func writeJSONFile(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return safefile.WriteFile(path, append(data, '\n'))
}

func readTimings(path string) map[string]float64 {
	t := map[string]float64{}
	if data, err := os.ReadFile(path); err == nil {
		_ = json.Unmarshal(data, &t) // a damaged file only loses old timings
	}
	return t
}
