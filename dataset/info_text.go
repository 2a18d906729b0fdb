package dataset

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Text is info as `dchess dataset info` prints it: counts, label
// coverage, the quiet count when there is one, the splits, the score
// histogram with a bar a row, the shards and where the data came from.
func (info *Info) Text() string {
	var w strings.Builder
	fmt.Fprintf(&w, "dataset    %s (format %d, made %s)\n", info.Dataset, info.FormatVersion, info.CreatedAt.Format(time.RFC3339))
	fmt.Fprintf(&w, "records    %s from %s games", FormatCount(info.Records), FormatCount(info.Games))
	if info.Duplicates > 0 {
		fmt.Fprintf(&w, " (%s duplicates dropped)", FormatCount(info.Duplicates))
	}
	fmt.Fprintln(&w)
	fmt.Fprintf(&w, "labelled   %s (%.1f%%), failed %s\n", FormatCount(info.Labelled), 100*info.LabelCoverage, FormatCount(info.Failed))
	if q := info.Quiet; q != nil {
		share := 0.0
		if q.Labelled > 0 {
			share = 100 * float64(q.Quiet) / float64(q.Labelled)
		}
		fmt.Fprintf(&w, "quiet      %s (%.1f%% of the labelled; train %s, val %s, test %s): not in check, the best move not a capture\n",
			FormatCount(q.Quiet), share, FormatCount(q.Splits["train"]), FormatCount(q.Splits["val"]), FormatCount(q.Splits["test"]))
	}
	if info.Split == nil {
		fmt.Fprintf(&w, "splits     none: every record is train (dchess dataset split %s --val 0.05 --test 0.05)\n", info.Dataset)
	} else {
		fmt.Fprintf(&w, "splits     seed %d, val %g, test %g\n", info.Split.Seed, info.Split.Val, info.Split.Test)
		for _, name := range []string{"train", "val", "test"} {
			fmt.Fprintf(&w, "  %-8s %12s records %10s games\n", name, FormatCount(info.Splits[name]), FormatCount(info.SplitGames[name]))
		}
	}
	h := info.Histogram
	scored := h.MateFor + h.MateAgainst
	for _, b := range h.Buckets {
		scored += b.Count
	}
	if scored > 0 {
		fmt.Fprintln(&w, "scores     centipawns from the side to move")
		rows := append([]BucketCount{{Name: "mated", Count: h.MateAgainst}}, h.Buckets...)
		rows = append(rows, BucketCount{Name: "mates", Count: h.MateFor})
		for _, b := range rows {
			bar := strings.Repeat("#", int(40*b.Count/scored))
			fmt.Fprintf(&w, "  %-12s %12s %5.1f%% %s\n", b.Name, FormatCount(b.Count), 100*float64(b.Count)/float64(scored), bar)
		}
	}
	fmt.Fprintf(&w, "shards     %d files, %s\n", info.Shards, FormatBytes(info.Bytes))
	if len(info.Command) > 0 {
		fmt.Fprintf(&w, "made by    %s\n", strings.Join(info.Command, " "))
	}
	for i, src := range info.Sources {
		label := "sources"
		if i > 0 {
			label = ""
		}
		sum := src.SHA256
		if len(sum) > 16 {
			sum = sum[:16]
		}
		fmt.Fprintf(&w, "%-10s %s (%s, sha256 %s)\n", label, src.Path, FormatBytes(src.Bytes), sum)
	}
	return w.String()
}

// LeftOut names what an export left out and why, for a message: "3
// without a label, 1 not quiet"; nil when it left nothing out. The records
// with no game result count only when skipUnknownResult left them out.
func (s *ExportStats) LeftOut(skipUnknownResult bool) []string {
	var left []string
	for _, c := range []struct {
		n    int64
		what string
	}{{s.Unlabelled, "without a label"}, {s.NoMove, "without a move"}, {s.NotQuiet, "not quiet"}, {s.Invalid, "the format cannot hold"}} {
		if c.n > 0 {
			left = append(left, fmt.Sprintf("%s %s", FormatCount(c.n), c.what))
		}
	}
	if skipUnknownResult && s.UnknownResult > 0 {
		left = append(left, fmt.Sprintf("%s with no game result", FormatCount(s.UnknownResult)))
	}
	return left
}

// FormatCount writes n with thousands separators: 1,234,567.
func FormatCount(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// FormatBytes writes a size in bytes in binary units: 512 B, 4.0 KiB, 1.5 GiB.
func FormatBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
