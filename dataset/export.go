package dataset

import (
	"bufio"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/dchess/dchess/internal/chess/binpack"
	"github.com/dchess/dchess/internal/safefile"
)

// RecordJSON is one line of a jsonl export. Keys and game IDs are hex
// strings because JSON numbers lose 64-bit integers in many readers.
type RecordJSON struct {
	FEN      string     `json:"fen"`
	Key      string     `json:"key"`
	Move     string     `json:"move"`
	Next     []string   `json:"next"`
	Result   string     `json:"result"`
	Ply      uint16     `json:"ply"`
	WhiteElo uint16     `json:"white_elo"`
	BlackElo uint16     `json:"black_elo"`
	GameID   string     `json:"game_id"`
	Split    string     `json:"split"`
	Label    *LabelJSON `json:"label"`
	// ClockMS and Notes appear only when the record has them.
	ClockMS uint32 `json:"clock_ms,omitempty"`
	Notes   string `json:"notes,omitempty"`
}

// LabelJSON is a record's label in a jsonl export. Its score is written
// as every position's score in dchess's JSON (docs/reference/json.md): CP
// in centipawns from the side to move, nil for a mate, and Mate in moves
// (positive: the side to move mates), nil when there is none; both are nil
// for a failed label, which has no score.
type LabelJSON struct {
	Status   string       `json:"status"`
	CP       *int32       `json:"cp"`
	Mate     *int32       `json:"mate"`
	WinProb  float32      `json:"win_prob"`
	BestMove string       `json:"best_move"`
	PV       []string     `json:"pv"`
	Depth    uint16       `json:"depth"`
	Nodes    uint64       `json:"nodes"`
	Engine   string       `json:"engine"`
	MultiPV  []PVLineJSON `json:"multipv"`
	Error    string       `json:"error,omitempty"`
	// Quiet is Label.Quiet (not in check, the best move not a capture) for
	// a successful label, null otherwise.
	Quiet *bool `json:"quiet"`
}

// PVLineJSON is one MultiPV line of a label in a jsonl export, its score
// as LabelJSON's.
type PVLineJSON struct {
	CP   *int32   `json:"cp"`
	Mate *int32   `json:"mate"`
	PV   []string `json:"pv"`
}

// scoreJSON is a stored score (Mate 0: CP holds centipawns) as the cp and
// mate of a jsonl export: exactly one of them is set.
func scoreJSON(cp, mate int32) (*int32, *int32) {
	if mate != 0 {
		return nil, &mate
	}
	return &cp, nil
}

func labelStatusName(s LabelStatus) string {
	switch s {
	case LabelOK:
		return "ok"
	case LabelFailed:
		return "failed"
	}
	return strconv.Itoa(int(s))
}

// RecordToJSON is r as a jsonl export writes it, in split; empty lists are
// [] rather than null so readers need not tell the two apart.
func RecordToJSON(r *Record, split Split) RecordJSON {
	out := RecordJSON{
		FEN: r.FEN, Key: fmt.Sprintf("%016x", r.Key), Move: r.Move, Next: r.Next, Result: r.Result.String(),
		Ply: r.Ply, WhiteElo: r.WhiteElo, BlackElo: r.BlackElo, GameID: fmt.Sprintf("%016x", r.GameID), Split: split.String(),
		ClockMS: r.ClockMS, Notes: r.Notes,
	}
	if out.Next == nil {
		out.Next = []string{}
	}
	if l := r.Label; l != nil {
		lj := &LabelJSON{Status: labelStatusName(l.Status), WinProb: l.WinProb,
			BestMove: l.BestMove, PV: l.PV, Depth: l.Depth, Nodes: l.Nodes, Engine: l.Engine, Error: l.Error,
			MultiPV: []PVLineJSON{}}
		if l.Status == LabelOK {
			lj.CP, lj.Mate = scoreJSON(l.CP, l.Mate)
		}
		if lj.PV == nil {
			lj.PV = []string{}
		}
		for _, line := range l.MultiPV {
			pv := line.PV
			if pv == nil {
				pv = []string{}
			}
			cp, mate := scoreJSON(line.CP, line.Mate)
			lj.MultiPV = append(lj.MultiPV, PVLineJSON{CP: cp, Mate: mate, PV: pv})
		}
		if quiet, ok := quietOf(r); ok {
			lj.Quiet = &quiet
		}
		out.Label = lj
	}
	return out
}

// CSVHeader is the first row of a csv export. Columns are only ever added
// at the end, so readers that index them keep working.
var CSVHeader = []string{"fen", "move", "result", "ply", "cp", "mate", "win_prob", "best_move", "pv", "quiet"}

// CSVRow is r as a csv export writes it. It gives the label columns only
// for a successful label; cp is empty for a mate score and mate empty for
// a centipawn score; quiet is 1 or 0 (Label.Quiet).
func CSVRow(r *Record) []string {
	row := []string{r.FEN, r.Move, r.Result.String(), strconv.Itoa(int(r.Ply)), "", "", "", "", "", ""}
	if l := r.Label; l != nil && l.Status == LabelOK {
		if l.Mate != 0 {
			row[5] = strconv.Itoa(int(l.Mate))
		} else {
			row[4] = strconv.Itoa(int(l.CP))
		}
		row[6] = strconv.FormatFloat(float64(l.WinProb), 'g', -1, 32)
		row[7] = l.BestMove
		row[8] = strings.Join(l.PV, " ")
		if quiet, ok := quietOf(r); ok {
			row[9] = map[bool]string{true: "1", false: "0"}[quiet]
		}
	}
	return row
}

// Export formats. plain, binpack and bullet are the NNUE trainers' formats
// (docs/dataset-format.md): Stockfish's text and compressed training data,
// and bullet's text lines.
const (
	ExportJSONL   = "jsonl"
	ExportCSV     = "csv"
	ExportPlain   = "plain"
	ExportBinpack = "binpack"
	ExportBullet  = "bullet"
)

// ExportFormats lists the export formats.
var ExportFormats = []string{ExportJSONL, ExportCSV, ExportPlain, ExportBinpack, ExportBullet}

// ExportOptions say what Export writes and where.
type ExportOptions struct {
	// Format is one of ExportFormats.
	Format string
	// QuietOnly writes only quiet labelled positions (Label.Quiet: not in
	// check, the best move not a capture), in every format.
	QuietOnly bool
	// SkipUnknownResult leaves out, in the plain, binpack and bullet
	// formats, records whose game result is unknown; otherwise they are
	// written as draws (those formats have no unknown result).
	SkipUnknownResult bool
	// Stats, if not nil, receives what was written and left out.
	Stats *ExportStats
	// Split limits the export to one split (AllSplits for every record).
	Split Split
	// Output is the file to write; "" or "-" writes to Stdout instead.
	// The file appears only when complete; an existing one is replaced
	// only with Force.
	Output string
	Force  bool
	Stdout io.Writer
	// Progress, if not nil, hears the records written so far of the total
	// expected, at the start and every few thousand records.
	Progress func(done, total int64)
}

// Export writes d's records in stored order in opts.Format and returns
// how many it wrote. The plain, binpack and bullet formats hold only
// labelled positions, so they leave the others out (and count them in
// opts.Stats).
func Export(ctx context.Context, d *Dataset, opts ExportOptions) (int64, error) {
	if !slices.Contains(ExportFormats, opts.Format) {
		return 0, fmt.Errorf("export format %q: want %s", opts.Format, strings.Join(ExportFormats, ", "))
	}
	if opts.Stats == nil {
		opts.Stats = &ExportStats{}
	}
	stats := opts.Stats
	nnue := &nnueExporter{opts: &opts, stats: stats}
	m := d.Manifest()
	if opts.Split != AllSplits && m.Split == nil && opts.Split != Train {
		return 0, fmt.Errorf("dataset %s is not split, so its %s split is empty (run: dchess dataset split %s)", d.Dir(), opts.Split, d.Dir())
	}
	toFile := opts.Output != "-" && opts.Output != ""
	out := opts.Stdout
	var file *safefile.File
	if toFile {
		if err := safefile.CheckOutputFile(opts.Output, opts.Force); err != nil {
			return 0, err
		}
		// Written under a temporary beside the target and renamed at the
		// end, so an interrupted export never leaves a file that looks
		// complete; the temporary of a killed export is removed by the next
		// export to the same file.
		var err error
		if file, err = safefile.Create(opts.Output); err != nil {
			return 0, fmt.Errorf("export: %w", err)
		}
		defer file.Discard()
		out = file
	}
	bw := bufio.NewWriterSize(out, 1<<20)

	total := m.Counts.Records
	if opts.Split != AllSplits && m.Split != nil {
		total = m.Split.Records.Of(opts.Split)
	}
	var scanned int64
	report := func() {
		if opts.Progress != nil {
			opts.Progress(scanned, total)
		}
	}
	report()
	tick := func() {
		scanned++
		if scanned%4096 == 0 {
			report()
		}
	}
	// keep counts a scanned record and says whether --quiet-only lets
	// the jsonl and csv formats write it.
	keep := func(r *Record) bool {
		tick()
		if !opts.QuietOnly {
			return true
		}
		if r.Label == nil || r.Label.Status != LabelOK {
			stats.Unlabelled++
			return false
		}
		if quiet, ok := quietOf(r); !ok || !quiet {
			stats.NotQuiet++
			return false
		}
		return true
	}

	var err error
	switch opts.Format {
	case ExportJSONL:
		enc := json.NewEncoder(bw)
		err = d.Scan(ctx, opts.Split, func(r *Record) error {
			if !keep(r) {
				return nil
			}
			stats.Written++
			return enc.Encode(RecordToJSON(r, d.SplitOf(r.GameID)))
		})
	case ExportCSV:
		cw := csv.NewWriter(bw)
		if err = cw.Write(CSVHeader); err == nil {
			err = d.Scan(ctx, opts.Split, func(r *Record) error {
				if !keep(r) {
					return nil
				}
				stats.Written++
				return cw.Write(CSVRow(r))
			})
		}
		cw.Flush()
		if err == nil {
			err = cw.Error()
		}
	case ExportPlain:
		var buf []byte
		err = d.Scan(ctx, opts.Split, func(r *Record) error {
			tick()
			e, _, ok := nnue.entry(r, true)
			if !ok {
				return nil
			}
			stats.Written++
			buf = append(buf[:0], e.String()...)
			_, err := bw.Write(buf)
			return err
		})
	case ExportBinpack:
		w := binpack.NewWriter(bw)
		err = d.Scan(ctx, opts.Split, func(r *Record) error {
			tick()
			e, _, ok := nnue.entry(r, true)
			if !ok {
				return nil
			}
			// entry checked the position and move, so an error here is
			// the output's.
			if err := w.Write(e); err != nil {
				return err
			}
			stats.Written++
			return nil
		})
		if err == nil {
			err = w.Close()
		}
	case ExportBullet:
		var buf []byte
		err = d.Scan(ctx, opts.Split, func(r *Record) error {
			tick()
			e, b, ok := nnue.entry(r, false)
			if !ok {
				return nil
			}
			stats.Written++
			buf = bulletLine(buf[:0], r, &e, b)
			_, err := bw.Write(buf)
			return err
		})
	}
	if err == nil {
		err = bw.Flush()
	}
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return stats.Written, fmt.Errorf("export interrupted after %d records; nothing was written to %s", scanned, opts.Output)
		}
		return stats.Written, fmt.Errorf("export: %w", err)
	}
	if file != nil {
		if err := file.Commit(); err != nil {
			return stats.Written, fmt.Errorf("export: %w", err)
		}
	}
	return stats.Written, nil
}
