package dataset

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dchess/dchess/internal/safefile"
)

func TestDescribeCountsAnUnsplitDatasetAsTrain(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ds")
	st := writeDataset(t, dir, WriteOptions{Shard: 100}, sampleRecords(300, 10))
	d, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	info := Describe(d)
	m := d.Manifest()
	if info.Records != st.Records || info.Splits["train"] != info.Records || info.Splits["val"] != 0 || info.SplitGames["train"] != info.Games {
		t.Errorf("unsplit dataset described as %d records, splits %v, games %v", info.Records, info.Splits, info.SplitGames)
	}
	if want := float64(m.Counts.Labelled) / float64(m.Counts.Records); info.LabelCoverage != want || want == 0 {
		t.Errorf("label coverage %v, want %v", info.LabelCoverage, want)
	}
	var bytes int64
	for _, sh := range m.Shards {
		bytes += sh.Bytes
	}
	if info.Shards != 3 || info.Bytes != bytes {
		t.Errorf("%d shards of %d bytes, want 3 of %d", info.Shards, info.Bytes, bytes)
	}
	var scored int64
	for _, b := range info.Histogram.Buckets {
		scored += b.Count
		if info.Histogram.Counts[b.Name] != b.Count {
			t.Errorf("bucket %s: %d in the list, %d in the counts", b.Name, b.Count, info.Histogram.Counts[b.Name])
		}
	}
	if scored+info.Histogram.MateFor+info.Histogram.MateAgainst == 0 {
		t.Error("the histogram counted no scores")
	}
}

func TestExportWritesOneSplitToAFileOnlyWhenComplete(t *testing.T) {
	ctx := context.Background()
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "ds")
	writeDataset(t, dir, WriteOptions{}, sampleRecords(400, 10))
	d, _ := Open(dir)
	if _, err := Export(ctx, d, ExportOptions{Format: ExportCSV, Split: Test, Output: filepath.Join(tmp, "x.csv")}); err == nil || !strings.Contains(err.Error(), "is not split") {
		t.Errorf("export of an unsplit dataset's test split: %v", err)
	}
	m, err := WriteSplitContext(ctx, dir, 0.2, 0.2, 1)
	if err != nil {
		t.Fatal(err)
	}
	d, _ = Open(dir)
	out := filepath.Join(tmp, "test.csv")
	var lastDone, lastTotal int64 = -1, -1
	n, err := Export(ctx, d, ExportOptions{Format: ExportCSV, Split: Test, Output: out,
		Progress: func(done, total int64) { lastDone, lastTotal = done, total }})
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(mustOpen(t, out)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if n != m.Split.Records.Test || n == 0 || int64(len(rows)) != n+1 || strings.Join(rows[0], ",") != strings.Join(CSVHeader, ",") {
		t.Errorf("exported %d records in %d rows, want the %d of the test split and a header", n, len(rows), m.Split.Records.Test)
	}
	if lastTotal != n || lastDone != 0 {
		t.Errorf("progress heard %d of %d, want the start (0) of %d (fewer than 4096 records)", lastDone, lastTotal, n)
	}
	if st, _ := os.Stat(out); st.Mode().Perm() != 0o644 {
		t.Errorf("export file mode %v, want 0644", st.Mode().Perm())
	}
	if _, err := Export(ctx, d, ExportOptions{Format: ExportCSV, Output: out}); !errors.Is(err, safefile.ErrExists) {
		t.Errorf("export over an existing file without Force: %v", err)
	}

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	again := filepath.Join(tmp, "again.jsonl")
	if _, err := Export(cancelled, d, ExportOptions{Format: ExportJSONL, Output: again}); err == nil || !strings.Contains(err.Error(), "nothing was written") {
		t.Errorf("interrupted export: %v", err)
	}
	if entries, _ := filepath.Glob(filepath.Join(tmp, "*again*")); len(entries) != 0 {
		t.Errorf("an interrupted export left %v", entries)
	}
}

func TestExportJSONLToStdoutHasEverySplit(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ds")
	recs := sampleRecords(100, 10)
	writeDataset(t, dir, WriteOptions{}, recs)
	d, _ := Open(dir)
	var buf bytes.Buffer
	n, err := Export(context.Background(), d, ExportOptions{Format: ExportJSONL, Split: AllSplits, Output: "-", Stdout: &buf})
	if err != nil || n != int64(len(recs)) {
		t.Fatalf("exported %d of %d records: %v", n, len(recs), err)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	var first RecordJSON
	if err := json.Unmarshal([]byte(lines[0]), &first); err != nil || len(lines) != len(recs) || first.FEN != recs[0].FEN || first.Split != "train" {
		t.Errorf("%d lines, first %+v (%v)", len(lines), first, err)
	}
}

// A score is cp or mate, never both and never a 0 that stands for a
// mate: in the jsonl label and its MultiPV lines a mate's cp is null and a
// centipawn score's mate null, a failed label has neither; the csv leaves
// the cell of the other empty.
func TestExportWritesAMateOneWay(t *testing.T) {
	const fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
	for _, c := range []struct {
		label     Label
		json      string
		multipv   string
		cp, mate  string
		csvLabels bool
	}{
		{Label{Status: LabelOK, CP: 31, MultiPV: []PVLine{{CP: 0}, {Mate: -2}}},
			`"cp":31,"mate":null`, `[{"cp":0,"mate":null,"pv":[]},{"cp":null,"mate":-2,"pv":[]}]`, "31", "", true},
		{Label{Status: LabelOK, Mate: 3, CP: 0}, `"cp":null,"mate":3`, `[]`, "", "3", true},
		{Label{Status: LabelFailed, Error: "no answer"}, `"cp":null,"mate":null`, `[]`, "", "", false},
	} {
		r := &Record{FEN: fen, Label: &c.label}
		line, err := json.Marshal(RecordToJSON(r, Train))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(line, []byte(`"label":{"status":"`)) || !bytes.Contains(line, []byte(c.json)) ||
			!bytes.Contains(line, []byte(`"multipv":`+c.multipv)) {
			t.Errorf("%+v exported as %s, want %s and multipv %s", c.label, line, c.json, c.multipv)
		}
		row := CSVRow(r)
		if row[4] != c.cp || row[5] != c.mate || (row[6] != "") != c.csvLabels {
			t.Errorf("%+v exported to csv as cp %q, mate %q, win_prob %q", c.label, row[4], row[5], row[6])
		}
	}
}

func TestVerifyNamesTheDamagedShard(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ds")
	writeDataset(t, dir, WriteOptions{Shard: 100}, sampleRecords(300, 10))
	d, _ := Open(dir)
	shards := 0
	r, err := Verify(context.Background(), d, func(done, total int64) { shards = int(done) })
	if err != nil || !r.OK || r.Err() != nil || r.Records != 300 || r.Shards != 3 || shards != 3 {
		t.Fatalf("verify of a sound dataset: %+v, %v, progress %d", r, err, shards)
	}
	shard := filepath.Join(dir, d.Manifest().Shards[1].File)
	data, _ := os.ReadFile(shard)
	data[len(data)/2] ^= 0x04
	if err := os.WriteFile(shard, data, 0o644); err != nil {
		t.Fatal(err)
	}
	r, err = Verify(context.Background(), d, nil)
	if err != nil || r.OK || len(r.Damaged) != 1 || r.Damaged[0].File != shard {
		t.Fatalf("verify of a damaged dataset: %+v, %v", r, err)
	}
	if e := r.Err(); e == nil || !strings.Contains(e.Error(), "1 of 3 shards damaged: "+shard) {
		t.Errorf("damage reported as %v", e)
	}
}

func mustOpen(t *testing.T, path string) *os.File {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

const killedExportEnv = "DCHESS_DATASET_KILLED_EXPORT"

// TestKilledExportHelper is the child of TestRerunClearsAKilledExportsTemp:
// it exports the dataset PARENT/ds to PARENT/out.csv and waits to be killed
// once the export has started writing.
func TestKilledExportHelper(t *testing.T) {
	parent := os.Getenv(killedExportEnv)
	if parent == "" {
		t.Skip("helper process only")
	}
	d, err := Open(filepath.Join(parent, "ds"))
	if err != nil {
		t.Fatal(err)
	}
	Export(context.Background(), d, ExportOptions{Format: ExportCSV, Output: filepath.Join(parent, "out.csv"),
		Progress: func(int64, int64) { sayReadyAndSleep() }})
}

// The reported bug: after kill -9 an export's temporary file (76 MB) stayed
// beside the output for good, since later exports did not remove it.
func TestRerunClearsAKilledExportsTemp(t *testing.T) {
	if !safefile.LocksWork {
		t.Skip("no file locks here")
	}
	ctx := context.Background()
	parent := t.TempDir()
	dir, out := filepath.Join(parent, "ds"), filepath.Join(parent, "out.csv")
	writeDataset(t, dir, WriteOptions{}, sampleRecords(50, 10))
	d, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	child := startHelper(t, "TestKilledExportHelper", killedExportEnv, parent)
	temps := func() []string {
		names, _ := filepath.Glob(safefile.TempPrefix(out) + "*")
		return names
	}
	running := temps()
	if len(running) != 1 {
		t.Fatalf("the running export's temporaries: %v", running)
	}
	// A running export's temporary is left alone by a second export of
	// the same file, which writes its own.
	if n, err := Export(ctx, d, ExportOptions{Format: ExportCSV, Output: out}); err != nil || n != 50 {
		t.Fatalf("an export while another writes the same file exported %d records: %v", n, err)
	}
	if got := temps(); len(got) != 1 || got[0] != running[0] {
		t.Fatalf("while the first export runs, the temporaries are %v, want %v", got, running)
	}
	kill(t, child)
	if n, err := Export(ctx, d, ExportOptions{Format: ExportCSV, Output: out, Force: true}); err != nil || n != 50 {
		t.Fatalf("the rerun exported %d records: %v", n, err)
	}
	entries, _ := os.ReadDir(parent)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if strings.Join(names, " ") != "ds out.csv" {
		t.Fatalf("after the killed export's rerun the folder holds %v", names)
	}
}
