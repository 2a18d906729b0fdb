// Package ingest turns PGN games and labelled FEN files into dataset
// records. Games are split from the byte stream by one goroutine, decoded
// on every core and written back in input order, so two runs over the same
// input give the same records, and memory stays flat because every stage
// talks through bounded channels.
package ingest

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/dchess/dchess/dataset"
)

// Format is the kind of input file.
type Format string

const (
	FormatPGN          Format = "pgn"
	FormatLichessEvals Format = "lichess-evals" // Lichess evaluation export, JSON lines
	FormatCSV          Format = "csv"           // FEN,Evaluation (the Kaggle Stockfish set)
	FormatEPD          Format = "epd"           // EPD with ce/dm, bm, pv operations (unscored lines stay unlabelled)
	FormatPuzzles      Format = "puzzles"       // Lichess puzzle CSV: the position to solve, unlabelled, the solution as its moves
	FormatPlain        Format = "plain"         // Stockfish's .plain training data
	FormatBinpack      Format = "binpack"       // Stockfish's .binpack training data
	FormatBullet       Format = "bullet"        // bullet's text lines: FEN | score | wdl
)

// Formats lists the input formats, PGN first.
var Formats = []Format{FormatPGN, FormatLichessEvals, FormatCSV, FormatEPD, FormatPuzzles, FormatPlain, FormatBinpack, FormatBullet}

// FormatNames lists the input formats' names, as --format takes them.
func FormatNames() []string {
	names := make([]string, len(Formats))
	for i, f := range Formats {
		names[i] = string(f)
	}
	return names
}

// ParseFormat reads a format name; "" means PGN.
func ParseFormat(s string) (Format, error) {
	f := Format(strings.ToLower(s))
	if f == "" {
		return FormatPGN, nil
	}
	if slices.Contains(Formats, f) {
		return f, nil
	}
	names := FormatNames()
	return "", fmt.Errorf("unknown format %q (want %s or %s)", s, strings.Join(names[:len(names)-1], ", "), names[len(names)-1])
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
	// MinElo keeps only games where both players are rated at least this
	// (puzzles: rated at least this).
	MinElo int
	// MaxElo keeps only games where both players are rated at most this
	// (0: no bound); a player without a rating does not pass it. Puzzles:
	// rated at most this.
	MaxElo int
	// TimeControl keeps only games whose TimeControl tag matches one item
	// of a comma-separated list ("": every game); see ParseTimeControls.
	TimeControl string
	// Termination keeps only games whose Termination tag is one of a
	// comma-separated list ("Normal,Time forfeit"), compared ignoring
	// case, spaces, '-' and '_' ("": every game).
	Termination string
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
	case o.PositionsPerGame < 0 || o.MinElo < 0 || o.MaxElo < 0 || o.MaxGames < 0 || o.Workers < 0:
		return fmt.Errorf("positions per game, min and max Elo, max games and workers must not be negative")
	case o.MaxElo > 0 && o.MaxElo < o.MinElo:
		return fmt.Errorf("max Elo %d is below min Elo %d", o.MaxElo, o.MinElo)
	}
	if _, err := ParseTimeControls(o.TimeControl); err != nil {
		return err
	}
	if o.Format != "" && o.Format != FormatPGN && (o.TimeControl != "" || o.Termination != "") {
		return fmt.Errorf("the time control and termination filters read a game's tags: they apply to PGN only, not to %s", o.Format)
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
	// Lines: labelled formats and puzzles. A puzzle the filters (rating,
	// ply, captures) leave out is filtered, not bad.
	LinesRead     int64 `json:"lines_read"`
	LinesKept     int64 `json:"lines_kept"`
	LinesBad      int64 `json:"lines_bad"`
	LinesFiltered int64 `json:"lines_filtered"`
	// Positions counts the records made, duplicates included.
	Positions int64 `json:"positions_written"`
	// Labelled counts those of them made with a label: every one of a
	// labelled format, in games those scored by an [%eval] comment.
	Labelled int64 `json:"positions_labelled"`
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

// TimeControls is a parsed time-control filter (nil keeps every game).
type TimeControls []timeControl

// timeControl is one item of the filter: an exact base+increment, a range
// of estimated durations, or correspondence.
type timeControl struct {
	exact          bool
	base, inc      int
	lo, hi         int // estimated seconds, hi < 0: no upper bound
	correspondence bool
}

// The Lichess speed categories by estimated duration, base + 40 × increment,
// in seconds: ultrabullet under 30, bullet under 180, blitz under 480,
// rapid under 1500, classical from 1500.
var timeCategories = map[string]timeControl{
	"ultrabullet": {lo: 0, hi: 29},
	"bullet":      {lo: 30, hi: 179},
	"blitz":       {lo: 180, hi: 479},
	"rapid":       {lo: 480, hi: 1499},
	"classical":   {lo: 1500, hi: -1},
}

// ParseTimeControls reads a time-control filter: a comma-separated list of
// exact controls as the TimeControl tag writes them (180+0, 600+5), the
// Lichess categories ultrabullet, bullet, blitz, rapid, classical (by the
// estimated duration base + 40 × increment, as Lichess sorts games),
// correspondence (a tag of "-", no clock, or days per move "1/259200"),
// and ranges of the estimated duration in seconds, MIN..MAX, either end
// open (..179, 1500..). "" keeps every game.
func ParseTimeControls(spec string) (TimeControls, error) {
	if strings.TrimSpace(spec) == "" {
		return nil, nil
	}
	var out TimeControls
	for _, item := range strings.Split(spec, ",") {
		item = strings.ToLower(strings.TrimSpace(item))
		if tc, ok := timeCategories[item]; ok {
			out = append(out, tc)
			continue
		}
		if item == "correspondence" {
			out = append(out, timeControl{correspondence: true})
			continue
		}
		if lo, hi, ok := strings.Cut(item, ".."); ok {
			tc := timeControl{hi: -1}
			var err1, err2 error
			if lo = strings.TrimSpace(lo); lo != "" {
				tc.lo, err1 = strconv.Atoi(lo)
			}
			if hi = strings.TrimSpace(hi); hi != "" {
				tc.hi, err2 = strconv.Atoi(hi)
			}
			if err1 != nil || err2 != nil || tc.lo < 0 || hi != "" && tc.hi < tc.lo || lo == "" && hi == "" {
				return nil, fmt.Errorf("time control %q: want a range of estimated seconds (base + 40 × increment) (180..479, ..179, 1500..)", item)
			}
			out = append(out, tc)
			continue
		}
		if base, inc, ok := parseBaseInc(item); ok {
			out = append(out, timeControl{exact: true, base: base, inc: inc})
			continue
		}
		return nil, fmt.Errorf("time control %q: want base+increment in seconds (180+2), a category (ultrabullet, bullet, blitz, rapid, classical, correspondence) or a range of estimated seconds (300..900)", item)
	}
	return out, nil
}

// parseBaseInc reads "180+2" as written in a TimeControl tag.
func parseBaseInc(s string) (base, inc int, ok bool) {
	b, i, found := strings.Cut(s, "+")
	if !found {
		return 0, 0, false
	}
	base, err1 := strconv.Atoi(b)
	inc, err2 := strconv.Atoi(i)
	if err1 != nil || err2 != nil || base < 0 || inc < 0 || b[0] == '+' || b[0] == '-' || i == "" || i[0] == '+' || i[0] == '-' {
		return 0, 0, false
	}
	return base, inc, true
}

// Match says whether a game's TimeControl tag passes the filter; a nil
// filter passes every game, a missing or unreadable tag passes none.
func (f TimeControls) Match(tag string) bool {
	if f == nil {
		return true
	}
	tag = strings.TrimSpace(tag)
	correspondence := tag == "-" || strings.Contains(tag, "/")
	base, inc, timed := parseBaseInc(tag)
	for _, tc := range f {
		switch {
		case tc.correspondence:
			if correspondence {
				return true
			}
		case !timed:
		case tc.exact:
			if base == tc.base && inc == tc.inc {
				return true
			}
		default:
			if est := base + 40*inc; est >= tc.lo && (tc.hi < 0 || est <= tc.hi) {
				return true
			}
		}
	}
	return false
}

// terminations is a parsed Termination filter: normalized names.
type terminations []string

func parseTerminations(spec string) terminations {
	var out terminations
	for _, item := range strings.Split(spec, ",") {
		if n := normalizeTermination(item); n != "" {
			out = append(out, n)
		}
	}
	return out
}

func normalizeTermination(s string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case ' ', '\t', '-', '_':
			return -1
		}
		return unicode.ToLower(r)
	}, s)
}

// match says whether a game's Termination tag passes (a nil filter passes all).
func (f terminations) match(tag string) bool {
	if f == nil {
		return true
	}
	return slices.Contains(f, normalizeTermination(tag))
}
