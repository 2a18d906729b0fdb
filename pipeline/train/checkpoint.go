package train

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/dchess/dchess/models/dcw"
	"github.com/dchess/dchess/models/family"
)

// CheckpointDir is the folder of a run that holds its checkpoints.
const CheckpointDir = "checkpoint"

// keepCheckpoints is how many of the newest checkpoints a run keeps.
const keepCheckpoints = 3

// checkpointPrefix marks a checkpoint's family in the .dcw header, so a
// checkpoint is never mistaken for exported weights.
const checkpointPrefix = "checkpoint/"

// trainState is where training stands: enough, with the weights and Adam's
// moments, to continue exactly as if never stopped.
type trainState struct {
	// Epoch is the epoch in progress (0-based); EpochRecords counts the
	// examples of its stream already consumed: labelled records, positions
	// or pairs, by family (the data order, pairs included, is a function of
	// seed and epoch, so this is the whole data RNG state).
	Epoch        int   `json:"epoch"`
	EpochRecords int64 `json:"epoch_records"`
	// EpochStreamed counts the split's records those examples came from
	// (the last possibly in part): the share of the epoch done.
	EpochStreamed int64 `json:"epoch_streamed,omitempty"`
	Step          int64 `json:"step"`
	Samples       int64 `json:"samples"`
	Seed          int64 `json:"seed"`
	AdamSteps     int64 `json:"adam_steps"`
	// HasBest says BestValLoss/BestEpoch hold a validated epoch.
	HasBest     bool    `json:"has_best"`
	BestValLoss float64 `json:"best_val_loss"`
	BestEpoch   int     `json:"best_epoch"`
	BadEpochs   int     `json:"bad_epochs"`
	// StoppedEarly is set when validation stopped improving for patience epochs.
	StoppedEarly bool `json:"stopped_early"`
	// TrainAcc accumulates the epoch in progress's training metrics.
	TrainAcc family.Tally `json:"train_acc"`
	// Stage is the stage in progress (0-based: Pos2Vec's layer) and
	// StageEpoch the epoch it began at; both stay 0 for one-stage families.
	Stage      int `json:"stage,omitempty"`
	StageEpoch int `json:"stage_epoch,omitempty"`
}

// checkpointMeta is stored as the checkpoint file's architecture blob.
type checkpointMeta struct {
	Family string          `json:"family"`
	Arch   json.RawMessage `json:"arch"`
	State  trainState      `json:"state"`
	Config string          `json:"config"` // the config as run, YAML
}

type checkpoint struct {
	meta   checkpointMeta
	params []dcw.Tensor
	m, v   []dcw.Tensor // Adam's moments, named like params
	best   []dcw.Tensor // the best validated weights (an epoch's or a partial epoch's), nil when none
	path   string
	// skipped says why each newer checkpoint could not be read, newest
	// first, and newestStep is the newest one's step: a resume from this
	// one repeats the steps between.
	skipped    []string
	newestStep int64
}

func checkpointName(step int64) string { return fmt.Sprintf("step-%012d.dcw", step) }

// saveCheckpoint writes ck atomically into the run's checkpoint folder and
// removes all but the newest keepCheckpoints.
func saveCheckpoint(runDir string, ck *checkpoint) (string, error) {
	metaJSON, err := json.Marshal(ck.meta)
	if err != nil {
		return "", err
	}
	f := &dcw.File{Family: checkpointPrefix + ck.meta.Family, Arch: metaJSON}
	add := func(prefix string, ts []dcw.Tensor) {
		for _, t := range ts {
			f.Tensors = append(f.Tensors, dcw.Tensor{Name: prefix + t.Name, Shape: t.Shape, Data: t.Data})
		}
	}
	add("param/", ck.params)
	add("adam.m/", ck.m)
	add("adam.v/", ck.v)
	add("best/", ck.best)
	dir := filepath.Join(runDir, CheckpointDir)
	path := filepath.Join(dir, checkpointName(ck.meta.State.Step))
	if err := dcw.Write(path, f); err != nil {
		return "", fmt.Errorf("checkpoint: %w", err)
	}
	names, err := checkpointFiles(dir)
	if err != nil {
		return "", err
	}
	for len(names) > keepCheckpoints {
		os.Remove(filepath.Join(dir, names[0]))
		names = names[1:]
	}
	return path, nil
}

// checkpointFiles lists a checkpoint folder's files, oldest first.
func checkpointFiles(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		if n := e.Name(); strings.HasPrefix(n, "step-") && strings.HasSuffix(n, ".dcw") && !e.IsDir() {
			names = append(names, n)
		}
	}
	sort.Strings(names) // zero-padded step numbers sort in step order
	return names, nil
}

// ErrNoCheckpoint means a run folder holds no checkpoint yet.
var ErrNoCheckpoint = errors.New("no checkpoint")

// noCheckpointError says why runDir holds no checkpoint, from what is
// there: no folder, a folder no run has started in, or a run that stopped
// (a full disk, a crash, a diverged loss) before writing its first
// checkpoint, which there is nothing of to continue: it starts over.
func noCheckpointError(runDir string) error {
	if _, err := os.Stat(runDir); errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("%s: %w: the folder does not exist; start a run there with `dchess train --out %s` (without --resume)",
			runDir, ErrNoCheckpoint, runDir)
	}
	config := filepath.Join(runDir, family.ConfigFile)
	if _, err := os.Stat(config); err != nil {
		return fmt.Errorf("%s: %w: no run has started there (it holds no %s either); start one with `dchess train --out %s` (without --resume)",
			runDir, ErrNoCheckpoint, family.ConfigFile, runDir)
	}
	return fmt.Errorf("%s: %w yet: the run started there stopped before writing its first one, so there is nothing to continue or export; "+
		"start it over with the same command without --resume (--config %s repeats its settings)", runDir, ErrNoCheckpoint, config)
}

// CheckResume says whether --resume can continue the run in runDir as a
// run of the named family: it needs a checkpoint, and a config.yaml of
// that family.
func CheckResume(runDir, name string) error {
	if names, _ := checkpointFiles(filepath.Join(runDir, CheckpointDir)); len(names) == 0 {
		return noCheckpointError(runDir)
	}
	_, err := family.LoadConfig(filepath.Join(runDir, family.ConfigFile), name)
	return err
}

// Resumable says whether runDir holds an intact checkpoint a run can
// continue from (pipeline run resumes an interrupted training with it).
func Resumable(runDir string) bool {
	_, err := loadNewestCheckpoint(runDir)
	return err == nil
}

// loadNewestCheckpoint reads the run's newest intact checkpoint: a damaged
// newest one (a crash while the disk was full, a bad sector) costs the
// steps since the one before, not the run. fallbackNote says what was
// skipped.
func loadNewestCheckpoint(runDir string) (*checkpoint, error) {
	dir := filepath.Join(runDir, CheckpointDir)
	names, err := checkpointFiles(dir)
	if errors.Is(err, os.ErrNotExist) || (err == nil && len(names) == 0) {
		return nil, noCheckpointError(runDir)
	}
	if err != nil {
		return nil, err
	}
	var skipped []string
	for i := len(names) - 1; i >= 0; i-- {
		ck, err := readCheckpoint(filepath.Join(dir, names[i]))
		if err != nil {
			skipped = append(skipped, err.Error())
			continue
		}
		ck.skipped = skipped
		if _, err := fmt.Sscanf(names[len(names)-1], "step-%d.dcw", &ck.newestStep); err != nil {
			ck.newestStep = ck.meta.State.Step
		}
		return ck, nil
	}
	return nil, fmt.Errorf("no intact checkpoint in %s: %s", dir, strings.Join(skipped, "; "))
}

// fallbackNote says which newer checkpoints were damaged, which one a
// resume continues from and how many steps it repeats; "" when the newest
// was read.
func (ck *checkpoint) fallbackNote() string {
	if len(ck.skipped) == 0 {
		return ""
	}
	return fmt.Sprintf("%s; continuing from the newest intact checkpoint %s (step %d): %d steps are repeated",
		strings.Join(ck.skipped, "; "), ck.path, ck.meta.State.Step, ck.newestStep-ck.meta.State.Step)
}

func readCheckpoint(path string) (*checkpoint, error) {
	f, err := dcw.Read(path)
	if err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	if !strings.HasPrefix(f.Family, checkpointPrefix) {
		return nil, fmt.Errorf("checkpoint %s: not a training checkpoint (family %q)", path, f.Family)
	}
	ck := &checkpoint{path: path}
	if err := json.Unmarshal(f.Arch, &ck.meta); err != nil {
		return nil, fmt.Errorf("checkpoint %s: %w", path, err)
	}
	for _, t := range f.Tensors {
		prefix, name, ok := strings.Cut(t.Name, "/")
		if !ok {
			return nil, fmt.Errorf("checkpoint %s: unexpected tensor %q", path, t.Name)
		}
		t.Name = name
		switch prefix {
		case "param":
			ck.params = append(ck.params, t)
		case "adam.m":
			ck.m = append(ck.m, t)
		case "adam.v":
			ck.v = append(ck.v, t)
		case "best":
			ck.best = append(ck.best, t)
		default:
			return nil, fmt.Errorf("checkpoint %s: unexpected tensor %q", path, t.Name)
		}
	}
	if len(ck.m) != len(ck.params) || len(ck.v) != len(ck.params) {
		return nil, fmt.Errorf("checkpoint %s: optimizer state does not match the weights", path)
	}
	return ck, nil
}

// weightsFile is the exported model.dcw content of a checkpoint: the best
// validated weights unless last is set or no epoch was validated.
func (ck *checkpoint) weightsFile(last bool) *dcw.File {
	params := ck.params
	if !last && ck.best != nil {
		params = ck.best
	}
	return &dcw.File{Family: ck.meta.Family, Arch: ck.meta.Arch, Tensors: params}
}

// Export writes model.dcw (to out, or RUNDIR/model.dcw when out is "") from
// the run's newest checkpoint: the best validated weights (an epoch's, or a
// partial epoch's where max_steps stopped the run), or the last weights
// when last is set. It returns the path written.
func Export(runDir, out string, last bool) (string, error) {
	ck, err := loadNewestCheckpoint(runDir)
	if err != nil {
		return "", err
	}
	if out == "" {
		out = filepath.Join(runDir, family.ModelFile)
	}
	if err := dcw.Write(out, ck.weightsFile(last)); err != nil {
		return "", err
	}
	return out, nil
}
