package ingest

import (
	"fmt"
	"strings"

	"github.com/dchess/dchess/dataset"
)

// Report is what an ingest into a dataset did: the summary, where it went
// and how many unique positions were stored. It is dchess ingest's --json
// object.
type Report struct {
	*Summary
	Dataset string `json:"dataset"`
	Stored  int64  `json:"positions_stored"`
}

// Text is the report as dchess ingest prints it: what was read, kept and
// skipped (why, in PGN), the positions taken and stored, the labelled
// ones of a PGN, and whether maxGames (--max-games) ended the run.
func (r Report) Text(maxGames int) string {
	sum := r.Summary
	format := Format(sum.Format)
	var w strings.Builder
	unit := "games"
	read, kept, skipped := sum.GamesRead, sum.GamesKept, sum.GamesSkipped
	if format != FormatPGN {
		unit, read, kept, skipped = "lines", sum.LinesRead, sum.LinesKept, sum.LinesBad+sum.LinesFiltered
		if format == FormatPlain || format == FormatBinpack {
			unit = "entries"
		}
	}
	fmt.Fprintf(&w, "read %d %s in %.1fs (%.0f/s): %d kept, %d skipped", read, unit, sum.Seconds, float64(read)/max(sum.Seconds, 1e-9), kept, skipped)
	if format == FormatPGN && skipped > 0 {
		fmt.Fprintf(&w, " (%d malformed, %d illegal moves, %d filtered out", sum.SkippedMalformed, sum.SkippedIllegal, sum.SkippedFiltered)
		if sum.SkippedVariant > 0 {
			fmt.Fprintf(&w, ", %d not standard chess", sum.SkippedVariant)
		}
		fmt.Fprint(&w, ")")
	}
	if format != FormatPGN && sum.LinesFiltered > 0 {
		fmt.Fprintf(&w, " (%d bad, %d filtered out)", sum.LinesBad, sum.LinesFiltered)
	}
	fmt.Fprintf(&w, "\n%d positions taken from the kept %s, %d dropped as repeats of an earlier one, %d unique positions stored in %s\n", sum.Positions, unit, sum.Duplicates, r.Stored, r.Dataset)
	if format == FormatPGN && sum.Labelled > 0 {
		fmt.Fprintf(&w, "%d of the positions taken are labelled from the games' [%%eval] comments\n", sum.Labelled)
	}
	if sum.StoppedAtMaxGames {
		fmt.Fprintf(&w, "stopped after --max-games %d\n", maxGames)
	}
	return w.String()
}

// TotalBytes is the size of sources, what a progress bar of bytes read
// counts to, or -1 when one of them is Stdin, whose size is unknown.
func TotalBytes(sources []dataset.Source) int64 {
	total := int64(0)
	for _, src := range sources {
		if src.Path == Stdin {
			return -1
		}
		total += src.Bytes
	}
	return total
}

// ErrorsText is the first problems a run skipped past, a line each, and
// how many more there were of total: what dchess ingest prints on stderr,
// and dchess eval of a suite's bad lines.
func ErrorsText(first []string, total int64) string {
	var w strings.Builder
	for _, e := range first {
		w.WriteString(e + "\n")
	}
	if more := total - int64(len(first)); more > 0 {
		fmt.Fprintf(&w, "... and %d more errors\n", more)
	}
	return w.String()
}
