package evaluate

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/dchess/dchess/internal/chess/board"
	"github.com/dchess/dchess/internal/chess/puzzle"
	"github.com/dchess/dchess/search/player"
)

// Puzzle is one Lichess puzzle: Moves[0] is the opponent's move that sets
// it, then the solver's and the opponent's moves alternate.
type Puzzle = puzzle.Puzzle

// puzzleBucketWidth groups puzzles by rating.
const puzzleBucketWidth = 200

// PuzzleBucket is the puzzles rated From..From+199.
type PuzzleBucket struct {
	From    int     `json:"from"`
	Puzzles int     `json:"puzzles"`
	Solved  int     `json:"solved"`
	Rate    float64 `json:"solved_rate"`
}

// To is the bucket's highest rating.
func (b PuzzleBucket) To() int { return b.From + puzzleBucketWidth - 1 }

// PuzzleReport is `eval --puzzles`.
type PuzzleReport struct {
	Player    string         `json:"player"`
	File      string         `json:"file"`
	Puzzles   int            `json:"puzzles"`
	Solved    int            `json:"solved"`
	Rate      float64        `json:"solved_rate"`
	MsPerMove float64        `json:"ms_per_move"`
	Buckets   []PuzzleBucket `json:"buckets"`
	// Skipped are the rows that could not be read, when there were some.
	Skipped *BadLines `json:"skipped_lines,omitempty"`
}

// ReadPuzzles reads the first limit (0: all) puzzles of a Lichess puzzle
// CSV by its header: FEN, Moves and Rating columns (others, such as
// PuzzleId and Themes, are ignored). A row that is not a puzzle (too few
// columns, no rating, fewer than two moves, a bad FEN or a move that is
// not legal) is skipped and counted; with strict it is the error. Errors
// about the file itself are *InputError.
func ReadPuzzles(path string, limit int, strict bool) ([]Puzzle, *BadLines, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, &InputError{fmt.Errorf("--puzzles: %w", err)}
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.FieldsPerRecord = -1
	header, err := r.Read()
	if err != nil {
		return nil, nil, &InputError{fmt.Errorf("--puzzles %s: %w", path, err)}
	}
	cols, err := puzzle.ReadHeader(header)
	if err != nil {
		return nil, nil, &InputError{fmt.Errorf("--puzzles %s: %w", path, err)}
	}
	var out []Puzzle
	bad := &BadLines{}
	for limit == 0 || len(out) < limit {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			if err := bad.Add(strict, pe.StartLine, pe.Err); err != nil {
				return nil, nil, &InputError{fmt.Errorf("--puzzles %s: %w", path, err)}
			}
			continue
		}
		if err != nil {
			return nil, nil, &InputError{fmt.Errorf("--puzzles %s: %w", path, err)}
		}
		line, _ := r.FieldPos(0)
		pz, err := cols.Parse(rec)
		if err != nil {
			if err := bad.Add(strict, line, err); err != nil {
				return nil, nil, &InputError{fmt.Errorf("--puzzles %s: %w", path, err)}
			}
			continue
		}
		out = append(out, pz)
	}
	if len(out) == 0 {
		return nil, nil, &InputError{fmt.Errorf("--puzzles %s holds no puzzle", path)}
	}
	return out, bad.orNil(), nil
}

// solved is what a player made of one puzzle.
type solved struct {
	ok       bool
	thinking time.Duration
	moves    int
}

// solve plays the puzzle numbered i, as a new game: the player must find
// every one of its moves (a mate that ends the line counts too, as on
// Lichess).
func solve(ctx context.Context, p player.Player, i int, pz Puzzle, lim player.Limits) (solved, error) {
	var res solved
	b, err := board.FromFEN(pz.FEN)
	if err != nil {
		return res, err
	}
	if err := newItem(ctx, p, i); err != nil {
		return res, err
	}
	for ply, want := range pz.Moves {
		if ply%2 == 1 {
			began := time.Now()
			mi, err := p.Move(ctx, player.Position{StartFEN: pz.FEN, Moves: pz.Moves[:ply]}, lim)
			res.thinking += time.Since(began)
			res.moves++
			if err != nil {
				return res, err
			}
			if mi.Move != want {
				m, err := b.ParseUCI(mi.Move)
				if err != nil {
					return res, nil
				}
				b.Make(m)
				res.ok = b.Status() == board.Checkmate && ply == len(pz.Moves)-1
				return res, nil
			}
		}
		m, err := b.ParseUCI(want)
		if err != nil {
			return res, fmt.Errorf("puzzle %s: %w", pz.FEN, err)
		}
		b.Make(m)
	}
	res.ok = true
	return res, nil
}

// Puzzles plays a Lichess puzzle CSV and reports the solved share
// overall and by 200-point rating bucket, with the time per move.
func Puzzles(ctx context.Context, path string, opts Options) (*PuzzleReport, error) {
	puzzles, bad, err := ReadPuzzles(path, opts.Limit, opts.Strict)
	if err != nil {
		return nil, err
	}
	players, closePlayers, err := newPlayers(ctx, opts.Player, opts.workerCount(int64(len(puzzles))))
	if err != nil {
		return nil, err
	}
	defer closePlayers()
	score := make([]func(context.Context, int, int) (solved, error), len(players))
	for k, p := range players {
		score[k] = func(ctx context.Context, _, i int) (solved, error) {
			return solve(ctx, p, i, puzzles[i], opts.Limits)
		}
	}
	rep := &PuzzleReport{Player: players[0].Name(), File: path, Skipped: bad}
	buckets := map[int]*PuzzleBucket{}
	bar := newProgress(&opts, int64(len(puzzles)), "puzzles")
	var thinking time.Duration
	moves := 0
	err = scoreInOrder(ctx, score, emitIndices(len(puzzles)), func(i int, res solved) error {
		thinking += res.thinking
		moves += res.moves
		from := puzzles[i].Rating / puzzleBucketWidth * puzzleBucketWidth
		bk := buckets[from]
		if bk == nil {
			bk = &PuzzleBucket{From: from}
			buckets[from] = bk
		}
		bk.Puzzles++
		rep.Puzzles++
		if res.ok {
			bk.Solved++
			rep.Solved++
		}
		bar.tick()
		return nil
	})
	if err := bar.done(err); err != nil {
		return nil, err
	}
	rep.Rate = float64(rep.Solved) / float64(rep.Puzzles)
	rep.MsPerMove = thinking.Seconds() * 1000 / float64(max(moves, 1))
	for from := 0; from <= 4000; from += puzzleBucketWidth {
		if bk := buckets[from]; bk != nil {
			bk.Rate = float64(bk.Solved) / float64(bk.Puzzles)
			rep.Buckets = append(rep.Buckets, *bk)
		}
	}
	return rep, nil
}
