// Package ingest turns PGN games and labelled FEN files into dataset
// records. Games are split from the byte stream by one goroutine, decoded
// on every core and written back in input order, so two runs over the same
// input give the same records, and memory stays flat because every stage
// talks through bounded channels.
package ingest

import (
	"fmt"
	"strings"

	"github.com/dchess/dchess/dataset"
)

// Format is the kind of input file.
type Format string

const (
	FormatPGN          Format = "pgn"
	FormatLichessEvals Format = "lichess-evals" // Lichess evaluation export, JSON lines
	FormatCSV          Format = "csv"           // FEN,Evaluation (the Kaggle Stockfish set)
	FormatEPD          Format = "epd"           // EPD with ce/dm, bm, pv operations (unscored lines stay unlabelled)
	FormatPlain        Format = "plain"         // Stockfish's .plain training data
	FormatBinpack      Format = "binpack"       // Stockfish's .binpack training data
	FormatBullet       Format = "bullet"        // bullet's text lines: FEN | score | wdl
)

// ParseFormat reads a format name; "" means PGN.
func ParseFormat(s string) (Format, error) {
	switch f := Format(strings.ToLower(s)); f {
	case "":
		return FormatPGN, nil
	case FormatPGN, FormatLichessEvals, FormatCSV, FormatEPD, FormatPlain, FormatBinpack, FormatBullet:
		return f, nil
	}
	return "", fmt.Errorf("unknown format %q (want pgn, lichess-evals, csv, epd, plain, binpack or bullet)", s)
}

// ScoreView says whose point of view an imported score is written from.
type ScoreView string

const (
	// ViewDefault uses the format's convention: White's view for
	// lichess-evals, csv and bullet, the side to move for EPD's ce and
	// for plain and binpack.
	ViewDefault    ScoreView = ""
	ViewWhite      ScoreView = "white"
	ViewSideToMove ScoreView = "stm"
)

// DefaultHorizon is how many following moves a record keeps in Next.
const DefaultHorizon = 4

// Options control what is read and which positions are kept.
type Options struct {
	Format Format
	// Horizon is the number of moves after the played one kept in Record.Next.
	Horizon int
	// MinPly and MaxPly bound the plies kept (MaxPly 0: no bound).
	MinPly, MaxPly int
	// PositionsPerGame keeps a random sample of that many positions per game
	// (0: all), drawn from a generator seeded with Seed mixed with the GameID
	// so a game always gives the same sample.
	PositionsPerGame int
	// SkipCaptures drops positions whose played move is a capture
	// (DeepChess's rule: such positions are tactically unstable).
	SkipCaptures bool
	// MinElo keeps only games where both players are rated at least this.
	MinElo int
	// MaxGames stops after this many games have contributed positions (0: all).
	MaxGames int
	Seed     uint64
	// Strict makes the first malformed game or bad line end the run with an error.
	Strict bool
	// Workers decoding in parallel; 0 means one per CPU.
	Workers int
	// ScoreView overrides the labelled formats' score convention.
	ScoreView ScoreView
	// Dedupe drops a record whose Key was written recently (a fixed 8 MB
	// table of keys), before it reaches the sink. Such a record is one a
	// deduplicating dataset writer would drop anyway, so the dataset is the
	// same; the writer is spared most repeats (opening positions above all)
	// and still catches the rest.
	Dedupe bool
	// Progress, when set, is called from the writing goroutine after each
	// batch of games or lines.
	Progress func(Progress)
}

// DefaultOptions are the options of `dchess ingest` without flags.
func DefaultOptions() Options {
	return Options{Format: FormatPGN, Horizon: DefaultHorizon}
}

// Check reports the first invalid option.
func (o *Options) Check() error {
	if _, err := ParseFormat(string(o.Format)); err != nil {
		return err
	}
	switch {
	case o.Horizon < 0:
		return fmt.Errorf("horizon %d must not be negative", o.Horizon)
	case o.MinPly < 0 || o.MaxPly < 0:
		return fmt.Errorf("ply bounds must not be negative")
	case o.MaxPly > 0 && o.MaxPly < o.MinPly:
		return fmt.Errorf("max ply %d is below min ply %d", o.MaxPly, o.MinPly)
	case o.PositionsPerGame < 0 || o.MinElo < 0 || o.MaxGames < 0 || o.Workers < 0:
		return fmt.Errorf("positions per game, min Elo, max games and workers must not be negative")
	}
	switch o.ScoreView {
	case ViewDefault, ViewWhite, ViewSideToMove:
	default:
		return fmt.Errorf("unknown score view %q (want white or stm)", o.ScoreView)
	}
	return nil
}

// Progress is a snapshot of a running ingest.
type Progress struct {
	Bytes     int64 // input bytes read so far (compressed bytes for compressed files)
	Games     int64 // games (or lines) read
	Skipped   int64 // games (or lines) skipped
	Positions int64 // records written
}

// Sink receives records in input order; *dataset.Writer is one.
type Sink interface {
	Write(*dataset.Record) error
}

// DuplicateCounter is a Sink that records how many repeats were dropped,
// as *dataset.Writer does in its manifest. Run tells it the repeats that
// Options.Dedupe dropped before they reached it, so its count covers every
// repeat and agrees with the Summary.
type DuplicateCounter interface {
	CountDroppedDuplicates(n int64)
}

var _ DuplicateCounter = (*dataset.Writer)(nil)

// MaxReportedErrors is how many error messages a Summary keeps.
const MaxReportedErrors = 10

// Summary counts what an ingest read, kept and skipped.
type Summary struct {
	Format string `json:"format"`
	Inputs int    `json:"inputs"`
	Bytes  int64  `json:"bytes"`
	// Games: PGN input.
	GamesRead    int64 `json:"games_read"`
	GamesKept    int64 `json:"games_kept"`
	GamesSkipped int64 `json:"games_skipped"`
	// Why games were skipped: malformed text (or a bad FEN tag), a move
	// that is not legal, the filters (Elo, ply, captures) left nothing, or
	// a Variant tag of another game than standard chess (Crazyhouse,
	// Chess960...).
	SkippedMalformed int64 `json:"skipped_malformed"`
	SkippedIllegal   int64 `json:"skipped_illegal"`
	SkippedFiltered  int64 `json:"skipped_filtered"`
	SkippedVariant   int64 `json:"skipped_variant"`
	// Lines: labelled formats.
	LinesRead int64 `json:"lines_read"`
	LinesKept int64 `json:"lines_kept"`
	LinesBad  int64 `json:"lines_bad"`
	// Positions counts the records made, duplicates included.
	Positions int64 `json:"positions_written"`
	// Duplicates counts records dropped as repeats: by Options.Dedupe here,
	// plus what the caller adds from its dataset writer (whose manifest
	// counts both, see DuplicateCounter).
	Duplicates int64 `json:"duplicates_dropped"`
	// Errors counts every problem reported; FirstErrors holds the first ten.
	Errors      int64    `json:"errors"`
	FirstErrors []string `json:"first_errors"`
	// StoppedAtMaxGames says MaxGames ended the run before the input did.
	StoppedAtMaxGames bool    `json:"stopped_at_max_games"`
	Seconds           float64 `json:"seconds"`
}

// LineError reports a bad line in a file of labelled positions.
type LineError struct {
	Line   int
	Reason string
}

func (e *LineError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Reason) }
