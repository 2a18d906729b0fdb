package pgn

// Result is a game's outcome from White's point of view.
type Result int8

const (
	ResultUnknown Result = iota // "*" or a game with no result tag
	WhiteWin                    // "1-0"
	BlackWin                    // "0-1"
	Draw                        // "1/2-1/2"
)

// String returns the PGN result token.
func (r Result) String() string {
	switch r {
	case WhiteWin:
		return "1-0"
	case BlackWin:
		return "0-1"
	case Draw:
		return "1/2-1/2"
	}
	return "*"
}

// ParseResult reads a PGN result token; anything else is ResultUnknown.
func ParseResult(s string) Result {
	switch s {
	case "1-0":
		return WhiteWin
	case "0-1":
		return BlackWin
	case "1/2-1/2":
		return Draw
	}
	return ResultUnknown
}
