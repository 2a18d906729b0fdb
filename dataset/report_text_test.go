package dataset

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestCheckSplitFractions(t *testing.T) {
	for _, c := range []struct {
		val, test float64
		want      string
	}{
		{0.05, 0.05, ""}, {0, 1, ""},
		{-0.1, 0, "--val -0.1 must be a fraction between 0 and 1"},
		{0, 1.5, "--test 1.5 must be a fraction between 0 and 1"},
		{0.6, 0.5, "--val 0.6 plus --test 0.5 is more than 1"},
	} {
		err := CheckSplitFractions(c.val, c.test)
		if (err == nil) != (c.want == "") || (err != nil && err.Error() != c.want) {
			t.Errorf("(%v, %v): %v, want %q", c.val, c.test, err, c.want)
		}
	}
}

func TestSplitReport(t *testing.T) {
	sp := &SplitInfo{Seed: 3, Val: 0.1, Test: 0.2, Records: SplitCounts{Train: 7000, Val: 1000, Test: 2000}, Games: SplitCounts{Train: 70, Val: 10, Test: 20}}
	rep := sp.Report("data/x")
	want := "split data/x by game with seed 3\n" +
		"  train         7,000 records         70 games\n" +
		"  val           1,000 records         10 games\n" +
		"  test          2,000 records         20 games\n"
	if got := rep.Text(); got != want {
		t.Errorf("text\n%s\nwant\n%s", got, want)
	}
	js, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"dataset":"data/x","seed":3,"split_games":{"test":20,"train":70,"val":10},"splits":{"test":2000,"train":7000,"val":1000},"test":0.2,"val":0.1}`; string(js) != want {
		t.Errorf("JSON %s\nwant %s", js, want)
	}
}

func TestExportNotes(t *testing.T) {
	st := &ExportStats{Unlabelled: 3, UnknownResult: 2, Invalid: 1, FirstInvalid: "ply 20000 is past binpack's 16383"}
	got := st.Notes(ExportOptions{Format: ExportBinpack, Output: "a.binpack"}, 1234)
	want := []string{"exported 1,234 records to a.binpack", "left out: 3 without a label, 1 the format cannot hold",
		"first record the format cannot hold: ply 20000 is past binpack's 16383",
		"2 records have no game result and were written as draws (--skip-unknown-result leaves them out)"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("notes %q\nwant %q", got, want)
	}
	// To standard output, in a format that has unknown results, nothing to say.
	if got := (&ExportStats{UnknownResult: 2}).Notes(ExportOptions{Format: ExportCSV, Output: "-"}, 5); len(got) != 0 {
		t.Errorf("csv to stdout: %q", got)
	}
}

func TestVerifyAndMergeText(t *testing.T) {
	ok := VerifyReport{Dataset: "d", Shards: 2, Records: 1500, OK: true}
	if got, want := ok.Text(), "ok: 2 shards, 1,500 records verified in d\n"; got != want {
		t.Errorf("sound: %q, want %q", got, want)
	}
	bad := VerifyReport{Dataset: "d", Shards: 2, Damaged: []ShardDamage{{File: "d/s0", Error: "d/s0: checksum"}}, Problems: []string{"counts differ"}}
	if got, want := bad.Text(), "DAMAGED d/s0: checksum\nPROBLEM counts differ\n"; got != want {
		t.Errorf("damaged: %q, want %q", got, want)
	}
	m := MergeSummary{Output: "all", Input: "games", Shards: 4, Records: 12000, Labelled: 11990, Failed: 10, Seconds: 1.25}
	if got := m.Text("lab"); !strings.HasPrefix(got, "merged 4 shards of lab into all: 12,000 records (11,990 labelled, 10 failed) in the order of games; 1.2 s") {
		t.Errorf("merge: %q", got)
	}
}
