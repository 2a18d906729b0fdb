package pipeline

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestRunSummary: the stages that ran are counted apart from those done
// before, only theirs timed; the ratings lead when the tournament is done.
func TestRunSummary(t *testing.T) {
	cfg := &RunConfig{Out: t.TempDir()}
	stages := []StageResult{{Name: "selfplay", Skipped: true, Seconds: 99}, {Name: "ingest", Seconds: 1.5}, {Name: "label", Seconds: 3}}
	report := filepath.Join(cfg.Out, "report", "report.md")
	sum := Summarize(cfg, stages)
	if want := "2 stages run in 4s, 1 done before; report: " + report + "\n"; sum.Text() != want {
		t.Errorf("without a tournament: %q, want %q", sum.Text(), want)
	}
	js, err := json.Marshal(sum)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"report":` + quote(report) + `,"stages":[{"name":"selfplay","output":"","skipped":true,"seconds":99},` +
		`{"name":"ingest","output":"","skipped":false,"seconds":1.5},{"name":"label","output":"","skipped":false,"seconds":3}]}`; string(js) != want {
		t.Errorf("JSON %s\nwant %s", js, want)
	}
	standings := `{"players":[{"rank":1,"name":"cnn","elo":0,"elo_error":0},{"rank":2,"name":"random","elo":-412.4,"elo_error":151}]}`
	if err := os.WriteFile(filepath.Join(cfg.Out, RunTournament), []byte(standings), 0o644); err != nil {
		t.Fatal(err)
	}
	want := "Rank Player                        Elo      +/-\n" +
		"1    cnn                             0        0\n" +
		"2    random                       -412      151\n" +
		"2 stages run in 4s, 1 done before; report: " + report + "\n"
	if got := Summarize(cfg, stages).Text(); got != want {
		t.Errorf("with a tournament:\n%s\nwant\n%s", got, want)
	}
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
