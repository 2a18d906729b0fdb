package experience

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"sort"
	"time"

	"github.com/dchess/dchess/internal/chess/board"
	"github.com/dchess/dchess/internal/chess/pgn"
)

// ImportBatch is how many games one import transaction holds: large enough
// that the opening moves shared by many games are one upsert each, small
// enough that an interrupted import loses little.
const ImportBatch = 2000

// ImportSource names an import's input. With SHA256 (of the content) the
// tree records how far the import got: run again after an interruption it
// adds only the games not yet in, and run again after it finished it adds
// nothing, unless Again asks for the file's games to be counted once more.
// A file whose content changed is a new input. Without SHA256 every run
// adds every game.
type ImportSource struct {
	Name   string // labels the games' source, "Name#N"
	SHA256 string
	Again  bool
}

// ImportSummary counts what an import read and stored.
type ImportSummary struct {
	Games   int64 `json:"games"`   // games added to the tree
	Skipped int64 `json:"skipped"` // malformed, illegal or without a result
	// NoResult counts games skipped for a "*" result (no outcome to learn).
	NoResult int64 `json:"no_result"`
	Plies    int64 `json:"plies"`
	// FirstErrors are the first few skipped games' reasons.
	FirstErrors []string `json:"first_errors,omitempty"`
	Seconds     float64  `json:"seconds"`
	// AlreadyIn says the file was imported completely before, so nothing
	// was added; ResumedAt is the game an interrupted import continued at
	// (0: it started afresh); Copy is how many times the tree now counts
	// the file's games (1 normally, more after Again).
	AlreadyIn bool `json:"already_in,omitempty"`
	ResumedAt int  `json:"resumed_at,omitempty"`
	Copy      int  `json:"copy,omitempty"`
}

// GamesPerSecond is the import rate.
func (s ImportSummary) GamesPerSecond() float64 {
	return float64(s.Games) / max(s.Seconds, 1e-9)
}

const maxReportedErrors = 10

// Import reads PGN games from r and adds every game with a result to the
// tree, ImportBatch games per transaction (see ImportSource for what a
// rerun adds). An interrupted import keeps the batches already committed.
// progress, when set, is called after each batch with the summary so far.
func Import(ctx context.Context, db *DB, r io.Reader, src ImportSource, progress func(ImportSummary)) (ImportSummary, error) {
	var sum ImportSummary
	start := time.Now()
	name := src.Name
	var mark *importMark
	if src.SHA256 != "" {
		var err error
		if mark, err = db.importMark(ctx, src); err != nil {
			return sum, fmt.Errorf("experience: %s: %w", db.path, err)
		}
		sum.Copy = mark.copy
		if mark.complete {
			sum.AlreadyIn = true
			return sum, nil
		}
		if mark.nextGame > 1 {
			sum.ResumedAt = mark.nextGame
		}
		if mark.copy > 1 {
			// Copies are told apart in the games table too.
			name = fmt.Sprintf("%s(copy %d)", src.Name, mark.copy)
		}
	}
	rd := pgn.NewReader(r)
	bt := newBatch()
	std := board.New()
	lastGame := 0 // the number of the last game read
	flush := func() error {
		if mark != nil {
			mark.nextGame = max(mark.nextGame, lastGame+1)
			m := *mark
			bt.mark = &m
		}
		err := db.write(ctx, bt)
		bt = newBatch()
		sum.Seconds = time.Since(start).Seconds()
		if err == nil && progress != nil {
			progress(sum)
		}
		return err
	}
	skip := func(reason string) {
		sum.Skipped++
		if len(sum.FirstErrors) < maxReportedErrors {
			sum.FirstErrors = append(sum.FirstErrors, reason)
		}
	}
	var moves []board.Move
	for {
		if err := ctx.Err(); err != nil {
			return sum, err
		}
		g, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		var pe *pgn.Error
		if errors.As(err, &pe) {
			lastGame = pe.Game
			if pe.Game < sum.ResumedAt {
				continue // counted by the interrupted run
			}
			if g == nil {
				skip(fmt.Sprintf("%s: %v", name, pe))
				continue
			}
		} else if err != nil {
			return sum, fmt.Errorf("experience: reading %s: %w", name, err)
		}
		lastGame = g.Number
		if g.Number < sum.ResumedAt {
			continue // in the tree since the interrupted run
		}
		if g.Result == pgn.ResultUnknown {
			sum.Skipped++
			sum.NoResult++
			continue
		}
		// Games from the standard start share one board, taken back
		// afterwards: cheaper than a board and its history per game.
		b := std
		if fen := g.StartFEN(); fen != "" {
			if b, err = board.FromFEN(fen); err != nil {
				skip(fmt.Sprintf("%s: game %d: bad FEN tag: %v", name, g.Number, err))
				continue
			}
		}
		moves = moves[:0]
		var bad error
		for i, san := range g.Moves {
			m, err := b.ParseSAN(san)
			if err != nil {
				bad = fmt.Errorf("game %d (line %d): illegal SAN %q", g.Number, g.MoveLines[i], san)
				break
			}
			moves = append(moves, m)
			b.Make(m)
		}
		for range moves {
			b.Unmake()
		}
		if bad != nil {
			skip(fmt.Sprintf("%s: %v", name, bad))
			continue
		}
		if err := bt.add(Game{Result: g.Result.String(), Source: fmt.Sprintf("%s#%d", name, g.Number)}, b, moves); err != nil {
			return sum, err
		}
		for range moves {
			b.Unmake()
		}
		sum.Games++
		sum.Plies += int64(len(moves))
		if len(bt.games) >= ImportBatch {
			if err := flush(); err != nil {
				return sum, fmt.Errorf("experience: %s: %w", db.path, err)
			}
		}
	}
	if mark != nil {
		mark.complete = true
	}
	if err := flush(); err != nil {
		return sum, fmt.Errorf("experience: %s: %w", db.path, err)
	}
	return sum, nil
}

// importMark returns where an import of src stands: the copy to add to
// and the first game not yet in the tree, or a complete mark when src is
// in and no further copy was asked for.
func (db *DB) importMark(ctx context.Context, src ImportSource) (*importMark, error) {
	m := &importMark{sha256: src.SHA256, name: src.Name, copy: 1, nextGame: 1}
	var complete bool
	err := db.sql.QueryRowContext(ctx, `SELECT copy, next_game, complete FROM imports WHERE sha256 = ? ORDER BY copy DESC LIMIT 1`,
		src.SHA256).Scan(&m.copy, &m.nextGame, &complete)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return m, nil
	case err != nil:
		return nil, err
	case complete && src.Again:
		return &importMark{sha256: src.SHA256, name: src.Name, copy: m.copy + 1, nextGame: 1}, nil
	}
	m.complete = complete
	return m, nil
}

// Stats summarises a database.
type Stats struct {
	Path      string `json:"path"`
	Games     int64  `json:"games"`
	WhiteWins int64  `json:"white_wins"`
	BlackWins int64  `json:"black_wins"`
	Draws     int64  `json:"draws"`
	Learnt    int64  `json:"learnt_games"` // games recorded by a learning player
	Moves     int64  `json:"moves"`        // rows: distinct (parent, child) moves
	Positions int64  `json:"positions"`    // distinct parent positions
	// StartMoves are the known moves from the standard start position,
	// most played first.
	StartMoves []MoveStats `json:"start_moves"`
}

// MoveStats is one move's record.
type MoveStats struct {
	Move      string  `json:"move"`
	Games     int64   `json:"games"`
	WhiteWins int64   `json:"white_wins"`
	BlackWins int64   `json:"black_wins"`
	Draws     int64   `json:"draws"`
	Score     float64 `json:"score"` // for the side that moved
}

// Stats reads the database's totals and the moves known from the start.
// Its errors name the file (a damaged one fails here).
func (db *DB) Stats(ctx context.Context) (Stats, error) {
	st, err := db.stats(ctx)
	if err != nil {
		return st, fmt.Errorf("experience: %s: %w", db.path, err)
	}
	return st, nil
}

func (db *DB) stats(ctx context.Context) (Stats, error) {
	st := Stats{Path: db.path}
	row := db.sql.QueryRowContext(ctx, `SELECT COUNT(*),
  COALESCE(SUM(result = '1-0'), 0), COALESCE(SUM(result = '0-1'), 0), COALESCE(SUM(result = '1/2-1/2'), 0),
  COALESCE(SUM(source LIKE 'learn:%'), 0) FROM games`)
	if err := row.Scan(&st.Games, &st.WhiteWins, &st.BlackWins, &st.Draws, &st.Learnt); err != nil {
		return st, err
	}
	if err := db.sql.QueryRowContext(ctx, `SELECT COUNT(*), COUNT(DISTINCT parent_key) FROM moves`).Scan(&st.Moves, &st.Positions); err != nil {
		return st, err
	}
	edges, err := db.Children(ctx, board.New().Key())
	if err != nil {
		return st, err
	}
	b := board.New()
	for _, e := range edges {
		m, err := b.ParseUCI(e.Move)
		if err != nil {
			continue
		}
		st.StartMoves = append(st.StartMoves, MoveStats{Move: b.SAN(m), Games: e.Visits(),
			WhiteWins: e.WhiteWins, BlackWins: e.BlackWins, Draws: e.Draws, Score: e.Score()})
	}
	sortMoveStats(st.StartMoves)
	return st, nil
}

// sortMoveStats orders moves by games played, then by name, so the list is
// the same on every run.
func sortMoveStats(list []MoveStats) {
	sort.Slice(list, func(i, j int) bool {
		if list[i].Games != list[j].Games {
			return list[i].Games > list[j].Games
		}
		return list[i].Move < list[j].Move
	})
}
