package plot

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/dchess/dchess/pipeline/train"
)

// RunCurves reads metric from each run folder's metrics.jsonl, a curve
// named by the folder, for dchess plot. A folder without metrics, or whose
// file has no point of metric, is an error naming the folder; a metric
// Curves cannot draw is an *UnknownMetricError.
func RunCurves(dirs []string, metric string) ([]Curve, error) {
	var curves []Curve
	for _, dir := range dirs {
		metrics, err := train.ReadMetrics(filepath.Join(dir, train.MetricsFile))
		if err != nil {
			return nil, fmt.Errorf("%s: no training metrics: %w", dir, err)
		}
		c, err := CurveOf(filepath.Base(filepath.Clean(dir)), metrics, metric)
		if err != nil {
			return nil, err
		}
		if len(c.Steps) == 0 {
			return nil, fmt.Errorf("%s: its metrics.jsonl has no %s (a run of another family, or no epoch ended yet)", dir, metric)
		}
		curves = append(curves, c)
	}
	return curves, nil
}

// CurvesText is what dchess plot prints of curves of metric drawn into
// path: each run's last point, then the file.
func CurvesText(curves []Curve, metric, path string) string {
	var w strings.Builder
	for _, c := range curves {
		last := len(c.Steps) - 1
		points := "points"
		if len(c.Steps) == 1 {
			points = "point"
		}
		fmt.Fprintf(&w, "%s: %s %.4g at step %d (%d %s)\n", c.Name, metric, c.Values[last], c.Steps[last], len(c.Steps), points)
	}
	fmt.Fprintf(&w, "wrote %s\n", path)
	return w.String()
}
