package tokens

import "math"

// Calibration bounds and smoothing: a ratio outside [0.5, 2] means the
// sample was noise (a tiny delta, a changed system prompt), not a property
// of the estimator.
const (
	CalibrationAlpha    = 0.3
	CalibrationMinRatio = 0.5
	CalibrationMaxRatio = 2.0
	// calibrationMinTokens is the smallest estimated delta worth learning
	// from: below it, per-message overhead and rounding dominate the ratio.
	calibrationMinTokens = 256
)

// Calibrated scales another estimator's counts by Ratio (actual/estimate
// measured on past calls). A Ratio of 0 means 1.
type Calibrated struct {
	Estimator Estimator
	Ratio     float64
}

// Count returns the scaled estimate, rounded up.
func (c Calibrated) Count(text string) int {
	return scale(c.Estimator.Count(text), c.Ratio)
}

func scale(n int, ratio float64) int {
	if ratio <= 0 || ratio == 1 || n == 0 {
		return n
	}
	return int(math.Ceil(float64(n) * ratio))
}

// Calibration is an exponential moving average of actual/estimate. The zero
// value is a ratio of 1 with no samples.
type Calibration struct {
	ratio   float64
	samples int
}

// Ratio returns the current ratio (1 before any sample).
func (c Calibration) Ratio() float64 {
	if c.samples == 0 {
		return 1
	}
	return c.ratio
}

// Samples returns how many samples were averaged.
func (c Calibration) Samples() int { return c.samples }

// Update folds in one observation of actual against estimate: the sample
// actual/estimate is clamped to [CalibrationMinRatio, CalibrationMaxRatio]
// and averaged with weight CalibrationAlpha into the ratio, which starts at
// 1 (so one odd call moves it by at most 30 %). Non-positive inputs are
// ignored.
func (c *Calibration) Update(estimate, actual int64) {
	if estimate <= 0 || actual <= 0 {
		return
	}
	sample := min(max(float64(actual)/float64(estimate), CalibrationMinRatio), CalibrationMaxRatio)
	c.ratio = (1-CalibrationAlpha)*c.Ratio() + CalibrationAlpha*sample
	c.samples++
}
