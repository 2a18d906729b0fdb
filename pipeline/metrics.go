package pipeline

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
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
	GradNorm      float64  `json:"grad_norm,omitempty"`
	SamplesPerSec float64  `json:"samples_per_sec,omitempty"`
	TrainLoss     float64  `json:"train_loss,omitempty"`
	ValLoss       *float64 `json:"val_loss,omitempty"`
	ValRecords    int64    `json:"val_records,omitempty"`
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
func (m *Metric) setAccuracy(kind AccuracyKind, train accuracy, val *accuracy) {
	var vs, vw *float64
	if val != nil {
		s, w := val.sign(), val.near()
		vs, vw = &s, &w
	}
	switch kind {
	case AccuracySign:
		m.TrainSign, m.TrainWithin, m.ValSign, m.ValWithin = train.sign(), train.near(), vs, vw
	case AccuracyPair:
		m.TrainPairAccuracy, m.ValPairAccuracy = train.sign(), vs
	case AccuracyAction:
		m.TrainActionAccuracy, m.ValActionAccuracy = train.sign(), vs
	}
}

// upgrade renames the figures of a line written before each family's
// accuracy had its own name, when every accuracy was a "sign agreement".
func (m *Metric) upgrade(kind AccuracyKind) {
	if kind == AccuracySign || (m.TrainSign == 0 && m.ValSign == nil) {
		return
	}
	switch kind {
	case AccuracyPair:
		m.TrainPairAccuracy = m.TrainSign
		if m.ValPairAccuracy == nil {
			m.ValPairAccuracy = m.ValSign
		}
	case AccuracyAction:
		m.TrainActionAccuracy, m.ValActionAccuracy = m.TrainSign, m.ValSign
	}
	m.TrainSign, m.TrainWithin, m.ValSign, m.ValWithin = 0, 0, nil, nil
}

// accuracy accumulates the two accuracy measures of docs/training.md.
// It is saved in checkpoints so a resumed epoch reports the same numbers.
type accuracy struct {
	LossSum   float64 `json:"loss_sum"`
	N         int64   `json:"n"`
	SignN     int64   `json:"sign_n"`
	SignAgree int64   `json:"sign_agree"`
	Within    int64   `json:"within"`
}

// drawBand is how close to 0.5 a label may be before sign agreement ignores it.
const drawBand = 0.02

// withinBand is the win-probability distance counted as a close prediction.
const withinBand = 0.1

func (a *accuracy) add(loss float64, predicted, target float32) {
	a.LossSum += loss
	a.N++
	if target > 0.5+drawBand || target < 0.5-drawBand {
		a.SignN++
		if (predicted > 0.5) == (target > 0.5) {
			a.SignAgree++
		}
	}
	d := predicted - target
	if d <= withinBand && d >= -withinBand {
		a.Within++
	}
}

// addLoss counts a sample that has a loss but no win probability (a
// reconstruction).
func (a *accuracy) addLoss(loss float64) {
	a.LossSum += loss
	a.N++
}

// ValueScore accumulates the evaluator figures of docs/training.md (mean
// squared error, sign agreement, within 0.1) for win probabilities
// predicted outside training, with the definitions training reports.
type ValueScore struct{ acc accuracy }

// Add counts one prediction against its label.
func (v *ValueScore) Add(predicted, target float32) {
	d := float64(predicted - target)
	v.acc.add(d*d, predicted, target)
}

// N is the number of predictions counted.
func (v *ValueScore) N() int64 { return v.acc.N }

// MSE is the mean squared error.
func (v *ValueScore) MSE() float64 { return v.acc.loss() }

// SignAgreement is the share of decisive labels whose side of 0.5 the
// prediction shares.
func (v *ValueScore) SignAgreement() float64 { return v.acc.sign() }

// Within is the share of predictions within 0.1 of their label.
func (v *ValueScore) Within() float64 { return v.acc.near() }

func (a *accuracy) loss() float64 { return ratio(a.LossSum, float64(a.N)) }
func (a *accuracy) sign() float64 { return ratio(float64(a.SignAgree), float64(a.SignN)) }
func (a *accuracy) near() float64 { return ratio(float64(a.Within), float64(a.N)) }

func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

// metricsLog appends to metrics.jsonl.
type metricsLog struct {
	file *os.File
	all  []Metric // every line, for the plot
}

// openMetrics opens path for appending after dropping lines past step
// afterStep (written after the checkpoint a resumed run continues from);
// afterStep < 0 starts a new file.
func openMetrics(path string, afterStep int64, kind AccuracyKind) (*metricsLog, error) {
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
		if err := os.WriteFile(path, kept.Bytes(), 0o644); err != nil {
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
	kind := AccuracySign
	if cfg, err := LoadConfig(filepath.Join(filepath.Dir(path), ConfigFile), ""); err == nil {
		kind = cfg.family().Accuracy
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
