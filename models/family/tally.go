package family

// Tally accumulates the two accuracy measures of docs/training.md.
// It is saved in checkpoints so a resumed epoch reports the same numbers.
type Tally struct {
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

func (a *Tally) Add(loss float64, predicted, target float32) {
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
func (a *Tally) AddLoss(loss float64) {
	a.LossSum += loss
	a.N++
}

// ValueScore accumulates the evaluator figures of docs/training.md (mean
// squared error, sign agreement, within 0.1) for win probabilities
// predicted outside training, with the definitions training reports.
type ValueScore struct{ acc Tally }

// Add counts one prediction against its label.
func (v *ValueScore) Add(predicted, target float32) {
	d := float64(predicted - target)
	v.acc.Add(d*d, predicted, target)
}

// N is the number of predictions counted.
func (v *ValueScore) N() int64 { return v.acc.N }

// MSE is the mean squared error.
func (v *ValueScore) MSE() float64 { return v.acc.Loss() }

// SignAgreement is the share of decisive labels whose side of 0.5 the
// prediction shares.
func (v *ValueScore) SignAgreement() float64 { return v.acc.Sign() }

// Within is the share of predictions within 0.1 of their label.
func (v *ValueScore) Within() float64 { return v.acc.Near() }

func (a *Tally) Loss() float64 { return ratio(a.LossSum, float64(a.N)) }
func (a *Tally) Sign() float64 { return ratio(float64(a.SignAgree), float64(a.SignN)) }
func (a *Tally) Near() float64 { return ratio(float64(a.Within), float64(a.N)) }

func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}
