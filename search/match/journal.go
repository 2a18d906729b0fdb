package match

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/dchess/dchess/internal/safefile"
)

// A journal is how a run that writes its games at the end survives a kill:
// every finished game is appended as one JSON line (with the hash of the
// settings it was played with and its PGN text) and synced, so a rerun with
// the same settings plays only the games it lacks. A match with a PGN file
// (RunResumable), a sharded match's task (RunShard), a tournament and
// self-play (pipeline/selfplay's Run) keep one.

// ErrJournalSettings says a journal holds games of other settings than the
// run that opened it; the caller says how to start over.
var ErrJournalSettings = errors.New("holds games of other settings")

// JournalEntry is one finished game in a journal.
type JournalEntry struct {
	SettingsHash string    `json:"settings_hash"`
	A            string    `json:"a"`
	B            string    `json:"b"`
	Game         ShardGame `json:"game"`
	// Plies is the number of moves played from the opening.
	Plies int `json:"plies,omitempty"`
	// ThinkingA and ThinkingB sum up each side's moves, so a resumed
	// run reports the journalled games' speed and depth too.
	ThinkingA MoveStats `json:"thinking_a,omitzero"`
	ThinkingB MoveStats `json:"thinking_b,omitzero"`
	PGN       string    `json:"pgn"`
	// Data is what the run keeps of the game beside its PGN (AddData):
	// pipeline/datagen's search scores of every move. Like the PGN it stays
	// in the file and is read back by Data.
	Data json.RawMessage `json:"data,omitempty"`
}

// Result is the entry's game as a report counts it: the result, the colours
// and how it ended (its moves are in the PGN).
func (e JournalEntry) Result() GameResult { return e.Game.result() }

// JournalBeside is where a run writing output keeps its finished games
// until the last one is in: a hidden file beside output.
func JournalBeside(output string) string {
	return filepath.Join(filepath.Dir(output), "."+filepath.Base(output)+".journal.jsonl")
}

// Journal holds a run's finished games, keyed by game number. Their PGN
// stays in the file (a long run's games would not fit in memory) and is
// read back by PGN. It is not safe for concurrent use; match.Run calls
// OnGame from one goroutine.
type Journal struct {
	path   string
	hash   string
	file   *os.File
	unlock func()
	end    int64 // where the next line goes
	games  map[int]journalLine
}

// journalLine is a game's entry without its PGN, and where its line is.
type journalLine struct {
	entry        JournalEntry
	offset, size int64
}

// OpenJournal opens (creating it when missing) the journal at path for a
// run whose settings hash is hash, and reads the games a killed run
// finished. A torn last line (the kill came while it was written) is cut
// off; a journal of other settings is refused with ErrJournalSettings.
// restart discards whatever the journal holds. The journal is locked while
// open, so two runs never append to one: another run's open fails with
// safefile.ErrLocked.
func OpenJournal(path, hash string, restart bool) (*Journal, error) {
	unlock, err := safefile.Lock(path)
	if errors.Is(err, safefile.ErrLocked) {
		return nil, fmt.Errorf("%s is being written by another dchess: %w", path, err)
	}
	if err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		unlock()
		return nil, err
	}
	j := &Journal{path: path, hash: hash, file: f, unlock: unlock, games: map[int]journalLine{}}
	fail := func(err error) (*Journal, error) {
		j.Close()
		return nil, err
	}
	var good int64
	if !restart {
		r := bufio.NewReader(f)
		for {
			line, err := r.ReadBytes('\n')
			if err == io.EOF {
				break // a torn line has no newline yet
			}
			if err != nil {
				return fail(err)
			}
			var e JournalEntry
			if json.Unmarshal(line, &e) != nil {
				break
			}
			if e.SettingsHash != hash {
				return fail(fmt.Errorf("%s %w", path, ErrJournalSettings))
			}
			e.PGN, e.Data = "", nil
			j.games[e.Game.Number] = journalLine{entry: e, offset: good, size: int64(len(line))}
			good += int64(len(line))
		}
	}
	if err := f.Truncate(good); err != nil {
		return fail(err)
	}
	if _, err := f.Seek(good, io.SeekStart); err != nil {
		return fail(err)
	}
	j.end = good
	return j, nil
}

// Path is the journal's file.
func (j *Journal) Path() string { return j.path }

// Len is the number of games the journal holds.
func (j *Journal) Len() int { return len(j.games) }

// Game is game number n's entry without its PGN, if the journal holds it.
func (j *Journal) Game(n int) (JournalEntry, bool) {
	l, ok := j.games[n]
	return l.entry, ok
}

// Games are the journalled games' entries in game order, without their PGN.
func (j *Journal) Games() []JournalEntry {
	games := make([]JournalEntry, 0, len(j.games))
	for _, l := range j.games {
		games = append(games, l.entry)
	}
	sort.Slice(games, func(a, b int) bool { return games[a].Game.Number < games[b].Game.Number })
	return games
}

// Remaining are the numbers the journal does not hold yet, in their order;
// never nil, as Config.GameNumbers reads nil as every game.
func (j *Journal) Remaining(numbers []int) []int {
	rest := []int{}
	for _, n := range numbers {
		if _, done := j.games[n]; !done {
			rest = append(rest, n)
		}
	}
	return rest
}

// Add journals a finished game between players a and b, with its PGN as
// WritePGN writes it; a game is worth a sync.
func (j *Journal) Add(a, b string, g GameResult, event, timeControl string) error {
	return j.AddData(a, b, g, event, timeControl, nil)
}

// AddData journals a finished game as Add does, with data (JSON, or nil)
// kept beside its PGN in the same line: a game is in the journal with its
// data or not at all.
func (j *Journal) AddData(a, b string, g GameResult, event, timeControl string, data json.RawMessage) error {
	var pgn strings.Builder
	if err := WritePGN(&pgn, g, event, timeControl); err != nil {
		return err
	}
	e := JournalEntry{SettingsHash: j.hash, A: a, B: b, Game: shardGameOf(g), Plies: len(g.Moves), PGN: pgn.String(), Data: data}
	e.ThinkingA, e.ThinkingB = thinking(g)
	line, err := json.Marshal(e)
	if err != nil {
		return err
	}
	line = append(line, '\n')
	if _, err := j.file.Write(line); err != nil {
		return err
	}
	e.PGN, e.Data = "", nil
	j.games[g.Number] = journalLine{entry: e, offset: j.end, size: int64(len(line))}
	j.end += int64(len(line))
	return j.file.Sync()
}

// shardGame is the entry's game with the sides' thinking, as a finished
// task's manifest keeps it.
func (e JournalEntry) shardGame() ShardGame {
	g := e.Game
	g.ThinkingA, g.ThinkingB = e.ThinkingA, e.ThinkingB
	return g
}

// PGN is game number n's PGN text, read back from the journal.
func (j *Journal) PGN(n int) (string, error) {
	e, err := j.read(n)
	return e.PGN, err
}

// Data is game number n's data (AddData), read back from the journal; nil
// when it was added without any.
func (j *Journal) Data(n int) (json.RawMessage, error) {
	e, err := j.read(n)
	return e.Data, err
}

// read reads game number n's whole entry back from the journal.
func (j *Journal) read(n int) (JournalEntry, error) {
	l, ok := j.games[n]
	if !ok {
		return JournalEntry{}, fmt.Errorf("%s lacks game %d", j.path, n)
	}
	buf := make([]byte, l.size)
	if _, err := j.file.ReadAt(buf, l.offset); err != nil {
		return JournalEntry{}, fmt.Errorf("%s: game %d: %w", j.path, n, err)
	}
	var e JournalEntry
	if err := json.Unmarshal(buf, &e); err != nil || e.Game.Number != n {
		return JournalEntry{}, fmt.Errorf("%s: game %d's line was changed while the run was writing", j.path, n)
	}
	return e, nil
}

// Close closes the journal and keeps its file, for a rerun to continue.
func (j *Journal) Close() error {
	if j.file == nil {
		return nil
	}
	err := j.file.Close()
	j.file = nil
	j.unlock()
	return err
}

// Remove closes the journal and deletes its file: the run's output holds
// its games now.
func (j *Journal) Remove() error {
	// Deleted before the lock goes, so no other run opens it in between.
	err := os.Remove(j.path)
	if cerr := j.Close(); err == nil {
		err = cerr
	}
	return err
}

// readJournal reads a journal without changing it or taking its lock (its
// run may be writing it): every complete line; a torn last line (being
// written) is left out. A missing journal holds nothing.
func readJournal(path string) ([]JournalEntry, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var lines []JournalEntry
	r := bufio.NewReader(f)
	for {
		line, err := r.ReadBytes('\n')
		if err != nil {
			break // io.EOF, with a torn line or none
		}
		var e JournalEntry
		if json.Unmarshal(line, &e) != nil {
			return nil, fmt.Errorf("%s: line %d is not a journalled game", path, len(lines)+1)
		}
		lines = append(lines, e)
	}
	return lines, nil
}

// playJournalled plays the games of numbers that j lacks, counting j's
// games first (in the report and its SPRT, as if this run had played
// them), and adds every counted game to j as it finishes, so a run that is
// killed loses only the games in progress. onJournalled, when not nil, is
// called after each. A game that cannot be journalled stops the match (a
// kill would lose it) and the report is nil: it must not read as a run
// whose games were kept.
func playJournalled(ctx context.Context, cfg Config, j *Journal, numbers []int, onJournalled func()) (*Report, error) {
	cfg.GameNumbers, cfg.PGN, cfg.resumed = j.Remaining(numbers), nil, nil
	for _, n := range numbers {
		if e, ok := j.Game(n); ok {
			cfg.resumed = append(cfg.resumed, e)
		}
	}
	event, tc := cmp.Or(cfg.Event, defaultEvent), timeControlTag(cfg.TimeControl)
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	var writeErr error
	onGame := cfg.OnGame
	cfg.OnGame = func(g GameResult, rep *Report) {
		if writeErr != nil {
			return
		}
		if writeErr = j.Add(rep.A, rep.B, g, event, tc); writeErr != nil {
			stop()
			return
		}
		if onJournalled != nil {
			onJournalled()
		}
		if onGame != nil {
			onGame(g, rep)
		}
	}
	rep, err := Run(runCtx, cfg)
	if writeErr != nil {
		return nil, fmt.Errorf("journal %s: %w", j.Path(), writeErr)
	}
	return rep, err
}

// otherPlayers finds a journalled game whose players are not rep's (an
// engine that now names itself otherwise): counting it would mix matches.
func otherPlayers(j *Journal, rep *Report) (JournalEntry, bool) {
	for _, e := range j.Games() {
		if e.A != rep.A || e.B != rep.B {
			return e, true
		}
	}
	return JournalEntry{}, false
}
