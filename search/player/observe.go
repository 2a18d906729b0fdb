package player

import "context"

// FinishedGame is a game that has ended, as a learning player sees it.
type FinishedGame struct {
	// Position is the start and every move played.
	Position Position
	// Result is "1-0", "0-1" or "1/2-1/2".
	Result string
	// Termination says why it ended (the match runner's keys, such as
	// "checkmate" or "illegal_move"); "" when the caller does not know.
	Termination string
}

// GameObserver is implemented by players that learn from their games, such
// as the experience player with learn=true. Whoever runs a game calls
// GameOver once when it ends; an error means the player could not record
// it and the caller should stop.
type GameObserver interface {
	GameOver(ctx context.Context, game FinishedGame) error
}

// NotifyGameOver tells p that a game ended: p itself, or the first player
// inside its wrappers (name=, random-move rate) that observes games.
// Players that do not learn ignore it.
func NotifyGameOver(ctx context.Context, p Player, game FinishedGame) error {
	for p != nil {
		if o, ok := p.(GameObserver); ok {
			return o.GameOver(ctx, game)
		}
		u, ok := p.(interface{ Unwrap() Player })
		if !ok {
			return nil
		}
		p = u.Unwrap()
	}
	return nil
}
