package nnue

import (
	"context"
	"testing"

	"github.com/dchess/dchess/internal/chess/board"
	"github.com/dchess/dchess/search"
)

// The endgame suite (#53): positions that material decides, where the
// shipped network alone, fitted to win probabilities that are all about 1
// there, ranks a pawn on the seventh above a queen and a queen against a
// lone king no higher than a queen up in the opening (docs/nnue.md,
// "Decisive material"). The nnue player must promote, and must win the
// won endings at modest depth against itself. Every test fails with the
// network's score alone.

// searchShipped searches b to depth with a fresh engine over net.
func searchShipped(net *Net, b *board.Board, depth int) search.Result {
	return search.New(NewEvaluator(net), search.Options{HashMB: 4}).Search(context.Background(), b, search.Limits{Depth: depth}, nil)
}

// playOut plays from b with the nnue player on both sides at depth, each
// side with its own engine as in a match, until the game ends or moves
// moves of each side are played; it returns the final position.
func playOut(net *Net, b *board.Board, depth, moves int) *board.Board {
	engines := [2]*search.Engine{
		search.New(NewEvaluator(net), search.Options{HashMB: 4}),
		search.New(NewEvaluator(net), search.Options{HashMB: 4}),
	}
	for range 2 * moves {
		if b.Status() != board.NotOver {
			break
		}
		b.Make(engines[b.SideToMove()].Search(context.Background(), b, search.Limits{Depth: depth}, nil).Best)
	}
	return b
}

// TestShippedPromotes: at every depth from 1 to 8 the player promotes a
// pawn that queens safely, with no other material on the board (the
// issue's position: the network alone played Ka2 at every depth), with
// pawns, and with Black.
func TestShippedPromotes(t *testing.T) {
	net := shippedNet(t)
	for fen, want := range map[string]string{
		"8/P6k/8/8/8/8/8/K7 w - - 0 1":          "a7a8q",
		"k7/8/8/8/8/8/p6K/8 b - - 0 1":          "a2a1q",
		"8/P5k1/8/8/8/8/8/K7 w - - 0 1":         "a7a8q",
		"8/P4pk1/6p1/7p/8/6P1/5PKP/8 w - - 0 1": "a7a8q",
		"8/5pkp/6p1/8/7P/6P1/p4PK1/8 b - - 0 1": "a2a1q",
	} {
		for depth := 1; depth <= 8; depth++ {
			if r := searchShipped(net, mustFEN(t, fen), depth); board.UCI(r.Best) != want {
				t.Errorf("%s at depth %d: %s (%d cp), want %s", fen, depth, board.UCI(r.Best), r.Score, want)
			}
		}
	}
}

// TestShippedRanksQueenAbovePawn: the player's static score after a pawn
// queens safely is above its score after any other move: a queen is worth
// more than a pawn on the seventh.
func TestShippedRanksQueenAbovePawn(t *testing.T) {
	e := NewEvaluator(shippedNet(t))
	for _, fen := range []string{
		"8/P6k/8/8/8/8/8/K7 w - - 0 1",
		"k7/8/8/8/8/8/p6K/8 b - - 0 1",
		"8/P4pk1/6p1/7p/8/6P1/5PKP/8 w - - 0 1",
		"8/5pkp/6p1/8/7P/6P1/p4PK1/8 b - - 0 1",
	} {
		b := mustFEN(t, fen)
		queen, best, bestMove := 0, -search.MateScore, ""
		for _, m := range b.LegalMoves() {
			b.Make(m)
			s := -e.Evaluate(b)
			b.Unmake()
			switch {
			case board.Piece(m.Promote()) == board.Queen:
				queen = s
			case s > best:
				best, bestMove = s, board.UCI(m)
			}
		}
		if queen <= best {
			t.Errorf("%s: %d cp after promoting, %d after %s", fen, queen, best, bestMove)
		}
	}
}

// TestShippedConverts: from each won position (Stockfish's judgement) the
// winner mates within the moves given, at depth 6, against the player
// defending. The endings: king and queen, king and rook, bishop and knight
// against a lone king, king and pawn against king (each side), promotion
// races, and material won converted (a queen against a pawn, a rook and
// pawn, a queen or rook up in a pawn ending, a pawn against a knight that
// the king takes).
func TestShippedConverts(t *testing.T) {
	net := shippedNet(t)
	for _, c := range []struct {
		fen    string
		moves  int
		winner board.Color
	}{
		{"8/8/8/4k3/8/8/8/KQ6 w - - 0 1", 20, board.White},
		{"k7/8/8/8/8/8/8/KQ6 w - - 0 1", 20, board.White},
		{"8/8/8/3k4/8/8/8/R3K3 w - - 0 1", 30, board.White},
		{"8/8/8/8/8/1k6/8/1K5R w - - 0 1", 30, board.White},
		{"kr6/8/8/8/3K4/8/8/8 b - - 0 1", 30, board.Black},
		{"8/8/8/4k3/8/8/8/1NB1K3 w - - 0 1", 50, board.White},
		{"8/8/4k3/8/8/4K3/4P3/8 w - - 0 1", 40, board.White},
		{"8/8/8/4k3/8/4K3/4P3/8 b - - 0 1", 40, board.White},
		{"8/4p3/8/4k3/8/4K3/8/8 w - - 0 1", 40, board.Black}, // Black wins
		{"8/8/8/P7/8/8/1k6/4K3 w - - 0 1", 30, board.White},
		{"8/1P6/8/8/8/6p1/5k2/K7 w - - 0 1", 30, board.White},
		{"8/1P3k2/8/8/8/8/5n2/6K1 w - - 0 1", 30, board.White},
		{"8/8/8/8/2k5/8/3p4/4K1Q1 w - - 0 1", 30, board.White},
		{"8/8/2k5/3p4/8/8/8/3QK3 w - - 0 1", 30, board.White},
		{"8/8/8/4k3/8/8/4PK2/7R w - - 0 1", 40, board.White},
		{"8/P4pk1/6p1/7p/8/6P1/5PKP/8 w - - 0 1", 50, board.White},
		{"Q7/5pk1/6p1/7p/8/6P1/5PKP/8 b - - 0 1", 50, board.White},
		{"8/5pk1/6p1/7p/3R4/6P1/5PKP/8 b - - 0 1", 50, board.White},
	} {
		b := playOut(net, mustFEN(t, c.fen), 6, c.moves)
		if o := b.Status(); o != board.Checkmate || b.SideToMove() == c.winner {
			t.Errorf("%s: %v after %d plies (%s), want %v to mate within %d moves", c.fen, o, b.Ply(), b.FEN(), c.winner, c.moves)
		}
	}
}

// TestShippedHoldsDraws: from drawn king and pawn endings neither side
// loses.
func TestShippedHoldsDraws(t *testing.T) {
	net := shippedNet(t)
	for _, fen := range []string{
		"8/8/8/4k3/8/4K3/4P3/8 w - - 0 1",
		"1k6/8/P7/8/8/8/8/7K w - - 0 1",
	} {
		if b := playOut(net, mustFEN(t, fen), 6, 30); b.Status() == board.Checkmate {
			t.Errorf("%s: checkmate after %d plies (%s)", fen, b.Ply(), b.FEN())
		}
	}
}
