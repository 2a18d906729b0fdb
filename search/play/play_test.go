package play

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/dchess/dchess/internal/chess/board"
	"github.com/dchess/dchess/search/match"
	"github.com/dchess/dchess/search/player"
)

// scripted answers each position with the reply listed for the moves that
// led to it (UCI, space-separated), so undoing and replaying meets the same
// replies.
type scripted struct {
	replies  map[string]string
	limits   []player.Limits
	seed     uint64
	newGames int
	err      error // returned by Move instead of a reply
}

func (s *scripted) Name() string { return "scripted" }

func (s *scripted) NewGame(context.Context) error { s.newGames++; return nil }

func (s *scripted) SeedGame(seed uint64) { s.seed = seed }

func (s *scripted) Move(_ context.Context, pos player.Position, lim player.Limits) (player.MoveInfo, error) {
	s.limits = append(s.limits, lim)
	if s.err != nil {
		return player.MoveInfo{}, s.err
	}
	reply, ok := s.replies[strings.Join(pos.Moves, " ")]
	if !ok {
		return player.MoveInfo{}, errors.New("no reply to " + strings.Join(pos.Moves, " "))
	}
	return player.MoveInfo{Move: reply}, nil
}

func (s *scripted) Close() error { return nil }

// run plays opts' game, the opponent answering with replies, on input and
// returns the result and the output.
func run(t *testing.T, opts Options, replies map[string]string, input string) (Result, string) {
	t.Helper()
	if opts.Opponent == nil {
		opts.Opponent = &scripted{replies: replies}
	}
	if opts.Name == "" {
		opts.Name = "Tester"
	}
	g, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	res, err := g.Run(context.Background(), strings.NewReader(input), &out)
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	return res, out.String()
}

func sans(moves []match.PlayedMove) string {
	var s []string
	for _, m := range moves {
		s = append(s, m.SAN)
	}
	return strings.Join(s, " ")
}

func TestMovesInSANAndUCI(t *testing.T) {
	replies := map[string]string{
		"e2e4":                               "e7e5",
		"e2e4 e7e5 g1f3":                     "b8c6",
		"e2e4 e7e5 g1f3 b8c6 f1c4":           "g8f6",
		"e2e4 e7e5 g1f3 b8c6 f1c4 g8f6 e1g1": "f8c5",
	}
	// SAN, UCI in capitals, SAN with an annotation, castling with zeros.
	res, out := run(t, Options{Human: board.White}, replies, "e4\nG1F3\nBc4!?\n0-0\nquit\n")
	if got := sans(res.Moves); got != "e4 e5 Nf3 Nc6 Bc4 Nf6 O-O Bc5" {
		t.Errorf("moves %q", got)
	}
	if res.Finished() || res.Outcome != "*" || res.Termination != "" {
		t.Errorf("a quit game: %+v", res)
	}
	for _, want := range []string{"scripted plays Nc6\n", "Last move: Bc5\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestParseMove(t *testing.T) {
	const fen = "r3k2r/1P6/8/8/8/8/8/R3K2R w KQkq - 0 1"
	for _, tc := range []struct{ text, uci string }{
		{"b8=Q", "b7b8q"}, {"bxa8=N+", "b7a8n"}, {"b7b8r", "b7b8r"}, {"B7A8Q", "b7a8q"},
		{"O-O-O", "e1c1"}, {"0-0", "e1g1"}, {"Rxa8+!", "a1a8"}, {"Kd1?!", "e1d1"},
		{"b8", ""}, {"Ke3", ""}, {"e2e4", ""}, {"castle", ""},
	} {
		b, _ := board.FromFEN(fen)
		s := &runState{b: b}
		m, ok := s.parse(tc.text)
		if got := map[bool]string{true: board.UCI(m)}[ok]; got != tc.uci {
			t.Errorf("%q reads as %q, want %q", tc.text, got, tc.uci)
		}
	}
}

func TestIllegalMoveIsAnsweredWithTheLegalMoves(t *testing.T) {
	_, out := run(t, Options{Human: board.White, Width: 60}, nil, "Ke4\nmoves\nquit\n")
	const legal = "a3 b3 c3 d3 e3 f3 g3 h3 a4 b4 c4 d4 e4 f4 g4 h4 Na3 Nc3 Nf3 Nh3"
	for _, want := range []string{
		wrapMoves(`"Ke4" is not a legal move here. Legal moves: `, strings.Fields(legal), 60),
		"Your move (white): Legal moves: a3 b3 c3 d3 e3 f3 g3 h3 a4 b4 c4 d4 e4 f4 g4 h4\n  Na3 Nc3 Nf3 Nh3\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestUndo(t *testing.T) {
	replies := map[string]string{"e2e4": "e7e5", "d2d4": "d7d5"}
	res, out := run(t, Options{Human: board.White}, replies, "undo\ne4\nundo\nd4\nquit\n")
	if got := sans(res.Moves); got != "d4 d5" {
		t.Errorf("moves %q", got)
	}
	if !strings.Contains(out, "Your move (white): Nothing to take back.\n") ||
		!strings.Contains(out, "Your move (white): Took back 2 plies.\n\n  Black (lower case): scripted\n8 r n b q k b n r \n7 p p p p p p p p \n") {
		t.Errorf("output:\n%s", out)
	}

	// Playing Black, the opponent's first move is not the human's to take back.
	replies = map[string]string{"": "e2e4", "e2e4 e7e5": "g1f3"}
	res, out = run(t, Options{Human: board.Black}, replies, "undo\ne5\nundo\nundo\nquit\n")
	if got := sans(res.Moves); got != "e4" {
		t.Errorf("playing Black, moves %q", got)
	}
	if strings.Count(out, "Nothing to take back.") != 2 || strings.Count(out, "Took back 2 plies.") != 1 ||
		strings.Count(out, "scripted is thinking...") != 2 {
		t.Errorf("playing Black, output:\n%s", out)
	}
}

func TestResign(t *testing.T) {
	res, out := run(t, Options{Human: board.Black}, map[string]string{"": "d2d4"}, "resign\n")
	if !res.Finished() || res.Outcome != "1-0" || res.Termination != match.TermResignation || res.Reason != "Black resigns" {
		t.Errorf("result %+v", res)
	}
	if !strings.HasSuffix(out, "Last move: d4\n1-0: Black resigns\n") {
		t.Errorf("output:\n%s", out)
	}
	if res.White != "scripted" || res.Black != "Tester" {
		t.Errorf("White %q, Black %q", res.White, res.Black)
	}
}

func TestQuitAndEndOfInputLeaveTheGameUnfinished(t *testing.T) {
	for _, input := range []string{"quit\n", "EXIT\n", "", "\n\n", "e4"} {
		res, out := run(t, Options{Human: board.White}, map[string]string{"e2e4": "c7c5"}, input)
		if res.Finished() || res.Outcome != "*" || res.Reason != "" {
			t.Errorf("%q: result %+v", input, res)
		}
		// The input's end is a newline after the prompt, so a shell's
		// prompt starts on a line of its own.
		if ended := !strings.Contains(input, "quit") && !strings.Contains(input, "EXIT"); ended != strings.HasSuffix(out, "Your move (white): \n") {
			t.Errorf("%q: output ends %q", input, out[max(0, len(out)-40):])
		}
	}
}

func TestCheckmateFromFEN(t *testing.T) {
	opp := &scripted{replies: map[string]string{"": "a7a6"}}
	limits := player.Limits{Depth: 3, MoveTime: time.Second}
	res, out := run(t, Options{Opponent: opp, Human: board.White, FEN: "6k1/p4ppp/8/8/8/8/5PPP/1R4K1 b - - 0 1",
		Limits: limits, Seed: 7}, nil, "Rb8#\n")
	want := `You play white against scripted. Type a move (e4, Nf3, g1f3), moves, undo, resign or quit.
scripted is thinking...
scripted plays a6

  Black (lower case): scripted
8 · · · · · · k · 
7 · · · · · p p p 
6 p · · · · · · · 
5 · · · · · · · · 
4 · · · · · · · · 
3 · · · · · · · · 
2 · · · · · P P P 
1 · R · · · · K · 
  a b c d e f g h
  White (capitals): Tester
Last move: a6
Your move (white): 
  Black (lower case): scripted
8 · R · · · · k · 
7 · · · · · p p p 
6 p · · · · · · · 
5 · · · · · · · · 
4 · · · · · · · · 
3 · · · · · · · · 
2 · · · · · P P P 
1 · · · · · · K · 
  a b c d e f g h
  White (capitals): Tester
Last move: Rb8#
Check!
1-0: White mates
`
	if out != want {
		t.Errorf("output:\n%s\nwant:\n%s", out, want)
	}
	if res.Outcome != "1-0" || res.Termination != match.TermCheckmate || sans(res.Moves) != "a6 Rb8#" {
		t.Errorf("result %+v", res)
	}
	if opp.newGames != 1 || opp.seed != 7 || len(opp.limits) != 1 || opp.limits[0].Depth != 3 || opp.limits[0].MoveTime != time.Second {
		t.Errorf("the opponent saw %d new games, seed %d, limits %v", opp.newGames, opp.seed, opp.limits)
	}

	// A second Run plays the game again from its start.
	g, err := New(Options{Opponent: opp, Human: board.White, FEN: "6k1/p4ppp/8/8/8/8/5PPP/1R4K1 b - - 0 1", Name: "Tester"})
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		var again bytes.Buffer
		if res, err := g.Run(context.Background(), strings.NewReader("Rb8#\n"), &again); err != nil || again.String() != want || sans(res.Moves) != "a6 Rb8#" {
			t.Errorf("another Run: %v, moves %q, output:\n%s", err, sans(res.Moves), again.String())
		}
	}
	if opp.newGames != 3 {
		t.Errorf("the opponent saw %d new games in 3 Runs", opp.newGames)
	}
}

func TestOpponentMates(t *testing.T) {
	replies := map[string]string{"f2f3": "e7e5", "f2f3 e7e5 g2g4": "d8h4"}
	res, out := run(t, Options{Human: board.White}, replies, "f3\ng4\n")
	if res.Outcome != "0-1" || res.Reason != "Black mates" || !strings.HasSuffix(out, "Last move: Qh4#\nCheck!\n0-1: Black mates\n") {
		t.Errorf("result %+v, output:\n%s", res, out)
	}
	fg := res.FinishedGame()
	if fg.Result != "0-1" || fg.Termination != match.TermCheckmate || fg.Position.StartFEN != board.StartFEN ||
		strings.Join(fg.Position.Moves, " ") != "f2f3 e7e5 g2g4 d8h4" {
		t.Errorf("finished game %+v", fg)
	}
}

func TestOpponentFailures(t *testing.T) {
	for _, tc := range []struct {
		opp  *scripted
		want string
	}{
		{&scripted{err: errors.New("engine crashed")}, "scripted failed: engine crashed"},
		{&scripted{replies: map[string]string{"": "e2e5"}}, "scripted played an illegal move: e2e5"},
	} {
		g, err := New(Options{Opponent: tc.opp, Human: board.Black})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := g.Run(context.Background(), strings.NewReader("e5\n"), &bytes.Buffer{}); err == nil || err.Error() != tc.want {
			t.Errorf("got %v, want %s", err, tc.want)
		}
	}
}

func TestNewChecksOptions(t *testing.T) {
	opp := &scripted{}
	for _, tc := range []struct {
		opts Options
		want string
	}{
		{Options{Human: board.White}, "no opponent"},
		{Options{Opponent: opp, Human: 2}, "neither White nor Black"},
		{Options{Opponent: opp, Pieces: 5}, "unknown Pieces"},
		{Options{Opponent: opp, FEN: "not a fen"}, ""},
		{Options{Opponent: opp, FEN: "7k/6Q1/6K1/8/8/8/8/8 b - - 0 1"}, "the game is already over (checkmate)"},
	} {
		if _, err := New(tc.opts); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: got %v, want an error with %q", tc.opts, err, tc.want)
		}
	}
	if b, err := ParseStart(""); err != nil || b.FEN() != board.StartFEN {
		t.Errorf(`ParseStart(""): %v, %v`, b, err)
	}
}
