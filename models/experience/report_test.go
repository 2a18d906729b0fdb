package experience

import "testing"

func TestBuildReportText(t *testing.T) {
	r := NewBuildReport("exp.db", ImportSummary{Games: 4, Plies: 100, Seconds: 2, Skipped: 2, NoResult: 1}, []FileSummary{
		{Input: "a.pgn", ImportSummary: ImportSummary{AlreadyIn: true, Copy: 1}},
		{Input: "b.pgn", ImportSummary: ImportSummary{ResumedAt: 2001, Copy: 1}},
		{Input: "c.pgn", ImportSummary: ImportSummary{Copy: 3}},
	})
	want := "a.pgn is in the tree already (same content); nothing added (--again counts its games once more)\n" +
		"b.pgn: an earlier build was interrupted; continued at game 2001, the games before it are in the tree once\n" +
		"c.pgn: imported again as asked; the tree now counts its games 3 times\n" +
		"added 4 games (100 plies) to exp.db in 2.0s (2 games/s); skipped 2 (1 without a result)\n"
	if got := r.Text(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if r.GamesPerSecond != 2 {
		t.Errorf("games per second %v, want 2", r.GamesPerSecond)
	}
}

func TestStatsText(t *testing.T) {
	st := Stats{Path: "exp.db", Games: 3, WhiteWins: 1, BlackWins: 1, Draws: 1, Moves: 10, Positions: 9,
		StartMoves: []MoveStats{{Move: "e4", Games: 2, WhiteWins: 1, Draws: 1, Score: 0.75}}}
	want := "exp.db: 3 games (1-0 1, 0-1 1, 1/2-1/2 1; 0 learnt in play), 10 moves from 9 positions\n" +
		"From the start position:\n" +
		"  move       games     1-0     1/2     0-1   score\n" +
		"  e4             2       1       1       0   75.0%\n"
	if got := st.Text(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	st.StartMoves = nil
	if got := st.Text(); got != "exp.db: 3 games (1-0 1, 0-1 1, 1/2-1/2 1; 0 learnt in play), 10 moves from 9 positions\n" {
		t.Errorf("no start moves: %q", got)
	}
}
