package dataset

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/dchess/dchess/internal/safefile"
)

// FormatVersion is the newest dataset format this code reads. It writes
// version 1, 2 only for a split that placed games (SplitInfo.Placed),
// which an older reader would assign differently, and 3 only when a
// record has a clock or notes (Record.ClockMS, Record.Notes), whose
// payload flags an older reader would take for damage.
const FormatVersion = 3

// recordFieldsFormatVersion is the format of a dataset holding a record
// with a clock or notes.
const recordFieldsFormatVersion = 3

// baseFormatVersion is the format of every dataset without placed games.
const baseFormatVersion = 1

// formatName marks a folder's manifest as a dchess dataset, so Open can tell a
// dataset from some other folder that happens to hold a manifest.json.
const formatName = "dchess-dataset"

// ManifestFile is the name of the manifest inside a dataset folder.
const ManifestFile = "manifest.json"

// Source is an input file a dataset was made from.
type Source struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
	Bytes  int64  `json:"bytes"`
}

// Manifest describes a dataset folder: what is in it, how it was made and how
// it is split. It is stored as manifest.json.
type Manifest struct {
	Format        string         `json:"format"`
	FormatVersion int            `json:"format_version"`
	CreatedAt     time.Time      `json:"created_at"`
	Command       []string       `json:"command"`
	Settings      map[string]any `json:"settings"`
	Sources       []Source       `json:"sources"`
	Counts        Counts         `json:"counts"`
	Histogram     ScoreHistogram `json:"score_histogram"`
	// Split is nil until WriteSplit has been run; records are then all Train.
	Split  *SplitInfo  `json:"split,omitempty"`
	Shards []ShardInfo `json:"shards"`
}

// Counts are a dataset's totals.
type Counts struct {
	Records int64 `json:"records"`
	// Games counts distinct GameIDs among the stored records.
	Games    int64 `json:"games"`
	Labelled int64 `json:"labelled"` // records whose label has LabelOK
	Failed   int64 `json:"failed"`   // records whose label has LabelFailed
	// Duplicates counts records dropped by dedupe when the dataset was written.
	Duplicates int64 `json:"duplicates_dropped"`
}

// SplitInfo records how a dataset is divided into train, val and test.
type SplitInfo struct {
	Seed    uint64      `json:"seed"`
	Val     float64     `json:"val"`
	Test    float64     `json:"test"`
	Records SplitCounts `json:"records"`
	Games   SplitCounts `json:"games"`
	// Placed are games moved from train into a requested split that the
	// draw left empty (a dataset of a few games), so that every split
	// asked for has a game; every other game keeps its draw.
	Placed []PlacedGame `json:"placed,omitempty"`
}

// PlacedGame is one game a split placed by hand.
type PlacedGame struct {
	Game  uint64 `json:"game"`
	Split Split  `json:"split"`
}

// SplitCounts holds one number per split.
type SplitCounts struct {
	Train int64 `json:"train"`
	Val   int64 `json:"val"`
	Test  int64 `json:"test"`
}

// Of returns the count for one split (the total for AllSplits).
func (c SplitCounts) Of(s Split) int64 {
	switch s {
	case Train:
		return c.Train
	case Val:
		return c.Val
	case Test:
		return c.Test
	}
	return c.Train + c.Val + c.Test
}

func (c *SplitCounts) add(s Split, n int64) {
	switch s {
	case Train:
		c.Train += n
	case Val:
		c.Val += n
	case Test:
		c.Test += n
	}
}

// ShardInfo describes one shard file.
type ShardInfo struct {
	File    string `json:"file"` // name inside the dataset folder
	Records int64  `json:"records"`
	Bytes   int64  `json:"bytes"`
	SHA256  string `json:"sha256"`
}

// CountsProblem says what in the manifest's counts cannot be true, or ""
// when nothing: a negative count, labelled and failed records or games
// outnumbering the records, split counts that do not add up to the
// totals, or a score histogram of more scores than labelled records. No
// dchess writes such a manifest; it has been damaged or edited.
func (m *Manifest) CountsProblem() string {
	type namedCount struct {
		name string
		n    int64
	}
	c, h := m.Counts, m.Histogram
	counts := []namedCount{{"counts.records", c.Records}, {"counts.games", c.Games}, {"counts.labelled", c.Labelled},
		{"counts.failed", c.Failed}, {"counts.duplicates_dropped", c.Duplicates},
		{"score_histogram.mate_for", h.MateFor}, {"score_histogram.mate_against", h.MateAgainst}}
	for i, n := range h.Counts {
		counts = append(counts, namedCount{fmt.Sprintf("score_histogram.counts[%d]", i), n})
	}
	if s := m.Split; s != nil {
		for _, sp := range []Split{Train, Val, Test} {
			counts = append(counts, namedCount{"split.records." + sp.String(), s.Records.Of(sp)},
				namedCount{"split.games." + sp.String(), s.Games.Of(sp)})
		}
	}
	for _, sh := range m.Shards {
		counts = append(counts, namedCount{"the record count of " + sh.File, sh.Records}, namedCount{"the size of " + sh.File, sh.Bytes})
	}
	for _, k := range counts {
		if k.n < 0 {
			return fmt.Sprintf("%s is %d: a count cannot be negative", k.name, k.n)
		}
	}
	switch {
	case sumCounts(c.Labelled, c.Failed) > c.Records:
		return fmt.Sprintf("it counts %d labelled and %d failed records of only %d records", c.Labelled, c.Failed, c.Records)
	case c.Games > c.Records:
		return fmt.Sprintf("it counts %d games of only %d records", c.Games, c.Records)
	case c.Records > 0 && c.Games == 0:
		return fmt.Sprintf("it counts %d records of no game", c.Records)
	}
	if s := m.Split; s != nil {
		r, g := s.Records, s.Games
		if n := sumCounts(r.Train, r.Val, r.Test); n != c.Records {
			return fmt.Sprintf("its split counts %d records (train %d, val %d, test %d) of the %d records", n, r.Train, r.Val, r.Test, c.Records)
		}
		if n := sumCounts(g.Train, g.Val, g.Test); n != c.Games {
			return fmt.Sprintf("its split counts %d games (train %d, val %d, test %d) of the %d games", n, g.Train, g.Val, g.Test, c.Games)
		}
	}
	if scored := sumCounts(append([]int64{h.MateFor, h.MateAgainst}, h.Counts...)...); scored > c.Labelled {
		return fmt.Sprintf("its score histogram counts %d scores of only %d labelled records", scored, c.Labelled)
	}
	return ""
}

// sumCounts adds non-negative counts, stopping at the largest int64 rather
// than wrapping around, so that huge counts cannot add up to a small one.
func sumCounts(counts ...int64) int64 {
	var sum int64
	for _, n := range counts {
		if n > math.MaxInt64-sum {
			return math.MaxInt64
		}
		sum += n
	}
	return sum
}

// DefaultHistogramEdges are the centipawn bucket boundaries of a dataset's
// score histogram, from the side to move's point of view.
var DefaultHistogramEdges = []int32{-1000, -500, -300, -150, -50, 50, 150, 300, 500, 1000}

// ScoreHistogram counts labelled (LabelOK) records by score. Counts[0] holds
// scores below EdgesCP[0], Counts[i] those in [EdgesCP[i-1], EdgesCP[i]) and
// the last one those at or above the last edge. Mate scores are counted apart.
type ScoreHistogram struct {
	EdgesCP     []int32 `json:"edges_cp"`
	Counts      []int64 `json:"counts"`
	MateFor     int64   `json:"mate_for"`     // the side to move mates
	MateAgainst int64   `json:"mate_against"` // the side to move gets mated
}

func newScoreHistogram() ScoreHistogram {
	return ScoreHistogram{
		EdgesCP: append([]int32(nil), DefaultHistogramEdges...),
		Counts:  make([]int64, len(DefaultHistogramEdges)+1),
	}
}

// Add counts one label; only LabelOK labels are counted.
func (h *ScoreHistogram) Add(l *Label) {
	if l == nil || l.Status != LabelOK {
		return
	}
	switch {
	case l.Mate > 0:
		h.MateFor++
		return
	case l.Mate < 0:
		h.MateAgainst++
		return
	}
	i := 0
	for i < len(h.EdgesCP) && l.CP >= h.EdgesCP[i] {
		i++
	}
	h.Counts[i]++
}

// BucketNames names the centipawn buckets in Counts order, e.g. "[-50,50)".
func (h *ScoreHistogram) BucketNames() []string {
	names := make([]string, len(h.EdgesCP)+1)
	for i := range names {
		switch {
		case len(h.EdgesCP) == 0:
			names[i] = "all"
		case i == 0:
			names[i] = "<" + strconv.Itoa(int(h.EdgesCP[0]))
		case i == len(h.EdgesCP):
			names[i] = ">=" + strconv.Itoa(int(h.EdgesCP[i-1]))
		default:
			names[i] = fmt.Sprintf("[%d,%d)", h.EdgesCP[i-1], h.EdgesCP[i])
		}
	}
	return names
}

// ErrNotDataset is wrapped by Open's error for a folder that is not a dchess dataset.
var ErrNotDataset = errors.New("not a dchess dataset")

// ErrNewerFormat is wrapped by Open's error for a dataset written by a newer dchess.
var ErrNewerFormat = errors.New("dataset format is newer than this dchess supports")

func readManifest(dir string) (*Manifest, error) {
	st, err := os.Stat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("dataset %s: no such folder", dir)
	}
	if err != nil {
		return nil, fmt.Errorf("dataset %s: %w", dir, err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("dataset %s: %w (it is a file, not a folder)", dir, ErrNotDataset)
	}
	data, err := os.ReadFile(filepath.Join(dir, ManifestFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("dataset %s: %w (no %s)", dir, ErrNotDataset, ManifestFile)
	}
	if err != nil {
		return nil, fmt.Errorf("dataset %s: %w", dir, err)
	}
	// Read the identifying fields first, so a newer format whose other
	// fields changed shape still gets the "newer format" message.
	var head struct {
		Format        string `json:"format"`
		FormatVersion int    `json:"format_version"`
	}
	if err := json.Unmarshal(data, &head); err != nil || head.Format != formatName {
		return nil, fmt.Errorf("dataset %s: %w (%s is not a dchess manifest)", dir, ErrNotDataset, ManifestFile)
	}
	if head.FormatVersion > FormatVersion {
		return nil, fmt.Errorf("dataset %s: %w: it has format version %d, this dchess reads up to %d; upgrade dchess",
			dir, ErrNewerFormat, head.FormatVersion, FormatVersion)
	}
	if head.FormatVersion < 1 {
		return nil, fmt.Errorf("dataset %s: %w (format version %d)", dir, ErrNotDataset, head.FormatVersion)
	}
	m := &Manifest{}
	if err := json.Unmarshal(data, m); err != nil {
		return nil, fmt.Errorf("dataset %s: damaged %s: %v", dir, ManifestFile, err)
	}
	for _, sh := range m.Shards {
		// Shard names come from the manifest; refuse ones that would read
		// outside the folder.
		if sh.File == "" || filepath.Base(sh.File) != sh.File || sh.File == "." || sh.File == ".." {
			return nil, fmt.Errorf("dataset %s: damaged %s: bad shard name %q", dir, ManifestFile, sh.File)
		}
	}
	return m, nil
}

// writeManifest replaces dir/manifest.json atomically: a crash leaves either
// the old manifest or the new one, and the temporary of a writer killed
// mid-write is removed by the next write.
func writeManifest(dir string, m *Manifest) error {
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("dataset %s: encoding manifest: %w", dir, err)
	}
	if err := safefile.WriteFile(filepath.Join(dir, ManifestFile), append(data, '\n')); err != nil {
		return fmt.Errorf("dataset %s: writing manifest: %w", dir, err)
	}
	return nil
}
