package train

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/dchess/dchess/internal/safefile"
	"github.com/dchess/dchess/models/family"
)

// MetricsFile is a run's metrics log: one JSON object per line.
const MetricsFile = "metrics.jsonl"

// Metric is one line of metrics.jsonl. Kind "step" lines carry the batch
// loss every log_every steps; kind "epoch" lines carry the epoch's averages
// and its validation; a "partial" line does the same for an epoch max_steps
// cut short. Each family's accuracy has its own name (its registration's
// Accuracy): sign agreement and within 0.1 for evaluators, pair accuracy
// for the comparator, action accuracy for the sequence models; see
// docs/training.md for the definitions.
type Metric struct {
	Kind  string  `json:"kind"`
	Epoch int     `json:"epoch"` // 1-based
	Step  int64   `json:"step"`
	Loss  float64 `json:"loss,omitempty"` // step: batch loss
	LR    float64 `json:"lr"`
	// GradNorm is the step's global gradient norm before clipping.
	GradNorm      float64 `json:"grad_norm,omitempty"`
	SamplesPerSec float64 `json:"samples_per_sec,omitempty"`
	// Samples counts the examples the run has trained on up to Step (in
	// every stage, a resumed run's included); FLOPs is their estimated
	// cost, Samples × the family's TrainingFLOPs, left out for a family
	// without the estimate. Both are on every kind of line, so curves can
	// be drawn against training compute (`dchess plot --x`).
	Samples    int64    `json:"samples,omitempty"`
	FLOPs      float64  `json:"flops,omitempty"`
	TrainLoss  float64  `json:"train_loss,omitempty"`
	ValLoss    *float64 `json:"val_loss,omitempty"`
	ValRecords int64    `json:"val_records,omitempty"`
	// Evaluators: sign agreement with Stockfish's win probability and the
	// share within 0.1 of it.
	TrainSign   float64  `json:"train_sign_agreement,omitempty"`
	TrainWithin float64  `json:"train_within_0_1,omitempty"`
	ValSign     *float64 `json:"val_sign_agreement,omitempty"`
	ValWithin   *float64 `json:"val_within_0_1,omitempty"`
	// Comparators: the share of pairs whose better position is picked.
	TrainPairAccuracy float64  `json:"train_pair_accuracy,omitempty"`
	ValPairAccuracy   *float64 `json:"val_pair_accuracy,omitempty"`
	// Sequence models: the share of masked a_i predicted (argmax).
	TrainActionAccuracy float64  `json:"train_action_accuracy,omitempty"`
	ValActionAccuracy   *float64 `json:"val_action_accuracy,omitempty"`
	// Stage is the 1-based layer a Pos2Vec epoch trained (autoencoder only).
	Stage        int     `json:"stage,omitempty"`
	TrainRecords int64   `json:"train_records,omitempty"`
	Seconds      float64 `json:"seconds,omitempty"`
}

// setAccuracy stores an epoch's accuracies under the names kind gives them.
// val is nil when there was no validation.
func (m *Metric) setAccuracy(kind family.AccuracyKind, train family.Tally, val *family.Tally) {
	var vs, vw *float64
	if val != nil {
		s, w := val.Sign(), val.Near()
		vs, vw = &s, &w
	}
	switch kind {
	case family.AccuracySign:
		m.TrainSign, m.TrainWithin, m.ValSign, m.ValWithin = train.Sign(), train.Near(), vs, vw
	case family.AccuracyPair:
		m.TrainPairAccuracy, m.ValPairAccuracy = train.Sign(), vs
	case family.AccuracyAction:
		m.TrainActionAccuracy, m.ValActionAccuracy = train.Sign(), vs
	}
}

// upgrade renames the figures of a line written before each family's
// accuracy had its own name, when every accuracy was a "sign agreement".
func (m *Metric) upgrade(kind family.AccuracyKind) {
	if kind == family.AccuracySign || (m.TrainSign == 0 && m.ValSign == nil) {
		return
	}
	switch kind {
	case family.AccuracyPair:
		m.TrainPairAccuracy = m.TrainSign
		if m.ValPairAccuracy == nil {
			m.ValPairAccuracy = m.ValSign
		}
	case family.AccuracyAction:
		m.TrainActionAccuracy, m.ValActionAccuracy = m.TrainSign, m.ValSign
	}
	m.TrainSign, m.TrainWithin, m.ValSign, m.ValWithin = 0, 0, nil, nil
}

// metricsLog appends to metrics.jsonl.
type metricsLog struct {
	file *os.File
	all  []Metric // every line, for the epoch hook
}

// openMetrics opens path for appending after dropping lines past step
// afterStep (written after the checkpoint a resumed run continues from);
// afterStep < 0 starts a new file.
func openMetrics(path string, afterStep int64, kind family.AccuracyKind) (*metricsLog, error) {
	l := &metricsLog{}
	if afterStep >= 0 {
		data, err := os.ReadFile(path)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
		var kept bytes.Buffer
		for _, line := range bytes.Split(data, []byte("\n")) {
			var m Metric
			if len(line) == 0 || json.Unmarshal(line, &m) != nil || m.Step > afterStep {
				continue
			}
			m.upgrade(kind)
			l.all = append(l.all, m)
			kept.Write(line)
			kept.WriteByte('\n')
		}
		// Cut back whole or not at all: a kill here must not lose the
		// metrics of the steps the checkpoint keeps.
		if err := safefile.WriteFile(path, kept.Bytes()); err != nil {
			return nil, err
		}
	}
	flags := os.O_CREATE | os.O_WRONLY | os.O_APPEND
	if afterStep < 0 {
		flags |= os.O_TRUNC
	}
	f, err := os.OpenFile(path, flags, 0o644)
	if err != nil {
		return nil, fmt.Errorf("metrics: %w", err)
	}
	l.file = f
	return l, nil
}

func (l *metricsLog) write(m Metric) error {
	l.all = append(l.all, m)
	data, err := json.Marshal(m)
	if err != nil {
		return err
	}
	// One write per line, unbuffered: `tail -f metrics.jsonl` follows a
	// run, and a killed run loses no line it logged.
	_, err = l.file.Write(append(data, '\n'))
	return err
}

func (l *metricsLog) close() error { return l.file.Close() }

// ReadMetrics reads a run's metrics.jsonl. Lines written before each
// family's accuracy had its own name are read under the new names, the
// family taken from the run's config.yaml beside the file.
func ReadMetrics(path string) ([]Metric, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	kind := family.AccuracySign
	if cfg, err := family.LoadConfig(filepath.Join(filepath.Dir(path), family.ConfigFile), ""); err == nil {
		kind = cfg.Family().Accuracy
	}
	var out []Metric
	for i, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var m Metric
		if err := json.Unmarshal(line, &m); err != nil {
			return nil, fmt.Errorf("%s line %d: not a metrics line: %v", path, i+1, err)
		}
		m.upgrade(kind)
		out = append(out, m)
	}
	return out, nil
}

// ratio is a/b, 0 when there is nothing to divide by.
func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}
