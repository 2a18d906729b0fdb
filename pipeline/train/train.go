// Package pipeline runs dchess's long jobs: the training loop shared by the
// model families, its checkpoints, metrics and plots, and the runs folder.
package train

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/dchess/dchess/dataset"
	"github.com/dchess/dchess/internal/progress"
	"github.com/dchess/dchess/internal/safefile"
	"github.com/dchess/dchess/models/dcw"
	"github.com/dchess/dchess/models/family"
)

// ProgressFunc makes a progress reporter for a job of total units.
type ProgressFunc func(name string, total int64, unit string) progress.Reporter

// Options say what to train, on what, and where the run goes.
type Options struct {
	// Config is the run's configuration; with Resume it must be nil (the
	// run's own config.yaml is used).
	Config *family.Config
	Data   string // dataset folder
	RunDir string
	// Resume continues the run in RunDir from its newest checkpoint.
	Resume bool
	// Epochs and MaxSteps override the config when positive, e.g. to
	// extend a resumed run.
	Epochs   int
	MaxSteps int64
	// Workers overrides the config's workers when positive (a resumed run
	// may change it: it continues, no longer bit for bit as it would have).
	Workers int
	// Progress, when set, makes the run's progress reporter (a bar on a
	// terminal, a line now and then in a log).
	Progress ProgressFunc
	// Infof, when set, gets informational lines.
	Infof func(format string, args ...any)
	// RunsDir is where a new siamese run looks for the newest autoencoder
	// when its config names none (default DefaultRunsDir).
	RunsDir string
	// CheckpointEvery also writes a checkpoint inside an epoch once this
	// much time has passed since the last one, so a run killed outright
	// (SIGKILL, a lost machine: no chance to save) loses at most that much
	// training. 0 means DefaultCheckpointEvery; negative, epoch ends and
	// interrupts only. Resuming is exact wherever the checkpoint falls, so
	// the setting never changes the weights.
	CheckpointEvery time.Duration
	// AfterEpoch, when set, is called with every metrics line so far after
	// each epoch's checkpoint and once more when the run ends.
	AfterEpoch EpochHook
}

// EpochHook is what a run does with its metrics after each epoch and at
// its end, beside the loop's own files: pipeline/plot's DrawLoss draws
// loss.png into runDir. lossName is the config's loss.
type EpochHook func(runDir string, metrics []Metric, lossName string) error

// afterEpoch calls the run's EpochHook, if it has one.
func (t *trainer) afterEpoch() error {
	if t.opts.AfterEpoch == nil {
		return nil
	}
	return t.opts.AfterEpoch(t.opts.RunDir, t.metrics.all, t.cfg.Loss)
}

// DefaultCheckpointEvery bounds what a killed run loses; a checkpoint of
// the default configs takes well under a second to write.
const DefaultCheckpointEvery = 10 * time.Minute

// Result summarises a run; cmd prints it (and --json encodes it).
// The accuracies carry their family's own names (see Metric).
type Result struct {
	RunDir     string  `json:"run_dir"`
	Model      string  `json:"model"` // path of model.dcw
	Family     string  `json:"family"`
	Epochs     int     `json:"epochs"` // epochs completed
	Steps      int64   `json:"steps"`
	Samples    int64   `json:"samples"`
	TrainLoss  float64 `json:"train_loss"` // last completed epoch
	ValLoss    float64 `json:"val_loss,omitempty"`
	BestEpoch  int     `json:"best_epoch,omitempty"` // 1-based, 0 without validation
	BestVal    float64 `json:"best_val_loss,omitempty"`
	Stopped    string  `json:"stopped"` // epochs, max_steps, early_stopping
	Seconds    float64 `json:"seconds"`
	SamplesSec float64 `json:"samples_per_sec"`
	// EpochFraction is how far into its epochs the run got: Epochs plus the
	// share of the epoch max_steps stopped in.
	EpochFraction float64 `json:"epoch_fraction"`
	// Evaluators: sign agreement and within 0.1 on the last epoch.
	TrainSign float64 `json:"train_sign_agreement,omitempty"`
	ValSign   float64 `json:"val_sign_agreement,omitempty"`
	ValWithin float64 `json:"val_within_0_1,omitempty"`
	// Siamese: the share of pairs whose better position the comparator
	// picks, on the last epoch's training pairs and validation pairs, and
	// the best validation figure of the run.
	TrainPairAccuracy   float64 `json:"train_pair_accuracy,omitempty"`
	ValPairAccuracy     float64 `json:"val_pair_accuracy,omitempty"`
	BestValPairAccuracy float64 `json:"best_val_pair_accuracy,omitempty"`
	// Diffusion and policy: the share of rows whose masked a_i the model
	// predicts (argmax over all moves), on the last epoch's training rows
	// and the validation rows.
	TrainActionAccuracy float64 `json:"train_action_accuracy,omitempty"`
	ValActionAccuracy   float64 `json:"val_action_accuracy,omitempty"`
	// Layers reports each Pos2Vec layer's reconstruction error (autoencoder).
	Layers []LayerResult `json:"layers,omitempty"`
}

// LayerResult is one Pos2Vec layer's training: the mean squared error per
// value of its reconstruction of the layer's input, on the last epoch's
// training positions and on the validation positions.
type LayerResult struct {
	Layer      int     `json:"layer"` // 1-based
	Epochs     int     `json:"epochs"`
	TrainMSE   float64 `json:"train_reconstruction_mse"`
	ValMSE     float64 `json:"val_reconstruction_mse,omitempty"`
	BestValMSE float64 `json:"best_val_reconstruction_mse,omitempty"`
}

// errMaxSteps stops the record stream when max_steps is reached.
var errMaxSteps = errors.New("max steps reached")

// errEnough stops a validation stream at data.val_max examples.
var errEnough = errors.New("enough validation examples")

// trainer is one run of the loop.
type trainer struct {
	opts    Options
	cfg     *family.Config
	cfgYAML []byte
	obj     family.Objective
	ds      *dataset.Dataset
	tg      stepGraph
	// params holds every weight; those the current stage trains live in
	// the graph while it runs (see snapshot).
	params  []dcw.Tensor
	best    []dcw.Tensor
	opt     *adam
	state   trainState
	metrics *metricsLog
	bar     progress.Reporter
	arch    []byte

	// This process's training time and the run's samples when it began, for samples/s.
	trainTime    time.Duration
	startSamples int64
	lastLoss     float64
	badRecords   int64
	// flopsPerSample is the family's estimate of one example's training
	// cost (0 when it gives none).
	flopsPerSample float64
	// lastSave is when the newest checkpoint was written (or this process began).
	lastSave time.Time
	// unlock releases the run folder's lock, held from before the first
	// file of the run is read or written until the run ends.
	unlock func()
}

// runLockFile is the file in a run folder whose lock a training holds for
// the whole run (flock: the lock goes with the process, even on kill -9),
// so a second training into the same folder is refused instead of mixing
// its config, checkpoints, metrics and weights with the first's.
const runLockFile = "lock"

// lockRunDir takes dir's run lock.
func lockRunDir(dir string) (unlock func(), err error) {
	unlock, err = safefile.Lock(filepath.Join(dir, runLockFile))
	if errors.Is(err, safefile.ErrLocked) {
		return nil, fmt.Errorf("train: %s: another dchess process is training into it", dir)
	}
	if err != nil {
		return nil, fmt.Errorf("train: %w", err)
	}
	return unlock, nil
}

// Run runs the training loop (see docs/training.md): shuffled minibatches
// from the train split, Adam, validation every epoch, early stopping, a
// checkpoint every epoch and when ctx is cancelled, metrics.jsonl (and
// what Options.AfterEpoch makes of it), and model.dcw at the end.
func Run(ctx context.Context, opts Options) (*Result, error) {
	t, err := newTrainer(ctx, opts)
	if err != nil {
		return nil, err
	}
	defer t.unlock()
	defer func() { t.tg.close() }() // a new stage replaces the graph
	defer t.metrics.close()
	return t.run(ctx)
}

func (t *trainer) infof(format string, args ...any) {
	if t.opts.Infof != nil {
		t.opts.Infof(format, args...)
	}
}

func newTrainer(ctx context.Context, opts Options) (_ *trainer, err error) {
	if opts.RunDir == "" {
		return nil, errors.New("train: no run folder given")
	}
	t := &trainer{opts: opts}
	defer func() {
		if err != nil && t.unlock != nil {
			t.unlock()
		}
	}()
	var ck *checkpoint
	if opts.Resume {
		if opts.Config != nil {
			return nil, errors.New("train: a resumed run keeps its own config (do not pass one)")
		}
		// Locked before the checkpoint is read: a run still training
		// would write newer ones.
		if names, _ := checkpointFiles(filepath.Join(opts.RunDir, CheckpointDir)); len(names) == 0 {
			return nil, fmt.Errorf("train: cannot resume: %w", noCheckpointError(opts.RunDir))
		}
		if t.unlock, err = lockRunDir(opts.RunDir); err != nil {
			return nil, err
		}
		if ck, err = loadNewestCheckpoint(opts.RunDir); err != nil {
			return nil, fmt.Errorf("train: cannot resume: %w", err)
		}
		if note := ck.fallbackNote(); note != "" {
			t.infof("%s\n", note)
		}
		if t.cfg, err = family.ParseConfig([]byte(ck.meta.Config), ck.meta.Family); err != nil {
			return nil, fmt.Errorf("train: config in %s: %w", ck.path, err)
		}
		// A run from before the workers setting ran on one graph.
		if !hasWorkers(ck.meta.Config) {
			t.cfg.Workers = 1
		}
		// A model setting newer than the run takes its value as run from
		// the checkpoint's architecture, not today's default.
		if r, ok := t.cfg.Model.Settings.(interface{ Resumed(arch []byte) error }); ok {
			if err := r.Resumed(ck.meta.Arch); err != nil {
				return nil, fmt.Errorf("train: %s: %w", ck.path, err)
			}
		}
	} else {
		if opts.Config == nil {
			return nil, errors.New("train: no config given")
		}
		t.cfg = opts.Config.Clone()
	}
	if opts.Epochs > 0 {
		t.cfg.Epochs = opts.Epochs
	}
	if opts.MaxSteps > 0 {
		t.cfg.MaxSteps = opts.MaxSteps
	}
	if opts.Workers > 0 {
		t.cfg.Workers = opts.Workers
	}
	// The count the run trains with, which its config.yaml records, so
	// that the config repeats the run and a resume continues it exactly.
	t.cfg.Workers = DefaultWorkers(t.cfg.Workers)
	if err := t.cfg.Validate(); err != nil {
		return nil, err
	}
	runsDir := opts.RunsDir
	if runsDir == "" {
		runsDir = family.DefaultRunsDir
	}
	// A new siamese run resolves its autoencoder here and records it (and
	// the tower it gives) in the config as run; a resumed one has both.
	if t.obj, err = t.cfg.Family().Objective(t.cfg, family.ObjectiveEnv{Fresh: ck == nil, RunsDir: runsDir}); err != nil {
		return nil, err
	}
	// Again with what the objective filled in (a siamese run's tower),
	// before the weights are allocated.
	if err := t.cfg.Validate(); err != nil {
		return nil, err
	}
	if estimate := t.cfg.Family().TrainingFLOPs; estimate != nil {
		t.flopsPerSample = estimate(t.cfg)
	}
	if t.cfgYAML, err = t.cfg.Marshal(); err != nil {
		return nil, err
	}
	if t.arch, err = t.obj.Arch(); err != nil {
		return nil, err
	}
	if t.ds, err = dataset.OpenList(opts.Data); err != nil {
		return nil, fmt.Errorf("train: %w", err)
	}
	if err := t.checkExamples(ctx); err != nil {
		return nil, err
	}
	if ck == nil {
		if err := os.MkdirAll(opts.RunDir, 0o755); err != nil {
			return nil, fmt.Errorf("train: %w", err)
		}
		if t.unlock, err = lockRunDir(opts.RunDir); err != nil {
			return nil, err
		}
		if names, _ := checkpointFiles(filepath.Join(opts.RunDir, CheckpointDir)); len(names) > 0 {
			return nil, fmt.Errorf("train: %s already holds a run: pass --resume to continue it or choose another --out", opts.RunDir)
		}
	}
	if err := os.MkdirAll(filepath.Join(opts.RunDir, CheckpointDir), 0o755); err != nil {
		return nil, fmt.Errorf("train: %w", err)
	}
	if err := safefile.WriteFile(filepath.Join(opts.RunDir, family.ConfigFile), t.cfgYAML); err != nil {
		return nil, fmt.Errorf("train: %w", err)
	}

	if t.params, err = t.obj.InitParams(t.cfg.Seed); err != nil {
		return nil, err
	}
	t.state = trainState{Seed: t.cfg.Seed}
	sizes := make([]int, len(t.params))
	for i, p := range t.params {
		sizes[i] = len(p.Data)
	}
	t.opt = newAdam(t.cfg.Optimizer, sizes)
	afterStep := int64(-1)
	if ck != nil {
		if err := t.restore(ck); err != nil {
			return nil, err
		}
		afterStep = t.state.Step
	}
	if t.tg, err = newStepGraph(t.obj, t.state.Stage, t.params, t.cfg.BatchSize, t.cfg.Workers); err != nil {
		return nil, fmt.Errorf("train: building the %s graph: %w", t.obj.Family(), err)
	}
	if t.metrics, err = openMetrics(filepath.Join(opts.RunDir, MetricsFile), afterStep, t.cfg.Family().Accuracy); err != nil {
		t.tg.close()
		return nil, err
	}
	t.startSamples = t.state.Samples
	return t, nil
}

// restore loads a checkpoint's weights, optimizer moments and position,
// checking they fit the model the config builds.
func (t *trainer) restore(ck *checkpoint) error {
	if len(ck.params) != len(t.params) {
		return fmt.Errorf("train: checkpoint %s has %d tensors, the model %d", ck.path, len(ck.params), len(t.params))
	}
	for i := range t.params {
		p, c := &t.params[i], ck.params[i]
		if p.Name != c.Name || len(p.Data) != len(c.Data) || ck.m[i].Name != p.Name || ck.v[i].Name != p.Name {
			return fmt.Errorf("train: checkpoint %s does not match the model (tensor %s)", ck.path, p.Name)
		}
		copy(p.Data, c.Data)
		copy(t.opt.m[i], ck.m[i].Data)
		copy(t.opt.v[i], ck.v[i].Data)
	}
	t.best = ck.best
	t.state = ck.meta.State
	t.opt.t = t.state.AdamSteps
	return nil
}

// lr is the learning rate of the epoch in progress; it decays from the
// start of each stage, as if each layer of Pos2Vec had its own run.
func (t *trainer) lr() float64 {
	return t.cfg.Optimizer.Rate(t.opt.t, t.state.Epoch-t.state.StageEpoch)
}

// stageDone says the stage in progress has had its epochs or stopped early.
func (t *trainer) stageDone() bool {
	return t.state.Epoch-t.state.StageEpoch >= t.cfg.Epochs || t.state.StoppedEarly
}

// finished says the last stage is done.
func (t *trainer) finished() bool {
	return t.state.Stage >= t.obj.Stages()-1 && t.stageDone()
}

func (t *trainer) stepsDone() bool {
	return t.cfg.MaxSteps > 0 && t.state.Step >= t.cfg.MaxSteps
}

func (t *trainer) run(ctx context.Context) (*Result, error) {
	start := time.Now()
	valSplit := dataset.AllSplits
	if t.cfg.Data.ValSplit != "none" {
		valSplit, _ = dataset.ParseSplit(t.cfg.Data.ValSplit)
		if t.ds.Manifest().Split == nil {
			t.infof("dataset %s has no split: training without validation (run `dchess dataset split` first)\n", t.opts.Data)
			valSplit = dataset.AllSplits
		}
	}
	t.lastSave = time.Now()
	t.startProgress()
	stopped := "epochs"
	for !t.finished() {
		if t.stepsDone() {
			break
		}
		err := t.trainEpoch(ctx)
		if errors.Is(err, errMaxSteps) {
			if err = t.endPartialEpoch(ctx, valSplit); err == nil {
				break
			}
		} else if err == nil {
			// A cancel during validation leaves the epoch's records all
			// consumed, so the resumed run goes straight to validating.
			err = t.endEpoch(ctx, valSplit)
		}
		if err != nil {
			if ctx.Err() != nil {
				path, cerr := t.saveCheckpoint()
				if cerr != nil {
					return nil, fmt.Errorf("training interrupted at step %d and the checkpoint failed: %w", t.state.Step, cerr)
				}
				return nil, fmt.Errorf("training interrupted at step %d; saved %s, continue with --resume: %w", t.state.Step, path, ctx.Err())
			}
			return nil, err
		}
	}
	if t.stepsDone() {
		stopped = "max_steps"
	}
	if t.state.StoppedEarly {
		stopped = "early_stopping"
	}
	if _, err := t.saveCheckpoint(); err != nil {
		return nil, err
	}
	if t.bar != nil {
		t.bar.Finish()
	}
	ck, err := loadNewestCheckpoint(t.opts.RunDir)
	if err != nil {
		return nil, err
	}
	modelPath := filepath.Join(t.opts.RunDir, family.ModelFile)
	if err := dcw.Write(modelPath, ck.weightsFile(false)); err != nil {
		return nil, err
	}
	if err := t.afterEpoch(); err != nil {
		return nil, err
	}
	if t.badRecords > 0 {
		t.infof("skipped %d records whose position could not be read\n", t.badRecords)
	}
	return t.result(modelPath, stopped, time.Since(start)), nil
}

// trainEpoch streams the epoch's examples into batches and steps,
// skipping the examples a resumed run already consumed.
func (t *trainer) trainEpoch(ctx context.Context) error {
	began := time.Now()
	defer func() { t.trainTime += time.Since(began) }()
	// A resumed epoch streams again from its start, so it counts from 0.
	var streamed int64
	order := family.StreamOrder{Shuffled: true, Epoch: t.state.Epoch, Streamed: &streamed}
	last, err := t.streamBatches(ctx, dataset.Train, order, t.state.EpochRecords, 0, func(b batchMark) error {
		if err := t.step(b.rows); err != nil {
			return err
		}
		t.state.EpochRecords, t.state.EpochStreamed = b.seen, b.streamed
		if t.stepsDone() {
			return errMaxSteps
		}
		if t.checkpointDue() {
			if _, err := t.saveCheckpoint(); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	// checkExamples has seen one; should an epoch give none all the same,
	// the run stops before it checkpoints or exports untrained weights.
	if last.seen == 0 {
		return t.noExamplesError()
	}
	if last.rows > 0 {
		if err := t.step(last.rows); err != nil {
			return err
		}
	}
	t.state.EpochRecords, t.state.EpochStreamed = last.seen, last.streamed
	return nil
}

// step trains on the first rows of the batch buffers.
// diverged is the clear stop on a non-finite loss or gradient.
func (t *trainer) diverged(what string, v float64) error {
	return fmt.Errorf("training diverged at step %d (epoch %d): %s became %v; lower optimizer.lr or set optimizer.clip_norm",
		t.state.Step+1, t.state.Epoch+1, what, v)
}

func (t *trainer) step(rows int) error {
	tg := t.tg
	tg.setRows(rows)
	loss, err := tg.forwardBackward()
	if err != nil {
		return fmt.Errorf("train step %d: %w", t.state.Step+1, err)
	}
	if math.IsNaN(loss) || math.IsInf(loss, 0) {
		return t.diverged("the loss", loss)
	}
	t.obj.Score(tg, rows, &t.state.TrainAcc)
	index := tg.learnableParams()
	weights := make([][]float32, len(index))
	grads := make([][]float32, len(index))
	for i := range index {
		weights[i] = tg.weights(i)
		if grads[i], err = tg.grads(i); err != nil {
			return err
		}
	}
	lr := t.lr()
	norm := t.opt.step(weights, grads, index, lr)
	if math.IsNaN(norm) || math.IsInf(norm, 0) {
		// The loss can still be finite when the gradients overflow.
		return t.diverged("the gradient norm", norm)
	}
	t.state.Step++
	t.state.Samples += int64(rows)
	t.state.AdamSteps = t.opt.t
	t.lastLoss = loss
	if t.state.Step%int64(t.cfg.LogEvery) == 0 {
		if err := t.metrics.write(Metric{Kind: "step", Epoch: t.state.Epoch + 1, Step: t.state.Step, Loss: loss,
			LR: lr, GradNorm: norm, SamplesPerSec: t.samplesPerSec(), Samples: t.state.Samples, FLOPs: t.flops()}); err != nil {
			return err
		}
	}
	if t.bar != nil {
		t.bar.Describe(fmt.Sprintf("epoch %d/%d step %d loss %.4f", t.state.Epoch+1, t.cfg.Epochs, t.state.Step, loss))
		t.bar.Add(int64(rows))
	}
	return nil
}

// flops is the run's estimated training cost so far.
func (t *trainer) flops() float64 { return float64(t.state.Samples) * t.flopsPerSample }

func (t *trainer) samplesPerSec() float64 {
	return ratio(float64(t.state.Samples-t.startSamples), t.trainTime.Seconds())
}

// measure builds a metrics line of the given kind with the training
// figures of the epoch so far and, unless valSplit is AllSplits, a
// validation pass, whose accuracy it also returns.
func (t *trainer) measure(ctx context.Context, kind string, valSplit dataset.Split) (Metric, family.Tally, error) {
	m := Metric{Kind: kind, Epoch: t.state.Epoch + 1, Step: t.state.Step, LR: t.lr(),
		TrainLoss: t.state.TrainAcc.Loss(), TrainRecords: t.state.TrainAcc.N, SamplesPerSec: t.samplesPerSec(),
		Samples: t.state.Samples, FLOPs: t.flops()}
	if t.obj.Stages() > 1 {
		m.Stage = t.state.Stage + 1
	}
	accuracyKind := t.cfg.Family().Accuracy
	if valSplit == dataset.AllSplits {
		m.setAccuracy(accuracyKind, t.state.TrainAcc, nil)
		return m, family.Tally{}, nil
	}
	acc, err := t.evaluate(ctx, valSplit)
	if err != nil {
		return m, acc, err
	}
	if acc.N == 0 {
		m.setAccuracy(accuracyKind, t.state.TrainAcc, nil)
		return m, acc, nil
	}
	loss := acc.Loss()
	m.ValLoss, m.ValRecords = &loss, acc.N
	m.setAccuracy(accuracyKind, t.state.TrainAcc, &acc)
	return m, acc, nil
}

// endPartialEpoch closes a run that max_steps stopped inside an epoch with
// a "partial" line (the epoch's training figures so far and a validation
// pass), so every run reports a validation loss. The epoch does not
// advance: a --resume with a larger --max-steps continues it.
func (t *trainer) endPartialEpoch(ctx context.Context, valSplit dataset.Split) error {
	if t.state.EpochRecords == 0 {
		return nil
	}
	began := time.Now()
	m, acc, err := t.measure(ctx, "partial", valSplit)
	if err != nil {
		return err
	}
	// Validated like an epoch, so it may be the best: on a large dataset
	// max_steps ends the cosine schedule inside the second or third
	// epoch, and its last weights are the ones at the schedule's end.
	t.keepIfBest(acc)
	m.Seconds = time.Since(began).Seconds() + t.trainTime.Seconds()
	return t.metrics.write(m)
}

// keepIfBest makes the current weights the run's best when acc, their
// validation, beats the best so far, and says whether it did.
func (t *trainer) keepIfBest(acc family.Tally) bool {
	if acc.N == 0 {
		return false
	}
	loss := acc.Loss()
	if t.state.HasBest && loss >= t.state.BestValLoss-t.cfg.MinDelta {
		return false
	}
	t.state.HasBest, t.state.BestValLoss, t.state.BestEpoch = true, loss, t.state.Epoch+1
	t.best = t.snapshot()
	return true
}

// endEpoch validates, logs the epoch, updates early stopping, checkpoints
// and calls the epoch hook.
func (t *trainer) endEpoch(ctx context.Context, valSplit dataset.Split) error {
	began := time.Now()
	m, acc, err := t.measure(ctx, "epoch", valSplit)
	if err != nil {
		return err
	}
	if acc.N > 0 {
		if t.keepIfBest(acc) {
			t.state.BadEpochs = 0
		} else {
			t.state.BadEpochs++
			if t.cfg.Patience > 0 && t.state.BadEpochs >= t.cfg.Patience {
				t.state.StoppedEarly = true
				t.infof("validation loss has not improved for %d epochs: stopping early (best epoch %d)\n", t.state.BadEpochs, t.state.BestEpoch)
			}
		}
	}
	m.Seconds = time.Since(began).Seconds() + t.trainTime.Seconds()
	if err := t.metrics.write(m); err != nil {
		return err
	}
	t.state.Epoch++
	t.state.EpochRecords, t.state.EpochStreamed = 0, 0
	t.state.TrainAcc = family.Tally{}
	if t.stageDone() && t.state.Stage+1 < t.obj.Stages() {
		if err := t.nextStage(); err != nil {
			return err
		}
	}
	if _, err := t.saveCheckpoint(); err != nil {
		return err
	}
	if err := t.afterEpoch(); err != nil {
		return err
	}
	return nil
}

// nextStage ends a stage: the weights it validated best (or its last)
// become the fixed layers the next stage builds on, and the optimizer and
// early stopping start afresh, as in a new run for the next layer.
func (t *trainer) nextStage() error {
	weights := t.best
	if weights == nil {
		weights = t.snapshot()
	}
	for i := range t.params {
		copy(t.params[i].Data, weights[i].Data)
	}
	t.state.Stage++
	t.state.StageEpoch = t.state.Epoch
	t.state.HasBest, t.state.BestValLoss, t.state.BestEpoch, t.state.BadEpochs, t.state.StoppedEarly = false, 0, 0, 0, false
	t.best = nil
	t.opt.reset()
	t.state.AdamSteps = 0
	t.tg.close()
	tg, err := newStepGraph(t.obj, t.state.Stage, t.params, t.cfg.BatchSize, t.cfg.Workers)
	if err != nil {
		return fmt.Errorf("train: building stage %d of the %s graph: %w", t.state.Stage+1, t.obj.Family(), err)
	}
	t.tg = tg
	t.infof("layer %d of %d trained; training layer %d\n", t.state.Stage, t.obj.Stages(), t.state.Stage+1)
	return nil
}

// evaluate runs the forward pass over a split (at most data.val_max
// examples) and accumulates its metrics.
func (t *trainer) evaluate(ctx context.Context, split dataset.Split) (family.Tally, error) {
	tg := t.tg
	var acc family.Tally
	flush := func(rows int) error {
		tg.setRows(rows)
		if err := tg.forward(); err != nil {
			return err
		}
		t.obj.Score(tg, rows, &acc)
		return nil
	}
	last, err := t.streamBatches(ctx, split, family.StreamOrder{}, 0, int64(t.cfg.Data.ValMax), func(b batchMark) error {
		return flush(b.rows)
	})
	if err == nil && last.rows > 0 {
		err = flush(last.rows)
	}
	if err != nil {
		return acc, fmt.Errorf("validation: %w", err)
	}
	return acc, nil
}

// snapshot copies every weight: the stage's from the graph, the rest
// (fixed during the stage) from params.
func (t *trainer) snapshot() []dcw.Tensor {
	out := make([]dcw.Tensor, len(t.params))
	for i, p := range t.params {
		out[i] = dcw.Tensor{Name: p.Name, Shape: p.Shape, Data: append([]float32(nil), p.Data...)}
	}
	for i, p := range t.tg.learnableParams() {
		copy(out[p].Data, t.tg.weights(i))
	}
	return out
}

// checkpointDue says whether a checkpoint inside the epoch is due.
func (t *trainer) checkpointDue() bool {
	every := t.opts.CheckpointEvery
	if every == 0 {
		every = DefaultCheckpointEvery
	}
	return every > 0 && time.Since(t.lastSave) >= every
}

func (t *trainer) saveCheckpoint() (string, error) {
	t.lastSave = time.Now()
	moments := func(src [][]float32) []dcw.Tensor {
		out := make([]dcw.Tensor, len(t.params))
		for i, p := range t.params {
			out[i] = dcw.Tensor{Name: p.Name, Shape: p.Shape, Data: src[i]}
		}
		return out
	}
	ck := &checkpoint{
		meta:   checkpointMeta{Family: t.obj.Family(), Arch: t.arch, State: t.state, Config: string(t.cfgYAML)},
		params: t.snapshot(),
		m:      moments(t.opt.m),
		v:      moments(t.opt.v),
		best:   t.best,
	}
	return saveCheckpoint(t.opts.RunDir, ck)
}

func (t *trainer) startProgress() {
	if t.opts.Progress == nil {
		return
	}
	total := t.obj.EpochSize(t.ds.Manifest()) * int64(t.cfg.Epochs) * int64(t.obj.Stages())
	if t.cfg.MaxSteps > 0 {
		total = min(total, t.cfg.MaxSteps*int64(t.cfg.BatchSize))
	}
	// A resumed run counts this process's samples against what is left,
	// as label counts a resumed journal, so the rate and the time left
	// are this process's (the status line keeps the run's step).
	t.bar = t.opts.Progress("train", max(0, total-t.state.Samples), "samples")
}

func (t *trainer) result(modelPath, stopped string, elapsed time.Duration) *Result {
	r := &Result{RunDir: t.opts.RunDir, Model: modelPath, Family: t.obj.Family(), Epochs: t.state.Epoch,
		Steps: t.state.Step, Samples: t.state.Samples, Stopped: stopped, Seconds: elapsed.Seconds(),
		SamplesSec: t.samplesPerSec(), EpochFraction: float64(t.state.Epoch)}
	// Records, not rows: an epoch's rows are known only once it ends (the
	// filters and an nnue record's line positions vary), its records always.
	// A checkpoint written before EpochStreamed existed falls back on rows.
	if n := family.TrainRecords(t.ds.Manifest()); n > 0 && t.state.EpochStreamed > 0 {
		r.EpochFraction += min(float64(t.state.EpochStreamed)/float64(n), 1)
	} else if size := t.obj.EpochSize(t.ds.Manifest()); size > 0 && t.state.EpochRecords > 0 {
		r.EpochFraction += min(float64(t.state.EpochRecords)/float64(size), 1)
	}
	for i := len(t.metrics.all) - 1; i >= 0; i-- {
		if m := t.metrics.all[i]; m.Kind == "epoch" || m.Kind == "partial" {
			r.TrainLoss = m.TrainLoss
			r.TrainSign, r.TrainPairAccuracy, r.TrainActionAccuracy = m.TrainSign, m.TrainPairAccuracy, m.TrainActionAccuracy
			r.ValLoss = deref(m.ValLoss)
			r.ValSign, r.ValWithin = deref(m.ValSign), deref(m.ValWithin)
			r.ValPairAccuracy, r.ValActionAccuracy = deref(m.ValPairAccuracy), deref(m.ValActionAccuracy)
			break
		}
	}
	if r.TrainLoss == 0 {
		r.TrainLoss = t.lastLoss
	}
	if t.state.HasBest {
		r.BestEpoch, r.BestVal = t.state.BestEpoch, t.state.BestValLoss
	}
	for _, m := range t.metrics.all {
		r.BestValPairAccuracy = math.Max(r.BestValPairAccuracy, deref(m.ValPairAccuracy))
	}
	if t.obj.Stages() > 1 {
		r.Layers = layerResults(t.metrics.all)
	}
	return r
}

func deref(p *float64) float64 {
	if p == nil {
		return 0
	}
	return *p
}

// Summary is the result in a few lines, each figure under its own name.
func (r *Result) Summary() []string {
	epochs := fmt.Sprintf("%d epochs", r.Epochs)
	if r.Stopped == "max_steps" && r.EpochFraction != float64(r.Epochs) {
		epochs = fmt.Sprintf("%.2f epochs", r.EpochFraction)
	}
	lines := []string{fmt.Sprintf("trained %s: %s, %d steps, %d samples in %.1fs (%.0f samples/s), stopped by %s",
		r.Family, epochs, r.Steps, r.Samples, r.Seconds, r.SamplesSec, r.Stopped)}
	best := ""
	if r.BestEpoch > 0 {
		best = fmt.Sprintf(" (best val loss %.5f at epoch %d)", r.BestVal, r.BestEpoch)
	}
	kind := family.AccuracySign
	if f, err := family.Lookup(r.Family); err == nil {
		kind = f.Accuracy
	}
	switch kind {
	case family.AccuracyNone:
		for _, l := range r.Layers {
			line := fmt.Sprintf("layer %d: %d epochs, reconstruction error (MSE per value) train %.5f", l.Layer, l.Epochs, l.TrainMSE)
			if l.BestValMSE > 0 {
				line += fmt.Sprintf(", val %.5f (best %.5f)", l.ValMSE, l.BestValMSE)
			}
			lines = append(lines, line)
		}
	case family.AccuracyPair:
		lines = append(lines, fmt.Sprintf("train loss %.5f, pair accuracy %.3f", r.TrainLoss, r.TrainPairAccuracy))
		if r.BestEpoch > 0 {
			lines = append(lines, fmt.Sprintf("val loss %.5f, pair accuracy %.3f (best %.3f; best val loss %.5f at epoch %d)",
				r.ValLoss, r.ValPairAccuracy, r.BestValPairAccuracy, r.BestVal, r.BestEpoch))
		} else if r.ValLoss > 0 {
			lines = append(lines, fmt.Sprintf("val loss %.5f, pair accuracy %.3f", r.ValLoss, r.ValPairAccuracy))
		}
	case family.AccuracyAction:
		lines = append(lines, fmt.Sprintf("train loss %.5f, a_i accuracy %.3f", r.TrainLoss, r.TrainActionAccuracy))
		if r.ValLoss > 0 {
			lines = append(lines, fmt.Sprintf("val loss %.5f, a_i accuracy %.3f%s", r.ValLoss, r.ValActionAccuracy, best))
		}
	default:
		lines = append(lines, fmt.Sprintf("train loss %.5f, sign agreement %.3f", r.TrainLoss, r.TrainSign))
		if r.ValLoss > 0 {
			lines = append(lines, fmt.Sprintf("val loss %.5f, sign agreement %.3f, within 0.1: %.3f%s",
				r.ValLoss, r.ValSign, r.ValWithin, best))
		}
	}
	return append(lines, "weights: "+r.Model)
}

// layerResults sums up each Pos2Vec layer from the epoch lines.
func layerResults(metrics []Metric) []LayerResult {
	var out []LayerResult
	for _, m := range metrics {
		if m.Kind != "epoch" || m.Stage < 1 {
			continue
		}
		for len(out) < m.Stage {
			out = append(out, LayerResult{Layer: len(out) + 1})
		}
		l := &out[m.Stage-1]
		l.Epochs++
		l.TrainMSE = m.TrainLoss
		if m.ValLoss != nil {
			if l.ValMSE = *m.ValLoss; l.BestValMSE == 0 || l.ValMSE < l.BestValMSE {
				l.BestValMSE = l.ValMSE
			}
		}
	}
	return out
}
