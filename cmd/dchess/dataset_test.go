package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/dchess/dchess/dataset/datasettest"
	"github.com/dchess/dchess/dataset/ingest"
	"github.com/dchess/dchess/internal/chess/pgn"

	"github.com/dchess/dchess/dataset"
)

func testDatasetStreams() (*IOStreams, *bytes.Buffer, *bytes.Buffer) {
	out, errOut := &bytes.Buffer{}, &bytes.Buffer{}
	return &IOStreams{In: strings.NewReader(""), Out: out, ErrOut: errOut}, out, errOut
}

// makeTestDataset writes 200 records of 20 games: every other record is
// labelled (cp, a mate, or a failure) so every output column has data.
func makeTestDataset(t *testing.T) (string, []*dataset.Record) {
	t.Helper()
	var recs []*dataset.Record
	for i := 0; i < 200; i++ {
		r := &dataset.Record{
			FEN:    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
			Move:   "e2e4",
			Next:   []string{"e7e5", "g1f3"},
			Result: pgn.WhiteWin,
			Ply:    uint16(i % 10),
			GameID: uint64(i/10) + 1000,
		}
		// A black pawn somewhere on the third rank: valid, varied positions.
		r.FEN = strings.Replace(r.FEN, "/8/PPPP", "/"+strings.TrimPrefix(fmt.Sprintf("%dp%d/PPPP", i%8, 7-i%8), "0"), 1)
		r.FEN = strings.Replace(r.FEN, "p0/", "p/", 1)
		r.Key = dataset.PositionKey(r.FEN) + uint64(i)
		switch i % 6 {
		case 0:
			r.Label = &dataset.Label{Status: dataset.LabelOK, CP: int32(i*10 - 1000), BestMove: "g1f3",
				PV: []string{"g1f3", "g8f6"}, Depth: 8, Nodes: 5000, Engine: "Stockfish 15.1",
				MultiPV: []dataset.PVLine{{CP: 12, PV: []string{"b1c3"}}}}
			r.Label.WinProb = dataset.WinProbability(r.Label.CP, 0)
		case 2:
			r.Label = &dataset.Label{Status: dataset.LabelOK, Mate: 3, WinProb: 1, BestMove: "g1h3", PV: []string{"g1h3"}, Engine: "Stockfish 15.1"}
		case 4:
			r.Label = &dataset.Label{Status: dataset.LabelFailed, Error: "no answer"}
		}
		recs = append(recs, r)
	}
	dir := filepath.Join(t.TempDir(), "ds")
	return datasettest.Write(t, dir, dataset.WriteOptions{
		Command: []string{"dchess", "ingest", "games.pgn", "-o", dir},
		Sources: []dataset.Source{{Path: "games.pgn", SHA256: strings.Repeat("ab", 32), Bytes: 4096}},
		Shard:   50,
	}, recs), recs
}

func TestDatasetInfoJSON(t *testing.T) {
	dir, _ := makeTestDataset(t)
	s, out, _ := testDatasetStreams()
	if err := runDatasetInfo(context.Background(), &datasetInfoOptions{Dir: dir, JSON: true}, s); err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("info --json is not one JSON object: %v\n%s", err, out)
	}
	want := map[string]float64{"records": 200, "games": 20, "labelled": 67, "failed": 33}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %v, want %v", k, got[k], v)
		}
	}
	splits, _ := got["splits"].(map[string]any)
	if splits["train"] != 200.0 || splits["val"] != 0.0 || splits["test"] != 0.0 {
		t.Errorf("splits of an unsplit dataset: %v", got["splits"])
	}
	hist, _ := got["histogram"].(map[string]any)
	counts, _ := hist["counts"].(map[string]any)
	var total float64
	for _, c := range counts {
		total += c.(float64)
	}
	if counts["mate_for"] != 33.0 || total != 67 {
		t.Errorf("histogram %v: want 33 mates and 67 labelled in all", hist)
	}
}

func TestDatasetInfoText(t *testing.T) {
	dir, _ := makeTestDataset(t)
	s, out, _ := testDatasetStreams()
	if err := runDatasetInfo(context.Background(), &datasetInfoOptions{Dir: dir}, s); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"200 from 20 games", "labelled   67 (33.5%), failed 33", "splits     none",
		"mates", "games.pgn (4.0 KiB, sha256 abababababababab)", "made by    dchess ingest games.pgn", "4 files"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("info output lacks %q:\n%s", want, out)
		}
	}
}

// TestDatasetInfoCountQuiet: every labelled record of the test dataset is
// quiet (its best moves g1f3 and g1h3 take nothing, nothing is in check);
// without --count-quiet no record is read and no line printed.
func TestDatasetInfoCountQuiet(t *testing.T) {
	dir, _ := makeTestDataset(t)
	s, out, _ := testDatasetStreams()
	if err := runDatasetInfo(context.Background(), &datasetInfoOptions{Dir: dir, CountQuiet: true}, s); err != nil {
		t.Fatal(err)
	}
	if want := "quiet      67 (100.0% of the labelled; train 67, val 0, test 0)"; !strings.Contains(out.String(), want) {
		t.Errorf("info --count-quiet lacks %q:\n%s", want, out)
	}
	s, out, _ = testDatasetStreams()
	if err := runDatasetInfo(context.Background(), &datasetInfoOptions{Dir: dir, JSON: true}, s); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), `"quiet"`) {
		t.Errorf("info without --count-quiet counted quiet positions:\n%s", out)
	}
}

// The reported bug: dataset info showed 3,493,790 duplicates dropped where
// ingest had reported 36,030,757; here ingest's 2 repeats showed as none.
func TestDatasetInfoCountsTheDuplicatesIngestReported(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "games")
	s, out, _ := ingestStreams(ingestTestGames)
	if err := runIngest(context.Background(), &ingestOptions{Inputs: []string{"-"}, Out: dir, JSON: true, Options: ingest.Options{Format: "pgn", Horizon: 4}}, s); err != nil {
		t.Fatal(err)
	}
	var ingested struct {
		Duplicates int64 `json:"duplicates_dropped"`
	}
	if err := json.Unmarshal(out.Bytes(), &ingested); err != nil || ingested.Duplicates != 2 {
		t.Fatalf("ingest reported %d duplicates (%v), want the 2 repeats of its games", ingested.Duplicates, err)
	}
	s, out, _ = testDatasetStreams()
	if err := runDatasetInfo(context.Background(), &datasetInfoOptions{Dir: dir, JSON: true}, s); err != nil {
		t.Fatal(err)
	}
	var info dataset.Info
	if err := json.Unmarshal(out.Bytes(), &info); err != nil || info.Duplicates != ingested.Duplicates {
		t.Errorf("info counts %d duplicates dropped (%v), ingest reported %d", info.Duplicates, err, ingested.Duplicates)
	}
}

// The reported bug: info printed impossible manifest counts ("records -5")
// as if they were true. info now refuses them and verify names them.
func TestDatasetInfoAndVerifyRefuseImpossibleCounts(t *testing.T) {
	dir, _ := makeTestDataset(t)
	path := filepath.Join(dir, dataset.ManifestFile)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	m["counts"].(map[string]any)["records"] = -5
	if data, err = json.Marshal(m); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	const want = "damaged manifest.json: counts.records is -5: a count cannot be negative"
	for _, asJSON := range []bool{false, true} {
		s, out, _ := testDatasetStreams()
		err := runDatasetInfo(context.Background(), &datasetInfoOptions{Dir: dir, JSON: asJSON}, s)
		if err == nil || !strings.Contains(err.Error(), want) || out.Len() != 0 {
			t.Errorf("info (json %v) of a manifest counting -5 records: %v, printed %q", asJSON, err, out)
		}
	}
	s, out, _ := testDatasetStreams()
	err = runDatasetVerify(context.Background(), &datasetVerifyOptions{Dir: dir}, s)
	if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(out.String(), "PROBLEM dataset "+dir+": "+want) {
		t.Errorf("verify of a manifest counting -5 records: %v, printed %q", err, out)
	}
}

func TestDatasetSplitThenInfo(t *testing.T) {
	dir, _ := makeTestDataset(t)
	s, out, _ := testDatasetStreams()
	if err := runDatasetSplit(context.Background(), &datasetSplitOptions{Dir: dir, Val: 0.25, Test: 0.25, Seed: 9, JSON: true}, s); err != nil {
		t.Fatal(err)
	}
	var split struct {
		Splits     map[string]int64 `json:"splits"`
		SplitGames map[string]int64 `json:"split_games"`
	}
	if err := json.Unmarshal(out.Bytes(), &split); err != nil {
		t.Fatal(err)
	}
	if split.Splits["train"]+split.Splits["val"]+split.Splits["test"] != 200 ||
		split.SplitGames["train"]+split.SplitGames["val"]+split.SplitGames["test"] != 20 ||
		split.Splits["val"] != 10*split.SplitGames["val"] {
		t.Errorf("split counts %+v", split)
	}
	s, out, _ = testDatasetStreams()
	if err := runDatasetInfo(context.Background(), &datasetInfoOptions{Dir: dir, JSON: true}, s); err != nil {
		t.Fatal(err)
	}
	var info dataset.Info
	json.Unmarshal(out.Bytes(), &info)
	if !reflect.DeepEqual(info.Splits, split.Splits) || info.Split == nil || info.Split.Seed != 9 {
		t.Errorf("info after split shows %v (seed %v), split printed %v", info.Splits, info.Split, split.Splits)
	}

	for _, bad := range []datasetSplitOptions{{Val: -0.1}, {Test: 1.5}, {Val: 0.6, Test: 0.6}} {
		bad.Dir = dir
		err := runDatasetSplit(context.Background(), &bad, s)
		var usage *usageError
		if !errors.As(err, &usage) {
			t.Errorf("split %+v: %v, want a usage error", bad, err)
		}
	}
}

func TestDatasetExportJSONL(t *testing.T) {
	dir, recs := makeTestDataset(t)
	s, out, _ := testDatasetStreams()
	if err := runDatasetExport(context.Background(), &datasetExportOptions{Dir: dir, SplitName: "all", ExportOptions: dataset.ExportOptions{Format: "jsonl", Output: "-"}}, s); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != len(recs) {
		t.Fatalf("%d lines for %d records", len(lines), len(recs))
	}
	for i, line := range lines {
		var got dataset.RecordJSON
		if err := json.Unmarshal([]byte(line), &got); err != nil {
			t.Fatalf("line %d: %v", i, err)
		}
		r := recs[i]
		want := dataset.RecordToJSON(r, dataset.Train)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("line %d:\n got %+v\nwant %+v", i, got, want)
		}
		if got.FEN != r.FEN || got.Key != fmt.Sprintf("%016x", r.Key) || got.Result != "1-0" || (r.Label == nil) != (got.Label == nil) {
			t.Fatalf("line %d lost a field: %s", i, line)
		}
	}
	// Spot-check the label fields by name, as a consumer reads them.
	var first map[string]any
	json.Unmarshal([]byte(lines[0]), &first)
	label := first["label"].(map[string]any)
	for _, k := range []string{"status", "cp", "mate", "win_prob", "best_move", "pv", "depth", "nodes", "engine", "multipv"} {
		if _, ok := label[k]; !ok {
			t.Errorf("label lacks %q: %s", k, lines[0])
		}
	}
	if label["status"] != "ok" || label["cp"] != -1000.0 || label["engine"] != "Stockfish 15.1" {
		t.Errorf("label of record 0: %v", label)
	}
}

func TestDatasetExportCSVToFileBySplit(t *testing.T) {
	dir, recs := makeTestDataset(t)
	if _, err := dataset.WriteSplit(dir, 0.3, 0.3, 5); err != nil {
		t.Fatal(err)
	}
	d, _ := dataset.Open(dir)
	var want [][]string
	for _, r := range recs {
		if d.SplitOf(r.GameID) == dataset.Test {
			want = append(want, dataset.CSVRow(r))
		}
	}
	outFile := filepath.Join(t.TempDir(), "test.csv")
	s, out, _ := testDatasetStreams()
	if err := runDatasetExport(context.Background(), &datasetExportOptions{Dir: dir, SplitName: "test", ExportOptions: dataset.ExportOptions{Format: "csv", Output: outFile}}, s); err != nil {
		t.Fatal(err)
	}
	if out.Len() != 0 {
		t.Errorf("export -o also wrote to stdout: %q", out)
	}
	again := &datasetExportOptions{Dir: dir, SplitName: "test", ExportOptions: dataset.ExportOptions{Format: "csv", Output: outFile}}
	if err := runDatasetExport(context.Background(), again, s); err == nil || !strings.Contains(err.Error(), "--force") {
		t.Errorf("export over an existing file without --force: %v", err)
	}
	again.Force = true
	if err := runDatasetExport(context.Background(), again, s); err != nil {
		t.Errorf("export --force: %v", err)
	}
	f, err := os.Open(outFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(rows[0], []string{"fen", "move", "result", "ply", "cp", "mate", "win_prob", "best_move", "pv", "quiet"}) {
		t.Errorf("header %v", rows[0])
	}
	if len(want) == 0 || !reflect.DeepEqual(rows[1:], want) {
		t.Fatalf("csv has %d rows, want the %d test records", len(rows)-1, len(want))
	}
	// One row of each kind: centipawn, mate, failed (label columns empty).
	byKind := map[string][]string{}
	for _, r := range recs {
		if r.Label == nil {
			continue
		}
		switch {
		case r.Label.Status == dataset.LabelFailed:
			byKind["failed"] = dataset.CSVRow(r)
		case r.Label.Mate != 0:
			byKind["mate"] = dataset.CSVRow(r)
		default:
			byKind["cp"] = dataset.CSVRow(r)
		}
	}
	if row := byKind["mate"]; row[4] != "" || row[5] != "3" || row[6] != "1" || row[7] != "g1h3" {
		t.Errorf("mate row %v", row)
	}
	if row := byKind["cp"]; row[4] == "" || row[5] != "" || row[8] != "g1f3 g8f6" {
		t.Errorf("cp row %v", row)
	}
	if row := byKind["failed"]; strings.Join(row[4:], "") != "" {
		t.Errorf("failed label row has label columns: %v", row)
	}
	entries, _ := os.ReadDir(filepath.Dir(outFile))
	if len(entries) != 1 {
		t.Errorf("export left temporary files: %v", entries)
	}
}

func TestDatasetExportBadFlags(t *testing.T) {
	dir, _ := makeTestDataset(t)
	s, _, _ := testDatasetStreams()
	for _, opts := range []datasetExportOptions{{SplitName: "all", ExportOptions: dataset.ExportOptions{Format: "parquet"}}, {SplitName: "holdout", ExportOptions: dataset.ExportOptions{Format: "csv"}}} {
		opts.Dir = dir
		var usage *usageError
		if err := runDatasetExport(context.Background(), &opts, s); !errors.As(err, &usage) {
			t.Errorf("export %+v: %v, want a usage error", opts, err)
		}
	}
	err := runDatasetExport(context.Background(), &datasetExportOptions{Dir: dir, SplitName: "val", ExportOptions: dataset.ExportOptions{Format: "csv", Output: "-"}}, s)
	if err == nil || !strings.Contains(err.Error(), "not split") {
		t.Errorf("export of val from an unsplit dataset: %v", err)
	}
}

func TestDatasetVerify(t *testing.T) {
	dir, _ := makeTestDataset(t)
	s, out, _ := testDatasetStreams()
	if err := runDatasetVerify(context.Background(), &datasetVerifyOptions{Dir: dir}, s); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "ok: 4 shards, 200 records") {
		t.Errorf("verify output: %s", out)
	}
	shard := filepath.Join(dir, "shard-00002.rec")
	data, _ := os.ReadFile(shard)
	data[len(data)/2] ^= 0x04
	os.WriteFile(shard, data, 0o644)

	s, out, _ = testDatasetStreams()
	err := runDatasetVerify(context.Background(), &datasetVerifyOptions{Dir: dir}, s)
	if err == nil || !strings.Contains(err.Error(), shard) || strings.Contains(err.Error(), "\n") {
		t.Errorf("verify of a damaged dataset: %v (want one line naming %s)", err, shard)
	}
	if !strings.Contains(out.String(), "DAMAGED shard "+shard) || strings.Contains(out.String(), "shard-00001") {
		t.Errorf("verify output: %s", out)
	}

	s, out, _ = testDatasetStreams()
	err = runDatasetVerify(context.Background(), &datasetVerifyOptions{Dir: dir, JSON: true}, s)
	var res struct {
		OK      bool `json:"ok"`
		Damaged []struct {
			File string `json:"file"`
		} `json:"damaged"`
	}
	if jerr := json.Unmarshal(out.Bytes(), &res); jerr != nil || err == nil || res.OK || len(res.Damaged) != 1 || res.Damaged[0].File != shard {
		t.Errorf("verify --json of a damaged dataset: err %v, output %s", err, out)
	}
}

func TestDatasetCommandLine(t *testing.T) {
	dir, _ := makeTestDataset(t)
	run := func(args ...string) (string, error) {
		s, out, _ := testDatasetStreams()
		root := newRootCmd(s)
		root.SetArgs(args)
		err := root.ExecuteContext(context.Background())
		return out.String(), err
	}
	if out, err := run("dataset", "info", dir, "--json"); err != nil || !strings.Contains(out, `"records": 200`) {
		t.Errorf("dataset info --json: %v\n%s", err, out)
	}
	var usage *usageError
	for _, args := range [][]string{{"dataset", "info"}, {"dataset", "verify", dir, dir}, {"dataset"}, {"dataset", "split", dir, "--val", "x"}} {
		if _, err := run(args...); !errors.As(err, &usage) {
			t.Errorf("%v: %v, want a usage error", args, err)
		}
	}
	missing := filepath.Join(t.TempDir(), "nope")
	if _, err := run("dataset", "info", missing); err == nil || !strings.Contains(err.Error(), "no such folder") {
		t.Errorf("info of a missing folder: %v", err)
	}
	if out, err := run("dataset", "export", "--help"); err != nil || !strings.Contains(out, "Example") {
		t.Errorf("export --help: %v\n%s", err, out)
	}
}
