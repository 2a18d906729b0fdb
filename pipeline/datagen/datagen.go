// Package datagen makes training data in one step: it plays self-play games
// (pipeline/selfplay: generated or book openings, random plies and moves,
// its journal and its job-array sharding) at a fixed node or depth budget,
// and writes every position before a move with the mover's own search score
// as its label and the game's result into a dataset the nnue family trains
// on directly, instead of ingesting games and labelling them with Stockfish
// afterwards. `dchess datagen` calls it.
package datagen

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"strings"
	"time"

	"github.com/dchess/dchess/dataset"
	"github.com/dchess/dchess/internal/chess/board"
	"github.com/dchess/dchess/internal/chess/pgn"
	"github.com/dchess/dchess/internal/jobarray"
	"github.com/dchess/dchess/pipeline/selfplay"
	"github.com/dchess/dchess/search/match"
)

// DefaultPV is how many moves of the mover's principal variation a label
// keeps, as `dchess label --pv` does by default.
const DefaultPV = 8

// horizon is how many of the moves played after a position its record keeps
// in Next, as ingest's default.
const horizon = 4

// defaultEvent is the games' PGN Event tag.
const defaultEvent = "dchess datagen"

// Filters say which positions are left out of the dataset; the games'
// journal keeps every position, so they can change on a rerun.
type Filters struct {
	// SkipInCheck leaves out positions whose side to move is in check.
	SkipInCheck bool
	// SkipCaptures leaves out positions whose best move (the one played)
	// is a capture: with SkipInCheck, the quiet positions nnue trains on.
	SkipCaptures bool
	// MaxScore, when above 0, leaves out positions scored beyond ±MaxScore
	// centipawns, and every mate score.
	MaxScore int
}

// Options describe a run.
type Options struct {
	// Play is the self-play run: players, games, limits, openings. Its
	// Output, GameData and Finish are set by Run; its Restart starts over.
	Play selfplay.Options
	// Output is the dataset to write; the games go beside it as PGN
	// (GamesFile), their journal beside that until the dataset is written.
	Output string
	// Replace allows writing over an existing dataset at Output.
	Replace bool
	Filters Filters
	// PV is how many moves of each move's principal variation its label
	// keeps; 0 keeps DefaultPV, below 0 none.
	PV int
	// Command is the argv recorded in the dataset's manifest.
	Command []string
	// Shard, when its Count is above 1 or Sharded is set, makes the run
	// task Shard of a job array: it plays its share of the game pairs and
	// writes the dataset jobarray.Name(Output, Shard), with a jobarray.Info
	// under its manifest's "shard" setting, which `dchess dataset merge`
	// reads; Run (the whole run as asked for) is part of its settings.
	Sharded bool
	Shard   jobarray.Spec
	Run     match.ShardRun
	// OnWrite, if not nil, is called when the games are played and the
	// dataset is being written.
	OnWrite func()
}

// Result summarises a run.
type Result struct {
	// Output is the dataset written (a task's own name when sharded).
	Output string `json:"output"`
	Games  string `json:"games_pgn"`
	// Skipped: the task was finished before with the same settings.
	Skipped bool `json:"skipped,omitempty"`
	// Play is the self-play run; nil when skipped or when a task owns no
	// game pairs.
	Play *selfplay.Result `json:"play,omitempty"`
	// Positions are the positions before every move of the games; Records
	// the ones stored: without the Unscored (a random move, or a player
	// without a score), the Filtered and the Duplicates.
	Positions  int64 `json:"positions"`
	Unscored   int64 `json:"unscored"`
	InCheck    int64 `json:"filtered_in_check"`
	Captures   int64 `json:"filtered_captures"`
	Beyond     int64 `json:"filtered_score"`
	Duplicates int64 `json:"duplicates"`
	Records    int64 `json:"records"`
	// Nodes are the searches' nodes over every scored position.
	Nodes   int64   `json:"nodes"`
	Seconds float64 `json:"seconds"`
}

// RecordsPerSecond is the run's rate of stored records over its whole time
// (the games a killed run played before are in the records, not the time).
func (r *Result) RecordsPerSecond() float64 { return float64(r.Records) / max(r.Seconds, 1e-9) }

// GamesFile is where a run writing the dataset output keeps its games.
func GamesFile(output string) string {
	return strings.TrimRight(output, `/\`) + ".pgn"
}

// gameData is what the journal keeps of a game: enough to make its records
// without reading its PGN.
type gameData struct {
	Opening string     `json:"opening"`
	Result  string     `json:"result"`
	White   string     `json:"white"`
	Black   string     `json:"black"`
	Moves   []moveData `json:"moves"`
}

// moveData is one move with the mover's search: S centipawns or M moves to
// mate from the mover's side, depth D and nodes N; H false when the move
// has no score.
type moveData struct {
	UCI string   `json:"m"`
	H   bool     `json:"h,omitempty"`
	S   int      `json:"s,omitempty"`
	M   int      `json:"mate,omitempty"`
	D   int      `json:"d,omitempty"`
	N   int64    `json:"n,omitempty"`
	PV  []string `json:"pv,omitempty"`
}

// dataOf is what the journal keeps of g. In a player's games against
// itself (same) both sides are named as A is: the match tells the two
// instances apart ("heuristic (2)"), a label need not.
func dataOf(g match.GameResult, pvLen int, same bool) (json.RawMessage, error) {
	d := gameData{Opening: g.Opening.FEN, Result: g.Result, White: g.White, Black: g.Black, Moves: make([]moveData, len(g.Moves))}
	if same && g.AIsWhite {
		d.Black = d.White
	} else if same {
		d.White = d.Black
	}
	for i, m := range g.Moves {
		md := moveData{UCI: m.UCI}
		if in := m.Info; in.HasScore {
			md.H, md.S, md.M, md.D, md.N = true, in.Score, in.Mate, in.Depth, in.Nodes
			if pvLen > 0 && len(in.PV) > 0 {
				md.PV = in.PV[:min(pvLen, len(in.PV))]
			}
		}
		d.Moves[i] = md
	}
	return json.Marshal(d)
}

// counts are what records tallies.
type counts struct {
	positions, unscored, inCheck, captures, beyond, nodes int64
}

// records makes the records of game number n that pass f, tallying into c.
func records(d gameData, n int, f Filters, c *counts) ([]dataset.Record, error) {
	b, err := board.FromFEN(d.Opening)
	if err != nil {
		return nil, fmt.Errorf("game %d: opening: %w", n, err)
	}
	// The game's id depends on its moves alone, so a sharded run's records
	// are the unsharded run's.
	h := fnv.New64a()
	h.Write([]byte(d.Opening))
	for _, m := range d.Moves {
		h.Write([]byte(" " + m.UCI))
	}
	gameID := h.Sum64()
	result := pgn.ParseResult(d.Result)
	firstPly := 2*(b.FullmoveNumber()-1) + int(b.SideToMove())
	var recs []dataset.Record
	for i, m := range d.Moves {
		mv, err := b.ParseUCI(m.UCI)
		if err != nil {
			return nil, fmt.Errorf("game %d: move %d (%s) is not legal", n, i+1, m.UCI)
		}
		c.positions++
		keep := true
		switch {
		case !m.H:
			c.unscored++
			keep = false
		case f.SkipInCheck && b.InCheck():
			c.inCheck++
			keep = false
		case f.SkipCaptures && b.IsCapture(mv):
			c.captures++
			keep = false
		case f.MaxScore > 0 && (m.M != 0 || m.S > f.MaxScore || m.S < -f.MaxScore):
			c.beyond++
			keep = false
		}
		if keep {
			fen := b.FEN()
			l := &dataset.Label{Status: dataset.LabelOK, BestMove: m.UCI, PV: m.PV,
				Depth: uint16(min(max(m.D, 0), 65535)), Nodes: uint64(max(m.N, 0)), Engine: d.White}
			if b.SideToMove() == board.Black {
				l.Engine = d.Black
			}
			if m.M != 0 {
				l.Mate = int32(m.M)
			} else {
				l.CP = int32(m.S)
			}
			l.WinProb = dataset.WinProbability(l.CP, l.Mate)
			c.nodes += m.N
			end := min(i+1+horizon, len(d.Moves))
			next := make([]string, 0, end-i-1)
			for _, nm := range d.Moves[i+1 : end] {
				next = append(next, nm.UCI)
			}
			recs = append(recs, dataset.Record{FEN: fen, Key: dataset.PositionKey(fen), Move: m.UCI, Next: next,
				Result: result, Ply: uint16(min(firstPly+i, 65535)), GameID: gameID, Label: l})
		}
		b.Make(mv)
	}
	return recs, nil
}

// Run plays the games and writes the dataset. Every finished game goes to
// the self-play journal with its moves' search scores in the same line, so
// a run that is killed loses only the games in progress, and the same run
// again plays only the games the journal lacks; the games' PGN and then the
// dataset (through dataset.Create: atomic, positions deduplicated, the
// first one kept) are written when the last game is in. A task of a job
// array that finished before with the same settings does nothing; with
// other settings it is refused. A run stopped part way fails with a
// *selfplay.InterruptedError.
func Run(ctx context.Context, opts Options) (*Result, error) {
	res, err := run(ctx, opts)
	if res != nil {
		err = selfplay.Interrupted("datagen", err, res.Play, res.Games, res.Output)
	}
	return res, err
}

func run(ctx context.Context, opts Options) (*Result, error) {
	start := time.Now()
	if opts.Output == "" {
		return nil, errors.New("datagen: no output dataset")
	}
	if opts.Play.B == "" {
		opts.Play.B = opts.Play.A
	}
	pvLen := opts.PV
	if pvLen == 0 {
		pvLen = DefaultPV
	}
	res := &Result{Output: opts.Output}
	settings := map[string]any{
		"kind": "datagen", "a": opts.Play.A, "b": opts.Play.B, "games": opts.Play.Games,
		"skip_in_check": opts.Filters.SkipInCheck, "skip_captures": opts.Filters.SkipCaptures,
		"max_score": opts.Filters.MaxScore, "pv": max(pvLen, 0),
		"depth": opts.Play.Match.Depth, "nodes": opts.Play.Match.Nodes,
		"balance": opts.Play.BalanceCP, "balance_depth": opts.Play.BalanceDepth,
		"random_rate": opts.Play.RandomRate, "random_rate_plies": opts.Play.RandomPlies,
	}
	var info *jobarray.Info
	if opts.Sharded || !opts.Shard.Whole() {
		shard, inputs, err := match.ShardSettings(ctx, opts.Run, opts.Play.Match, opts.Shard.Count)
		if err != nil {
			return nil, fmt.Errorf("datagen: %w", err)
		}
		for k, v := range settings {
			shard[k] = v
		}
		in := jobarray.NewInfo(opts.Shard, opts.Command, shard)
		in.Inputs = append(in.Inputs, inputs...)
		info = &in
		res.Output = jobarray.Name(opts.Output, opts.Shard)
		if d, err := dataset.Open(res.Output); err == nil {
			done, err := jobarray.InfoFrom(d.Manifest().Settings["shard"])
			if err != nil {
				return res, fmt.Errorf("datagen: %s is not a task's dataset; remove it or use another -o", res.Output)
			}
			if diffs := done.Differences(in); len(diffs) > 0 || done.Index != in.Index {
				return res, fmt.Errorf("datagen: %s was made with other settings (%s); remove it or use another -o", res.Output, strings.Join(diffs, "; "))
			}
			res.Skipped, res.Records = true, d.Manifest().Counts.Records
			return res, nil
		}
		opts.Play.Pairs = opts.Shard.Indices((opts.Play.Games+1)/2, jobarray.Seed(in.SettingsHash))
	}
	if err := dataset.CheckOutput(res.Output, opts.Replace); err != nil {
		return res, err
	}
	res.Games = GamesFile(res.Output)
	writeOpts := dataset.WriteOptions{Command: opts.Command, Settings: settings, Dedupe: true, Replace: opts.Replace}
	if info != nil {
		writeOpts.Settings = map[string]any{}
		for k, v := range settings {
			writeOpts.Settings[k] = v
		}
		writeOpts.Settings["shard"] = *info
	}
	write := func(read func(n int) ([]dataset.Record, error), numbers []int) error {
		if opts.OnWrite != nil {
			opts.OnWrite()
		}
		w, err := dataset.Create(res.Output, writeOpts)
		if err != nil {
			return err
		}
		defer w.Abort()
		for _, n := range numbers {
			recs, err := read(n)
			if err != nil {
				return err
			}
			for i := range recs {
				if err := w.Write(&recs[i]); err != nil {
					return err
				}
			}
		}
		if err := w.Close(); err != nil {
			return err
		}
		st := w.Stats()
		res.Records, res.Duplicates = st.Records, st.Duplicates
		return nil
	}
	if info != nil && len(opts.Play.Pairs) == 0 {
		// More tasks than pairs: this task owns nothing, and says so with
		// an empty dataset, which the merge needs.
		err := write(nil, nil)
		res.Seconds = time.Since(start).Seconds()
		return res, err
	}
	var c counts
	play := opts.Play
	if play.Match.Event == "" {
		play.Match.Event = defaultEvent
	}
	play.Output = res.Games
	play.GameData = func(g match.GameResult) (json.RawMessage, error) { return dataOf(g, pvLen, play.A == play.B) }
	play.Finish = func(j *match.Journal, numbers []int) error {
		c = counts{}
		return write(func(n int) ([]dataset.Record, error) {
			raw, err := j.Data(n)
			if err != nil {
				return nil, err
			}
			if raw == nil {
				return nil, fmt.Errorf("%s: game %d has no search scores", j.Path(), n)
			}
			var d gameData
			if err := json.Unmarshal(raw, &d); err != nil {
				return nil, fmt.Errorf("%s: game %d: %w", j.Path(), n, err)
			}
			return records(d, n, opts.Filters, &c)
		}, numbers)
	}
	played, err := selfplay.Run(ctx, play)
	res.Play = played
	res.Positions, res.Unscored, res.InCheck, res.Captures, res.Beyond, res.Nodes = c.positions, c.unscored, c.inCheck, c.captures, c.beyond, c.nodes
	res.Seconds = time.Since(start).Seconds()
	if err != nil {
		return res, fmt.Errorf("datagen: %w", err)
	}
	return res, nil
}
