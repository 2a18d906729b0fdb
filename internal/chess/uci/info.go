package uci

import (
	"strconv"
	"strings"
)

// ScoreKind says what a Score's Value counts.
type ScoreKind uint8

const (
	ScoreNone ScoreKind = iota // the info line carried no score
	ScoreCP                    // centipawns
	ScoreMate                  // moves to mate; negative when the side to move is mated
)

// Bound says whether a score is exact or only a bound (from an aspiration
// window that failed): a bounded score is not the engine's verdict.
type Bound uint8

const (
	BoundExact Bound = iota
	BoundLower
	BoundUpper
)

// Score is an engine's evaluation from the side to move.
type Score struct {
	Kind  ScoreKind
	Value int32
	Bound Bound
}

// Info is one parsed "info" line. Fields the line did not carry are zero,
// except MultiPV, which is 1 when absent (the engine's only line).
type Info struct {
	Depth          int
	SelDepth       int
	MultiPV        int
	Score          Score
	Nodes          uint64
	NPS            uint64
	TimeMs         int64
	HashFull       int
	TBHits         uint64
	CPULoad        int
	PV             []string
	CurrMove       string
	CurrMoveNumber int
	// WDL is the win/draw/loss estimate in permille (UCI_ShowWDL), all zero when absent.
	WDL [3]int32
	// Text is the free text of "info string ...", which runs to the end of the line.
	Text string
}

// infoKeywords end a move list (pv, refutation, currline); any other token
// inside a move list is taken as a move.
var infoKeywords = map[string]bool{
	"depth": true, "seldepth": true, "time": true, "nodes": true, "pv": true, "multipv": true,
	"score": true, "currmove": true, "currmovenumber": true, "hashfull": true, "nps": true,
	"tbhits": true, "sbhits": true, "cpuload": true, "string": true, "refutation": true,
	"currline": true, "wdl": true,
}

// ParseInfo parses a UCI "info" line. It reports false for a line that is not
// an info line or whose known fields carry malformed numbers, so a garbled
// line is never mistaken for a score; unknown tokens are skipped, since
// engines add their own.
func ParseInfo(line string) (Info, bool) {
	tok := strings.Fields(line)
	if len(tok) == 0 || tok[0] != "info" {
		return Info{}, false
	}
	info := Info{MultiPV: 1}
	i := 1
	// next returns the value after the keyword at tok[i] and advances past it.
	next := func() (string, bool) {
		if i+1 >= len(tok) {
			return "", false
		}
		i += 2
		return tok[i-1], true
	}
	nonNegInt := func(v string) (int, bool) {
		n, err := strconv.ParseInt(v, 10, 32)
		return int(n), err == nil && n >= 0
	}
	uint64Of := func(v string) (uint64, bool) {
		n, err := strconv.ParseUint(v, 10, 64)
		return n, err == nil
	}
	moveList := func() []string {
		i++
		start := i
		for i < len(tok) && !infoKeywords[tok[i]] {
			i++
		}
		if i == start {
			return nil
		}
		return append([]string(nil), tok[start:i]...)
	}
	for i < len(tok) {
		var ok bool
		switch tok[i] {
		case "depth", "seldepth", "multipv", "hashfull", "cpuload", "currmovenumber":
			key := tok[i]
			var v string
			var n int
			if v, ok = next(); ok {
				n, ok = nonNegInt(v)
			}
			switch key {
			case "depth":
				info.Depth = n
			case "seldepth":
				info.SelDepth = n
			case "multipv":
				info.MultiPV = n
				ok = ok && n >= 1
			case "hashfull":
				info.HashFull = n
			case "cpuload":
				info.CPULoad = n
			case "currmovenumber":
				info.CurrMoveNumber = n
			}
		case "nodes", "nps", "tbhits", "sbhits":
			key := tok[i]
			var v string
			var n uint64
			if v, ok = next(); ok {
				n, ok = uint64Of(v)
			}
			switch key {
			case "nodes":
				info.Nodes = n
			case "nps":
				info.NPS = n
			case "tbhits":
				info.TBHits = n
			}
		case "time":
			var v string
			if v, ok = next(); ok {
				var err error
				info.TimeMs, err = strconv.ParseInt(v, 10, 64)
				ok = err == nil && info.TimeMs >= 0
			}
		case "currmove":
			info.CurrMove, ok = next()
		case "wdl":
			ok = i+3 < len(tok)
			for k := 0; ok && k < 3; k++ {
				n, err := strconv.ParseInt(tok[i+1+k], 10, 32)
				info.WDL[k] = int32(n)
				ok = err == nil && n >= 0
			}
			i += 4
		case "score":
			info.Score, ok = parseScore(tok, &i)
		case "pv":
			info.PV = moveList()
			ok = true
		case "refutation", "currline":
			moveList()
			ok = true
		case "string":
			info.Text = strings.Join(tok[i+1:], " ")
			i = len(tok)
			ok = true
		default:
			i++
			ok = true
		}
		if !ok {
			return Info{}, false
		}
	}
	return info, true
}

// parseScore reads "score (cp N | mate N) [lowerbound | upperbound]" from
// tok[*i] and leaves *i after it.
func parseScore(tok []string, i *int) (Score, bool) {
	var s Score
	*i++
	for *i < len(tok) {
		switch tok[*i] {
		case "cp", "mate":
			if *i+1 >= len(tok) || s.Kind != ScoreNone {
				return Score{}, false
			}
			n, err := strconv.ParseInt(tok[*i+1], 10, 32)
			if err != nil {
				return Score{}, false
			}
			s.Kind = ScoreCP
			if tok[*i] == "mate" {
				s.Kind = ScoreMate
			}
			s.Value = int32(n)
			*i += 2
		case "lowerbound":
			s.Bound = BoundLower
			*i++
		case "upperbound":
			s.Bound = BoundUpper
			*i++
		default:
			return s, s.Kind != ScoreNone
		}
	}
	return s, s.Kind != ScoreNone
}

// String formats the info as a UCI line ("info depth 8 ... pv e2e4 ..."),
// omitting zero fields; ParseInfo reads it back to the same Info. The
// engine side of the protocol writes its lines with it.
func (info Info) String() string {
	var b strings.Builder
	b.WriteString("info")
	num := func(key string, v int64) {
		if v != 0 {
			b.WriteString(" " + key + " " + strconv.FormatInt(v, 10))
		}
	}
	unum := func(key string, v uint64) {
		if v != 0 {
			b.WriteString(" " + key + " " + strconv.FormatUint(v, 10))
		}
	}
	num("depth", int64(info.Depth))
	num("seldepth", int64(info.SelDepth))
	if info.MultiPV > 1 {
		num("multipv", int64(info.MultiPV))
	}
	if info.Score.Kind != ScoreNone {
		kind := "cp"
		if info.Score.Kind == ScoreMate {
			kind = "mate"
		}
		b.WriteString(" score " + kind + " " + strconv.FormatInt(int64(info.Score.Value), 10))
		switch info.Score.Bound {
		case BoundLower:
			b.WriteString(" lowerbound")
		case BoundUpper:
			b.WriteString(" upperbound")
		}
	}
	if info.WDL != [3]int32{} {
		b.WriteString(" wdl " + strconv.Itoa(int(info.WDL[0])) + " " + strconv.Itoa(int(info.WDL[1])) + " " + strconv.Itoa(int(info.WDL[2])))
	}
	unum("nodes", info.Nodes)
	unum("nps", info.NPS)
	num("hashfull", int64(info.HashFull))
	unum("tbhits", info.TBHits)
	num("cpuload", int64(info.CPULoad))
	num("time", info.TimeMs)
	if info.CurrMove != "" {
		b.WriteString(" currmove " + info.CurrMove)
	}
	num("currmovenumber", int64(info.CurrMoveNumber))
	if len(info.PV) > 0 {
		b.WriteString(" pv " + strings.Join(info.PV, " "))
	}
	if info.Text != "" {
		b.WriteString(" string " + info.Text)
	}
	return b.String()
}
