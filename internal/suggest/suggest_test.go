package suggest

import "testing"

func TestClosest(t *testing.T) {
	flags := []string{"games", "game-seed", "quiet", "report-every", "concurrency"}
	families := []string{"ann", "cnn", "diffusion", "experience", "flow", "heuristic", "nnue", "policy", "random", "siamese", "uci"}
	for _, c := range []struct {
		word       string
		candidates []string
		want       string
	}{
		{"gmaes", flags, "games"},
		{"game", flags, "games"}, // both start with it: the nearer wins
		{"quite", flags, "quiet"},
		{"report", flags, "report-every"},
		{"concurency", flags, "concurrency"},
		{"xyzzy", flags, ""},
		{"Games", flags, "games"},
		{"heur", families, "heuristic"}, // a prefix beats nnue, fewer edits away
		{"HEUR", families, "heuristic"},
		{"heuristc", families, "heuristic"},
		{"expirience", families, "experience"},
		{"cn", families, "cnn"},
		{"rnadom", families, "random"},
		{"nnu", families, "nnue"},
		{"chess", families, ""},
	} {
		if got := Closest(c.word, c.candidates); got != c.want {
			t.Errorf("Closest(%q) = %q, want %q", c.word, got, c.want)
		}
	}
}
