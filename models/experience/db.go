// Package experience is Deep Red's experience tree (seed 002) in SQLite:
// one row per move from a parent position to a child position, with the
// side that moved and the White-win, Black-win and draw counts of every
// game that went through it. Games come from PGN files (Import) or from
// the experience player itself (learn=true); the player picks the known
// move with the best record for its side.
//
// The database is plain SQLite (modernc.org/sqlite, pure Go), so the
// sqlite3 shell reads it; the schema is in Schema and docs/guide/train.md.
package experience

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	_ "modernc.org/sqlite" // registers the "sqlite" driver

	"github.com/dchess/dchess/internal/chess/board"
)

// SchemaVersion is stored in meta; Open refuses a database of another version.
const SchemaVersion = 1

// Schema creates the tables. Keys are dchess's Zobrist position keys
// (search/board: placement, side to move, castling rights and a capturable
// en-passant file) stored as signed 64-bit integers; boards are the seed's
// 64-character strings. A row's counts are of the games that played that
// move from that position, each game counted once however often it
// repeated the move.
const Schema = `
CREATE TABLE IF NOT EXISTS meta (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS moves (
  id           INTEGER PRIMARY KEY,                        -- the seed's UUID
  parent_key   INTEGER NOT NULL,                           -- position before the move
  child_key    INTEGER NOT NULL,                           -- position after it
  parent_board TEXT    NOT NULL,                           -- 64 characters, a8..h8 first
  child_board  TEXT    NOT NULL,
  move         TEXT    NOT NULL,                           -- UCI, e.g. e2e4, e7e8q
  player       TEXT    NOT NULL CHECK (player IN ('W', 'B')), -- the side that moved
  white_wins   INTEGER NOT NULL DEFAULT 0,
  black_wins   INTEGER NOT NULL DEFAULT 0,
  draws        INTEGER NOT NULL DEFAULT 0,
  UNIQUE (parent_key, child_key)
);
CREATE TABLE IF NOT EXISTS games (
  id     INTEGER PRIMARY KEY,
  source TEXT    NOT NULL,  -- "file.pgn#12" for imports, "learn:NAME" for games the player learnt
  result TEXT    NOT NULL,  -- 1-0, 0-1 or 1/2-1/2
  plies  INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS imports (
  sha256    TEXT    NOT NULL,            -- of the imported file's content
  copy      INTEGER NOT NULL,            -- 1, or 2, 3... for deliberate repeat imports
  name      TEXT    NOT NULL,            -- the "file.pgn" of its games' source
  next_game INTEGER NOT NULL,            -- the file's games numbered below this are in the tree
  complete  INTEGER NOT NULL DEFAULT 0,  -- 1 once every game was read
  PRIMARY KEY (sha256, copy)
);
`

// DB is an open experience database. It is safe for concurrent use: all
// statements go through one connection, so a learning game's transaction
// never interleaves with another's.
type DB struct {
	sql  *sql.DB
	path string

	checkOnce sync.Once
	checkErr  error
}

// Open opens the database at path, creating it (and its schema) when it
// does not exist.
func Open(ctx context.Context, path string) (*DB, error) {
	if path == "" {
		return nil, errors.New("experience: no database path")
	}
	if dir := filepath.Dir(path); dir != "." {
		if _, err := os.Stat(dir); err != nil {
			return nil, fmt.Errorf("experience: %w", err)
		}
	}
	// WAL lets readers (another process's stats) work while a game is
	// written; busy_timeout makes a second writing process wait, not fail.
	dsn := "file:" + (&url.URL{Path: path}).EscapedPath() +
		"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)"
	sqlDB, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("experience: %w", err)
	}
	sqlDB.SetMaxOpenConns(1)
	db := &DB{sql: sqlDB, path: path}
	if err := db.init(ctx); err != nil {
		sqlDB.Close()
		return nil, fmt.Errorf("experience: %s: %w", path, err)
	}
	return db, nil
}

func (db *DB) init(ctx context.Context) error {
	if _, err := db.sql.ExecContext(ctx, Schema); err != nil {
		return err
	}
	var v string
	err := db.sql.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = 'schema_version'`).Scan(&v)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		_, err = db.sql.ExecContext(ctx, `INSERT INTO meta(key, value) VALUES ('schema_version', ?)`, strconv.Itoa(SchemaVersion))
		return err
	case err != nil:
		return err
	case v != strconv.Itoa(SchemaVersion):
		return fmt.Errorf("schema version %s, this dchess reads version %d", v, SchemaVersion)
	}
	return nil
}

// Path is the database file.
func (db *DB) Path() string { return db.path }

// Check reads the whole file with SQLite's quick_check, once per open
// database: a writer must find a damaged page before it adds to the
// file, since a write next to damage can spread it.
func (db *DB) Check(ctx context.Context) error {
	db.checkOnce.Do(func() { db.checkErr = db.check(ctx) })
	return db.checkErr
}

func (db *DB) check(ctx context.Context) error {
	damaged := func(problem string) error {
		return fmt.Errorf("experience: %s is damaged (%s): restore a copy, or rebuild it with dchess experience build", db.path, problem)
	}
	rows, err := db.sql.QueryContext(ctx, `PRAGMA quick_check`)
	if err != nil {
		return damaged(err.Error())
	}
	defer rows.Close()
	var first string
	if rows.Next() {
		if err := rows.Scan(&first); err != nil {
			return damaged(err.Error())
		}
	}
	if err := rows.Err(); err != nil {
		return damaged(err.Error())
	}
	if first != "ok" {
		return damaged(first)
	}
	return nil
}

// Close closes the database; SQLite folds the write-ahead log back into
// the file, so a closed database is one self-contained file.
func (db *DB) Close() error { return db.sql.Close() }

// CopyTo writes a consistent copy of the database to path (which must not
// exist), for a snapshot before learning.
func (db *DB) CopyTo(ctx context.Context, path string) error {
	_, err := db.sql.ExecContext(ctx, `VACUUM INTO ?`, path)
	return err
}

// Edge is one known move out of a position, with the games through it.
type Edge struct {
	Move      string // UCI
	ChildKey  uint64
	Player    board.Color
	WhiteWins int64
	BlackWins int64
	Draws     int64
}

// Visits is the number of games that played the move.
func (e Edge) Visits() int64 { return e.WhiteWins + e.BlackWins + e.Draws }

// Score is the move's record for the side that played it: wins plus half
// the draws, over the games.
func (e Edge) Score() float64 {
	n := e.Visits()
	if n == 0 {
		return 0
	}
	wins := e.WhiteWins
	if e.Player == board.Black {
		wins = e.BlackWins
	}
	return (float64(wins) + float64(e.Draws)/2) / float64(n)
}

// Children returns the known moves out of the position with key parent.
func (db *DB) Children(ctx context.Context, parent uint64) ([]Edge, error) {
	rows, err := db.sql.QueryContext(ctx,
		`SELECT move, child_key, player, white_wins, black_wins, draws FROM moves WHERE parent_key = ?`, int64(parent))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Edge
	for rows.Next() {
		var e Edge
		var child int64
		var player string
		if err := rows.Scan(&e.Move, &child, &player, &e.WhiteWins, &e.BlackWins, &e.Draws); err != nil {
			return nil, err
		}
		e.ChildKey = uint64(child)
		if player == "B" {
			e.Player = board.Black
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// Game is one finished game to record.
type Game struct {
	StartFEN string // "" for the standard start
	Moves    []string
	Result   string // "1-0", "0-1" or "1/2-1/2"
	Source   string
}

// edgeKey identifies a row.
type edgeKey struct{ parent, child uint64 }

// edgeRow is a row's content and the counts to add to it.
type edgeRow struct {
	parentBoard, childBoard string
	move                    string
	player                  byte
	white, black, draws     int64
}

// gameRow is a row of the games table.
type gameRow struct {
	source, result string
	plies          int
}

// importMark is an imports row, written in the transaction of the batch
// that brings the file's games up to nextGame.
type importMark struct {
	sha256, name string
	copy         int
	nextGame     int
	complete     bool
}

// batch collects the moves of several games, each game's moves counted
// once, so a batch is written with one upsert per distinct move.
type batch struct {
	edges map[edgeKey]*edgeRow
	order []edgeKey // first-seen order, so row ids follow the games
	games []gameRow
	seen  map[edgeKey]bool // this game's moves so far
	mark  *importMark      // nil outside a recorded import
}

func newBatch() *batch {
	return &batch{edges: map[edgeKey]*edgeRow{}, seen: map[edgeKey]bool{}}
}

// errNoResult marks a game without a decisive or drawn result ("*").
var errNoResult = errors.New("the game has no result")

// add replays g and adds its moves. On an error nothing of g is added.
func (bt *batch) add(g Game, b *board.Board, moves []board.Move) error {
	var white, black, draw int64
	switch g.Result {
	case "1-0":
		white = 1
	case "0-1":
		black = 1
	case "1/2-1/2":
		draw = 1
	default:
		return errNoResult
	}
	clear(bt.seen)
	parentBoard := BoardString(b)
	for _, m := range moves {
		parent := b.Key()
		player := byte('W')
		if b.SideToMove() == board.Black {
			player = 'B'
		}
		b.Make(m)
		childBoard := BoardString(b)
		k := edgeKey{parent, b.Key()}
		if !bt.seen[k] {
			bt.seen[k] = true
			row := bt.edges[k]
			if row == nil {
				row = &edgeRow{parentBoard: parentBoard, childBoard: childBoard, move: board.UCI(m), player: player}
				bt.edges[k] = row
				bt.order = append(bt.order, k)
			}
			row.white += white
			row.black += black
			row.draws += draw
		}
		parentBoard = childBoard
	}
	bt.games = append(bt.games, gameRow{source: g.Source, result: g.Result, plies: len(moves)})
	return nil
}

// write stores the batch in one transaction.
func (db *DB) write(ctx context.Context, bt *batch) error {
	if len(bt.games) == 0 && bt.mark == nil {
		return nil
	}
	tx, err := db.sql.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback() // a no-op after Commit
	upsert, err := tx.PrepareContext(ctx, `
INSERT INTO moves (parent_key, child_key, parent_board, child_board, move, player, white_wins, black_wins, draws)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (parent_key, child_key) DO UPDATE SET
  white_wins = white_wins + excluded.white_wins,
  black_wins = black_wins + excluded.black_wins,
  draws      = draws + excluded.draws`)
	if err != nil {
		return err
	}
	defer upsert.Close()
	for _, k := range bt.order {
		r := bt.edges[k]
		if _, err := upsert.ExecContext(ctx, int64(k.parent), int64(k.child), r.parentBoard, r.childBoard,
			r.move, string(r.player), r.white, r.black, r.draws); err != nil {
			return err
		}
	}
	insertGame, err := tx.PrepareContext(ctx, `INSERT INTO games (source, result, plies) VALUES (?, ?, ?)`)
	if err != nil {
		return err
	}
	defer insertGame.Close()
	for _, g := range bt.games {
		if _, err := insertGame.ExecContext(ctx, g.source, g.result, g.plies); err != nil {
			return err
		}
	}
	if m := bt.mark; m != nil {
		if _, err := tx.ExecContext(ctx, `INSERT INTO imports (sha256, copy, name, next_game, complete) VALUES (?, ?, ?, ?, ?)
ON CONFLICT (sha256, copy) DO UPDATE SET next_game = excluded.next_game, complete = excluded.complete`,
			m.sha256, m.copy, m.name, m.nextGame, m.complete); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// Record adds finished games in one transaction: either every game is in
// the tree afterwards or none is.
func (db *DB) Record(ctx context.Context, games ...Game) error {
	bt := newBatch()
	for i, g := range games {
		b, moves, err := replay(g.StartFEN, g.Moves)
		if err != nil {
			return fmt.Errorf("experience: game %d: %w", i+1, err)
		}
		if err := bt.add(g, b, moves); err != nil {
			return fmt.Errorf("experience: game %d: %w", i+1, err)
		}
	}
	if err := db.write(ctx, bt); err != nil {
		return fmt.Errorf("experience: %s: %w", db.path, err)
	}
	return nil
}

// replay checks a game's UCI moves and returns its start board (the moves
// not yet made on it) and the moves.
func replay(startFEN string, uciMoves []string) (*board.Board, []board.Move, error) {
	fen := startFEN
	if fen == "" || fen == "startpos" {
		fen = board.StartFEN
	}
	b, err := board.FromFEN(fen)
	if err != nil {
		return nil, nil, err
	}
	moves := make([]board.Move, len(uciMoves))
	for i, s := range uciMoves {
		m, err := b.ParseUCI(s)
		if err != nil {
			return nil, nil, fmt.Errorf("move %d (%s): %w", i+1, s, err)
		}
		moves[i] = m
		b.Make(m)
	}
	for range moves {
		b.Unmake()
	}
	return b, moves, nil
}

// shared holds the databases open in this process, so the player
// instances of concurrent games share one handle (and its one connection)
// per file instead of contending for SQLite's write lock.
var shared struct {
	sync.Mutex
	dbs  map[string]*DB
	refs map[string]int
}

// acquire opens path or returns the handle already open for it.
func acquire(ctx context.Context, path string) (*DB, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	shared.Lock()
	defer shared.Unlock()
	if db := shared.dbs[abs]; db != nil {
		shared.refs[abs]++
		return db, nil
	}
	db, err := Open(ctx, path)
	if err != nil {
		return nil, err
	}
	if shared.dbs == nil {
		shared.dbs, shared.refs = map[string]*DB{}, map[string]int{}
	}
	shared.dbs[abs], shared.refs[abs] = db, 1
	return db, nil
}

// release closes the shared handle when its last user is done.
func release(db *DB) error {
	abs, err := filepath.Abs(db.path)
	if err != nil {
		return err
	}
	shared.Lock()
	defer shared.Unlock()
	shared.refs[abs]--
	if shared.refs[abs] > 0 {
		return nil
	}
	delete(shared.dbs, abs)
	delete(shared.refs, abs)
	return db.Close()
}
