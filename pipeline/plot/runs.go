package plot

import (
	"fmt"
	"strings"
)

// Text is what dchess plot prints of a comparison: each run's last point
// (and where it stands on the axis, when that is not the step), the
// crossings, then the file.
func (cmp *Comparison) Text() string {
	var w strings.Builder
	for _, c := range cmp.Runs {
		last := len(c.Steps) - 1
		points := "points"
		if len(c.Steps) == 1 {
			points = "point"
		}
		at := ""
		if cmp.Axis != AxisStep {
			at = fmt.Sprintf(", %.4g %s", c.X[last], cmp.Axis)
		}
		fmt.Fprintf(&w, "%s: %s %.4g at step %d%s (%d %s)\n", c.Name, cmp.Metric, c.Values[last], c.Steps[last], at, len(c.Steps), points)
	}
	for _, c := range cmp.Crossings {
		fmt.Fprintf(&w, "%s and %s cross at %s %.4g (%s %.4g)\n", c.A, c.B, cmp.Axis, c.X, cmp.Metric, c.Value)
	}
	fmt.Fprintf(&w, "wrote %s\n", cmp.Plot)
	return w.String()
}
