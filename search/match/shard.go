package match

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/dchess/dchess/internal/safefile"

	"github.com/dchess/dchess/internal/jobarray"
	"github.com/dchess/dchess/search"
	"github.com/dchess/dchess/search/elo"
)

// A sharded match splits its game pairs among the tasks of a job array,
// as Fishtest splits a test among workers: each task plays whole pairs
// (an opening with colours swapped) and keeps only what the statistics
// need, and the Elo, pentanomial and SPRT figures are computed once, when
// the shards are merged. Task i of n with output NAME writes the folder
// NAME-IIII-of-NNNN:
//
//	manifest.json  ShardManifest; written last, so a folder without it is unfinished
//	games.pgn      the task's games in game order
//	journal.jsonl  while the task runs: one finished game a line, so a
//	               rerun of a killed task continues where it stopped
//	lock           while the task runs
const (
	ShardManifestFile = "manifest.json"
	ShardPGNFile      = "games.pgn"
	shardJournalFile  = "journal.jsonl"
	shardLockFile     = "lock"

	shardFormat        = "dchess-match-shard"
	shardFormatVersion = 1
)

// ShardGame is what a shard keeps of one game: what the report counts.
type ShardGame struct {
	Number      int    `json:"n"`
	Result      string `json:"result"`
	AIsWhite    bool   `json:"a_white"`
	Termination string `json:"termination"`
	FaultySide  string `json:"faulty,omitempty"`
	// PGNBytes is the game's length in games.pgn, where games follow each
	// other in Number order.
	PGNBytes int `json:"pgn_bytes"`
	// Timed is GameResult's: a merged report counts slow games on the clock.
	Timed bool `json:"timed,omitempty"`
	// ThinkingA and ThinkingB sum up each side's moves, in a finished
	// task's manifest (a journal keeps them beside the game: shardGame).
	ThinkingA MoveStats `json:"thinking_a,omitzero"`
	ThinkingB MoveStats `json:"thinking_b,omitzero"`
}

func shardGameOf(g GameResult) ShardGame {
	return ShardGame{Number: g.Number, Result: g.Result, AIsWhite: g.AIsWhite, Termination: g.Termination, FaultySide: g.FaultySide,
		Timed: g.Timed}
}

// result is the part of a GameResult the report reads.
func (g ShardGame) result() GameResult {
	return GameResult{Number: g.Number, Result: g.Result, AIsWhite: g.AIsWhite, Termination: g.Termination, FaultySide: g.FaultySide,
		Timed: g.Timed}
}

// ShardManifest describes one finished task of a sharded match.
type ShardManifest struct {
	Format        string    `json:"format"`
	FormatVersion int       `json:"format_version"`
	CreatedAt     time.Time `json:"created_at"`
	// Shard has the command, the settings and their hash, the input
	// hashes, and as engines the two players' names.
	Shard jobarray.Info `json:"shard"`
	A     string        `json:"a"`
	B     string        `json:"b"`
	// Games is the number of games of the whole match, Pairs the 0-based
	// game pairs this task played (pair p is games 2p+1 and 2p+2).
	Games int   `json:"games"`
	Pairs []int `json:"pairs"`
	// SPRT is the test the merge evaluates, "" for none.
	SPRT    string      `json:"sprt,omitempty"`
	Results []ShardGame `json:"results"`
	Seconds float64     `json:"seconds"`
}

// ShardOptions describe one task of a sharded match.
type ShardOptions struct {
	// Config is the whole match: Games counts every task's games. Its SPRT
	// is recorded for the merge and does not stop the task; PGN is unused
	// (the games go to the shard's games.pgn).
	Config Config
	Shard  jobarray.Spec
	// Output is the task's folder, jobarray.Name(NAME, Shard).
	Output  string
	Command []string
	// Settings are what the games depend on (players, limits, openings'
	// hash, adjudication...), the same for every task; Inputs the files
	// they come from. Their hash seeds the assignment of pairs to tasks.
	Settings map[string]any
	Inputs   []jobarray.Input
	// OnProgress, when set, is told the games this run has played of those
	// it has to play (a continued task's journalled games are in neither,
	// as tournament.Config's and label's count): once before the first
	// game and after every game.
	OnProgress func(played, toPlay int)
}

// ShardSummary is what a task did.
type ShardSummary struct {
	Output   string         `json:"output"`
	Shard    string         `json:"shard"`
	Skipped  bool           `json:"skipped"` // finished before with the same settings
	Resumed  int            `json:"resumed"` // games taken from a killed run's journal
	Played   int            `json:"played"`  // games played by this run
	Manifest *ShardManifest `json:"-"`
	// Report covers this task's games only.
	Report *Report `json:"report"`
}

// shardNumbers are the game numbers of pairs (0-based) in a match of games.
func shardNumbers(pairs []int, games int) []int {
	var numbers []int
	for _, p := range pairs {
		for _, n := range []int{2*p + 1, 2*p + 2} {
			if n <= games {
				numbers = append(numbers, n)
			}
		}
	}
	return numbers
}

// ShardGameNumbers are the games (1-based) that task spec plays in a match
// of games games with these settings: those of the pairs assigned to it.
func ShardGameNumbers(games int, spec jobarray.Spec, settings map[string]any) []int {
	return shardNumbers(spec.Indices((games+1)/2, jobarray.Seed(jobarray.Hash(settings))), games)
}

// searchBench is the signature of dchess's own search and evaluation,
// which the built-in players use: tasks built from other code do not merge.
var searchBench = fmt.Sprintf("dchess bench: %d nodes", search.BenchNodes)

// RunShard plays one task's share of a match: the game pairs
// jobarray.Spec.Indices assigns it, seeded by the settings hash, with the
// openings, colours and seeds those games have in the whole match. A
// finished task with the same settings is skipped; a killed one continues
// from its journal. When ctx ends, the finished games stay in the journal
// and the error says to run the same command again.
func RunShard(ctx context.Context, opts ShardOptions) (ShardSummary, error) {
	started := time.Now()
	cfg := opts.Config
	sum := ShardSummary{Output: opts.Output, Shard: opts.Shard.String()}
	if opts.Output == "" {
		return sum, errors.New("match: a shard needs an output folder")
	}
	if cfg.Games <= 0 {
		return sum, fmt.Errorf("match: games must be positive, got %d", cfg.Games)
	}
	info := jobarray.NewInfo(opts.Shard, opts.Command, opts.Settings)
	info.Inputs = append(info.Inputs, opts.Inputs...)
	info.Bench = searchBench
	pairs := opts.Shard.Indices((cfg.Games+1)/2, jobarray.Seed(info.SettingsHash))
	numbers := shardNumbers(pairs, cfg.Games)

	manifestPath := filepath.Join(opts.Output, ShardManifestFile)
	if m, err := readShardManifest(opts.Output); err == nil {
		if m.Shard.SettingsHash == info.SettingsHash && m.Shard.Index == opts.Shard.Index && m.Shard.Count == info.Count {
			sum.Skipped, sum.Manifest = true, m
			sum.Report = replay(m.A, m.B, nil, m.Results)
			return sum, nil
		}
		// A finished task of other settings: replaced, as -o replaces.
		if err := os.Remove(manifestPath); err != nil {
			return sum, err
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return sum, err
	}
	if err := os.MkdirAll(opts.Output, 0o755); err != nil {
		return sum, err
	}
	unlock, err := safefile.Lock(filepath.Join(opts.Output, shardLockFile))
	if errors.Is(err, safefile.ErrLocked) {
		return sum, fmt.Errorf("%s: another dchess is playing this shard", opts.Output)
	}
	if err != nil {
		return sum, err
	}
	defer unlock()
	j, err := OpenJournal(filepath.Join(opts.Output, shardJournalFile), info.SettingsHash, false)
	if errors.Is(err, ErrJournalSettings) {
		return sum, fmt.Errorf("cannot continue: %w; run with the same settings or delete %s to start over", err, opts.Output)
	}
	if err != nil {
		return sum, err
	}
	defer j.Close()
	sum.Resumed = j.Len()
	progress := func() {
		if opts.OnProgress != nil {
			opts.OnProgress(sum.Played, len(numbers)-sum.Resumed)
		}
	}
	progress()

	var sprt string
	if cfg.SPRT != nil {
		sprt = cfg.SPRT.String()
	}
	// A task does not stop on the test: the merge evaluates it.
	cfg.SPRT = nil
	rep, err := playJournalled(ctx, cfg, j, numbers, func() {
		sum.Played++
		progress()
	})
	if err != nil {
		if rep != nil && ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			return sum, &shardInterrupted{cause: err, msg: fmt.Sprintf(
				"interrupted with %d of %d games of shard %s played, kept in %s: run the same command again to continue",
				j.Len(), len(numbers), opts.Shard, opts.Output)}
		}
		return sum, err
	}
	if line, found := otherPlayers(j, rep); found {
		return sum, fmt.Errorf("%s: game %d was played by %s and %s, this run's players are %s and %s; delete %s to start the shard over",
			opts.Output, line.Game.Number, line.A, line.B, rep.A, rep.B, opts.Output)
	}

	var pgn bytes.Buffer
	results := make([]ShardGame, 0, len(numbers))
	for _, n := range numbers {
		line, ok := j.Game(n)
		if !ok {
			return sum, fmt.Errorf("match: shard %s lacks game %d after its run", opts.Shard, n)
		}
		text, err := j.PGN(n)
		if err != nil {
			return sum, err
		}
		g := line.shardGame()
		g.PGNBytes = len(text)
		results = append(results, g)
		pgn.WriteString(text)
	}
	info.Engines = []string{rep.A, rep.B}
	m := &ShardManifest{Format: shardFormat, FormatVersion: shardFormatVersion, CreatedAt: time.Now().UTC().Truncate(time.Second),
		Shard: info, A: rep.A, B: rep.B, Games: cfg.Games, Pairs: pairs, SPRT: sprt, Results: results,
		Seconds: time.Since(started).Seconds()}
	if m.Pairs == nil {
		m.Pairs = []int{}
	}
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return sum, err
	}
	if err := safefile.WriteFile(filepath.Join(opts.Output, ShardPGNFile), pgn.Bytes()); err != nil {
		return sum, err
	}
	// The manifest marks the shard finished, so it goes last.
	if err := safefile.WriteFile(manifestPath, append(data, '\n')); err != nil {
		return sum, err
	}
	j.Remove()
	os.Remove(filepath.Join(opts.Output, shardLockFile))
	sum.Manifest, sum.Report = m, replay(m.A, m.B, nil, m.Results)
	return sum, nil
}

// shardInterrupted reads as a how-to-continue line but matches the
// context's error under errors.Is.
type shardInterrupted struct {
	msg   string
	cause error
}

func (e *shardInterrupted) Error() string { return e.msg }
func (e *shardInterrupted) Unwrap() error { return e.cause }

// replay counts games into a report in game order, as one run that
// played them would have.
func replay(a, b string, sprt *elo.SPRT, games []ShardGame) *Report {
	sorted := slices.Clone(games)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Number < sorted[j].Number })
	rep := newReport(a, b, sprt)
	for _, g := range sorted {
		rep.count(g.result(), g.ThinkingA, g.ThinkingB)
	}
	return rep
}

func readShardManifest(dir string) (*ShardManifest, error) {
	data, err := os.ReadFile(filepath.Join(dir, ShardManifestFile))
	if err != nil {
		return nil, err
	}
	m := &ShardManifest{}
	if err := json.Unmarshal(data, m); err != nil || m.Format != shardFormat {
		return nil, fmt.Errorf("%s: %s is not a dchess match shard manifest", dir, ShardManifestFile)
	}
	if m.FormatVersion > shardFormatVersion {
		return nil, fmt.Errorf("%s: shard format %d is newer than this dchess reads (%d); upgrade dchess", dir, m.FormatVersion, shardFormatVersion)
	}
	return m, nil
}

// MergedMatch is a sharded match put back together.
type MergedMatch struct {
	// Report is what one run of all the games reports: the same counts,
	// Elo, pentanomial and SPRT.
	Report *Report
	Shards []*ShardManifest // in task order
	Paths  []string

	games []ShardGame // every task's, for MergeSeries
	test  *elo.SPRT   // the test Report evaluates, nil for none
}

// MergeShards reads the task folders NAME-IIII-of-NNNN of base, checks
// that every task is present and finished, from one job (settings hash,
// players, bench signature) and played exactly the pairs the job assigns
// it, and counts all games into one report in game order. sprt, when not
// nil, replaces the test the tasks recorded. Errors name the shard at
// fault.
func MergeShards(base string, sprt *elo.SPRT) (*MergedMatch, error) {
	found, err := jobarray.Find(base)
	if err != nil {
		return nil, err
	}
	count, err := jobarray.Complete(base, found)
	if err != nil {
		return nil, err
	}
	mm := &MergedMatch{Shards: make([]*ShardManifest, count), Paths: make([]string, count)}
	names := make([]string, count)
	infos := make([]jobarray.Info, count)
	for i, f := range found {
		names[i], mm.Paths[i] = filepath.Base(f.Path), f.Path
		m, err := readShardManifest(f.Path)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s is unfinished (no %s): its task is still running or was stopped; run task %d of %d again",
				names[i], ShardManifestFile, i, count)
		}
		if err != nil {
			return nil, err
		}
		mm.Shards[i], infos[i] = m, m.Shard
	}
	if err := jobarray.Consistent(names, infos); err != nil {
		return nil, err
	}
	first := mm.Shards[0]
	assigned := jobarray.Split((first.Games+1)/2, count, jobarray.Seed(first.Shard.SettingsHash))
	var games []ShardGame
	for i, m := range mm.Shards {
		if m.Games != first.Games || m.SPRT != first.SPRT {
			return nil, fmt.Errorf("%s does not match %s: %d games and SPRT %q, not %d and %q", names[i], names[0], m.Games, m.SPRT, first.Games, first.SPRT)
		}
		if !slices.Equal(m.Pairs, assigned[i]) {
			return nil, fmt.Errorf("%s played other game pairs than the job assigns it", names[i])
		}
		want := shardNumbers(assigned[i], first.Games)
		got := make([]int, len(m.Results))
		for k, g := range m.Results {
			got[k] = g.Number
		}
		if !slices.Equal(got, want) {
			return nil, fmt.Errorf("%s holds results of games %s, the job assigns it %s", names[i], numberList(got), numberList(want))
		}
		games = append(games, m.Results...)
	}
	if sprt == nil && first.SPRT != "" {
		test, err := elo.ParseSPRT(first.SPRT)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", names[0], err)
		}
		sprt = &test
	}
	mm.Report, mm.games, mm.test = replay(first.A, first.B, sprt, games), games, sprt
	return mm, nil
}

// numberList shortens a list of game numbers for a message.
func numberList(ns []int) string {
	if len(ns) > 8 {
		return strings.Trim(fmt.Sprint(ns[:8]), "[]") + " ..."
	}
	return strings.Trim(fmt.Sprint(ns), "[]")
}

// WritePGN writes every task's games to w in game order, as one run's
// --pgn file would hold them.
func (mm *MergedMatch) WritePGN(w io.Writer) error {
	type piece struct {
		number, shard int
		offset, size  int64
	}
	var pieces []piece
	files := make([]*os.File, len(mm.Shards))
	defer func() {
		for _, f := range files {
			if f != nil {
				f.Close()
			}
		}
	}()
	for i, m := range mm.Shards {
		path := filepath.Join(mm.Paths[i], ShardPGNFile)
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		files[i] = f
		var offset int64
		for _, g := range m.Results {
			pieces = append(pieces, piece{g.Number, i, offset, int64(g.PGNBytes)})
			offset += int64(g.PGNBytes)
		}
		if st, err := f.Stat(); err != nil || st.Size() != offset {
			return fmt.Errorf("%s does not hold the %d bytes of games its manifest lists", path, offset)
		}
	}
	sort.Slice(pieces, func(a, b int) bool { return pieces[a].number < pieces[b].number })
	var buf []byte
	for _, p := range pieces {
		buf = slices.Grow(buf[:0], int(p.size))[:p.size]
		if _, err := files[p.shard].ReadAt(buf, p.offset); err != nil {
			return err
		}
		if _, err := w.Write(buf); err != nil {
			return err
		}
	}
	return nil
}
