package dataset

import (
	"bufio"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

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

// LabelJSON is a record's label in a jsonl export.
type LabelJSON struct {
	Status   string       `json:"status"`
	CP       int32        `json:"cp"`
	Mate     int32        `json:"mate"`
	WinProb  float32      `json:"win_prob"`
	BestMove string       `json:"best_move"`
	PV       []string     `json:"pv"`
	Depth    uint16       `json:"depth"`
	Nodes    uint64       `json:"nodes"`
	Engine   string       `json:"engine"`
	MultiPV  []PVLineJSON `json:"multipv"`
	Error    string       `json:"error,omitempty"`
}

// PVLineJSON is one MultiPV line of a label in a jsonl export.
type PVLineJSON struct {
	CP   int32    `json:"cp"`
	Mate int32    `json:"mate"`
	PV   []string `json:"pv"`
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
		lj := &LabelJSON{Status: labelStatusName(l.Status), CP: l.CP, Mate: l.Mate, WinProb: l.WinProb,
			BestMove: l.BestMove, PV: l.PV, Depth: l.Depth, Nodes: l.Nodes, Engine: l.Engine, Error: l.Error,
			MultiPV: []PVLineJSON{}}
		if lj.PV == nil {
			lj.PV = []string{}
		}
		for _, line := range l.MultiPV {
			pv := line.PV
			if pv == nil {
				pv = []string{}
			}
			lj.MultiPV = append(lj.MultiPV, PVLineJSON{CP: line.CP, Mate: line.Mate, PV: pv})
		}
		out.Label = lj
	}
	return out
}

// CSVHeader is the first row of a csv export.
var CSVHeader = []string{"fen", "move", "result", "ply", "cp", "mate", "win_prob", "best_move", "pv"}

// CSVRow is r as a csv export writes it. It gives the label columns only
// for a successful label; cp is empty for a mate score and mate empty for
// a centipawn score.
func CSVRow(r *Record) []string {
	row := []string{r.FEN, r.Move, r.Result.String(), strconv.Itoa(int(r.Ply)), "", "", "", "", ""}
	if l := r.Label; l != nil && l.Status == LabelOK {
		if l.Mate != 0 {
			row[5] = strconv.Itoa(int(l.Mate))
		} else {
			row[4] = strconv.Itoa(int(l.CP))
		}
		row[6] = strconv.FormatFloat(float64(l.WinProb), 'g', -1, 32)
		row[7] = l.BestMove
		row[8] = strings.Join(l.PV, " ")
	}
	return row
}

// Export formats.
const (
	ExportJSONL = "jsonl"
	ExportCSV   = "csv"
)

// ExportOptions say what Export writes and where.
type ExportOptions struct {
	// Format is ExportJSONL or ExportCSV.
	Format string
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

// Export writes d's records in stored order as JSON lines or CSV and
// returns how many it wrote.
func Export(ctx context.Context, d *Dataset, opts ExportOptions) (int64, error) {
	if opts.Format != ExportJSONL && opts.Format != ExportCSV {
		return 0, fmt.Errorf("export format %q: want jsonl or csv", opts.Format)
	}
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
	var count int64
	report := func() {
		if opts.Progress != nil {
			opts.Progress(count, total)
		}
	}
	report()
	tick := func() {
		count++
		if count%4096 == 0 {
			report()
		}
	}

	var err error
	switch opts.Format {
	case ExportJSONL:
		enc := json.NewEncoder(bw)
		err = d.Scan(ctx, opts.Split, func(r *Record) error {
			tick()
			return enc.Encode(RecordToJSON(r, d.SplitOf(r.GameID)))
		})
	case ExportCSV:
		cw := csv.NewWriter(bw)
		if err = cw.Write(CSVHeader); err == nil {
			err = d.Scan(ctx, opts.Split, func(r *Record) error {
				tick()
				return cw.Write(CSVRow(r))
			})
		}
		cw.Flush()
		if err == nil {
			err = cw.Error()
		}
	}
	if err == nil {
		err = bw.Flush()
	}
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return count, fmt.Errorf("export interrupted after %d records; nothing was written to %s", count, opts.Output)
		}
		return count, fmt.Errorf("export: %w", err)
	}
	if file != nil {
		if err := file.Commit(); err != nil {
			return count, fmt.Errorf("export: %w", err)
		}
	}
	return count, nil
}
