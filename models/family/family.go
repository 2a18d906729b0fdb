package family

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/dchess/dchess/search"
	"github.com/dchess/dchess/search/player"
)

// Family is everything the rest of dchess asks of a model family: the
// training loop, the config reader, `dchess train` and `dchess eval` read
// it, and nothing outside the family's own package switches on its name.
// docs/training.md ("Adding a family") is the contract in prose.
type Family struct {
	// Name is the family's name in --model, model.dcw and player SPECs.
	Name string
	// Description is one line for `dchess train --help`.
	Description string
	// Data says in a few words what dataset the family trains on.
	Data string
	// FirstRun is the command line of a first short run on a dataset
	// called DATASET, with the family's small config: what a message
	// about missing weights tells a new user to run.
	FirstRun string
	// NewSettings returns the model section's fields with their defaults,
	// as a pointer to the family's own config struct (yaml-tagged).
	NewSettings func() any
	// Defaults sets the rest of a new config (data, optimizer, loss, batch
	// size, ...) to the family's published setup; the base is the thesis's
	// evaluator setup (Adam at 0.001, batch 256, MSE, 10 epochs).
	Defaults func(c *Config)
	// Validate checks the model section and what the family needs of the
	// rest of the config, with one-line errors.
	Validate func(c *Config) error
	// Objective builds what the training loop optimises for a config.
	Objective func(c *Config, env ObjectiveEnv) (Objective, error)
	// Bounds bounds every integer key of the model section and the length
	// of every list in it (see Bound), checked when a config is loaded.
	Bounds Bounds
	// Size says how many weights a valid config's network has and how many
	// values one example's forward pass holds, from which a config that no
	// machine of 24 GiB could train is refused before anything is
	// allocated.
	Size func(c *Config) ModelSize
	// TrainingFLOPs estimates the floating-point operations one training
	// example costs, forward and backward, from a valid config's shapes:
	// the loop writes the run's running total into metrics.jsonl, so runs
	// of different families can be compared at equal compute (`dchess plot
	// --x flops`). Optional: nil for a family that gives no estimate.
	TrainingFLOPs func(c *Config) float64
	// Examples says which records a config of the family trains on and
	// the command that makes them, for the error that refuses a dataset
	// without one; labelled says they carry Stockfish's label, so a
	// dataset whose manifest counts no label is refused without reading.
	Examples func(c *Config) (what string, labelled bool)
	// Accuracy names the figure the objective's score counts (see
	// AccuracyKind); the loop reports it under that name.
	Accuracy AccuracyKind
	// Metrics names and explains the figures of the family's epoch lines
	// in metrics.jsonl (a test holds runs to them); `dchess train --help`
	// lists the names.
	Metrics []MetricInfo
	// Player makes the family's player from a SPEC with a weights path;
	// nil for a family that does not play (the autoencoder).
	Player player.Factory
	// Evaluator loads an evaluation family's weights as the alpha-beta's
	// evaluator (nil for other families); `dchess bench --eval` searches
	// with it.
	Evaluator func(path string) (search.Evaluator, error)
	// Decoder opens a sequence family's decoder from a SPEC with a weights
	// path, with the player's settings (nil for other families); `dchess
	// eval` decodes with it, and its ranking orders the root of a
	// searching player with proposer=.
	Decoder func(spec player.Spec) (*Decoding, error)
	// Evaluations are the `dchess eval --data` figures the family supports.
	Evaluations Evaluations
	// SetInit starts a new run from another run's weights (--init), for the
	// families that can; nil for the rest.
	SetInit func(c *Config, path string)
}

// ObjectiveEnv is what an objective may need besides its config.
type ObjectiveEnv struct {
	// Fresh is true for a new run, false for a resumed one (whose
	// checkpoint holds every weight).
	Fresh bool
	// RunsDir is where a run looks for the weights it starts from.
	RunsDir string
}

// AccuracyKind is what a family's per-example accuracy means.
type AccuracyKind int

const (
	// AccuracyNone: the loss is the only figure (Pos2Vec's reconstruction).
	AccuracyNone AccuracyKind = iota
	// AccuracySign: sign agreement with the win probability and the share
	// within 0.1 of it (evaluators).
	AccuracySign
	// AccuracyPair: the share of pairs whose better position is picked.
	AccuracyPair
	// AccuracyAction: the share of masked a_i predicted (argmax).
	AccuracyAction
)

// MetricInfo names one reported figure and says what it means.
type MetricInfo struct {
	Name    string
	Meaning string
}

// Evaluations is a set of `dchess eval --data` figures.
type Evaluations uint8

const (
	// EvalStatic: MSE, sign agreement and within 0.1 of the static score
	// against Stockfish's win probability.
	EvalStatic Evaluations = 1 << iota
	// EvalPairs: DeepChess pair accuracy on the test split.
	EvalPairs
	// EvalActions: action accuracy, legal rate and the imagined future of
	// a sequence model.
	EvalActions
	// EvalStepsSweep: the same figures for each number of decoding steps.
	EvalStepsSweep
)

var (
	familiesMu sync.RWMutex
	families   = map[string]*Family{}
)

// RegisterFamily adds a family; registering a name twice, or a family
// without the parts every family has, is refused with one line.
func Register(f Family) error {
	switch {
	case f.Name == "" || f.Name != strings.ToLower(f.Name) || strings.ContainsAny(f.Name, ":?, "):
		return fmt.Errorf("model family %q: a family's name is lower case without ':', '?', ',' or spaces", f.Name)
	case f.NewSettings == nil || f.Validate == nil || f.Objective == nil || f.Examples == nil || f.Size == nil || f.Description == "" || f.Data == "" || f.FirstRun == "":
		return fmt.Errorf("model family %q: a family needs a description, its data, a first run, settings, validation, an objective, its examples and its size", f.Name)
	}
	familiesMu.Lock()
	defer familiesMu.Unlock()
	if _, taken := families[f.Name]; taken {
		return fmt.Errorf("model family %q is registered twice", f.Name)
	}
	families[f.Name] = &f
	return nil
}

// MustRegister registers a family with its player, for the family's own
// package to call; a clash there is a programming error. An evaluation
// family's player searches and takes proposer=; a sequence family's
// decoder is also a proposer, which such a player can order its root by.
func MustRegister(f Family) {
	searches := f.Evaluator != nil && f.Player == nil
	if searches {
		f.Player = evaluatorPlayer(f.Evaluator)
	}
	if err := Register(f); err != nil {
		panic(err)
	}
	switch {
	case searches:
		player.RegisterModelChecked(f.Name, f.Player, player.CheckProposer)
	case f.Player != nil:
		player.RegisterModel(f.Name, f.Player)
	}
	if f.Decoder != nil {
		player.RegisterProposer(f.Name, func(spec player.Spec) (search.MoveProposer, error) {
			d, err := f.Decoder(spec)
			if err != nil {
				return nil, err
			}
			return d.Decoder, nil
		})
	}
}

// LoadEvaluator loads the evaluator a SPEC with a weights path names
// (FAMILY:PATH), for an evaluation family.
func LoadEvaluator(spec player.Spec) (search.Evaluator, error) {
	f, err := Lookup(spec.Family)
	if err != nil || f.Evaluator == nil {
		return nil, fmt.Errorf("%s is not an evaluation family (evaluators: %s)", spec.Family, strings.Join(evaluatorFamilies(), ", "))
	}
	if spec.Path == "" {
		return nil, fmt.Errorf("%s needs its weights: %s:PATH", spec.Family, spec.Family)
	}
	e, err := f.Evaluator(spec.Path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", spec.Family, err)
	}
	return e, nil
}

func evaluatorFamilies() []string {
	var out []string
	for _, name := range Names() {
		if f, _ := Lookup(name); f.Evaluator != nil {
			out = append(out, name)
		}
	}
	return out
}

// LookupFamily returns the registered family called name.
func Lookup(name string) (*Family, error) {
	familiesMu.RLock()
	f, ok := families[name]
	familiesMu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("unknown model family %q (available: %s)", name, strings.Join(Names(), ", "))
	}
	return f, nil
}

// TrainableFamilies lists every registered family, sorted.
func Names() []string {
	familiesMu.RLock()
	defer familiesMu.RUnlock()
	names := make([]string, 0, len(families))
	for name := range families {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// Supports says whether family has the evaluation e (false for an unknown
// family).
func Supports(family string, e Evaluations) bool {
	f, err := Lookup(family)
	return err == nil && f.Evaluations&e != 0
}

// FamilyHelp is the families' one-line descriptions, for --help.
func Help() string {
	var b strings.Builder
	for _, name := range Names() {
		f, _ := Lookup(name)
		var names []string
		for _, m := range f.Metrics {
			names = append(names, m.Name)
		}
		fmt.Fprintf(&b, "  %-12s %s\n  %-12s trains on %s\n  %-12s reports %s\n", name, f.Description, "", f.Data, "", strings.Join(names, ", "))
	}
	return b.String()
}
