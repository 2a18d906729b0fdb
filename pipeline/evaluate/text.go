package evaluate

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/dchess/dchess/dataset/encode"
)

// Text is the result as dchess eval --fen prints it: the move, its score
// and line when the player gives them, and the explained evaluation.
func (r *FENResult) Text() string {
	var w strings.Builder
	fmt.Fprintf(&w, "Move: %s (%s)\n", r.SAN, r.Move)
	if r.Scored {
		var score string
		if r.Mate != nil {
			score = fmt.Sprintf("mate in %d", *r.Mate)
		} else {
			score = fmt.Sprintf("%+.2f", float64(*r.CP)/100)
		}
		fmt.Fprintf(&w, "Score: %s (side to move), depth %d, %d nodes\n", score, r.Depth, r.Nodes)
	}
	if len(r.PV) > 0 {
		fmt.Fprintf(&w, "Line: %s\n", strings.Join(r.PV, " "))
	}
	if bd := r.Explain; bd != nil {
		fmt.Fprintf(&w, "\nStatic evaluation, centipawns from White's view (phase %.2f: 1 opening, 0 endgame):\n", bd.Phase)
		tw := tabwriter.NewWriter(&w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "component\tmiddlegame\tendgame\tblended\t")
		for _, c := range bd.Components() {
			fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t\n", c.Name, c.MG, c.EG, c.Blended)
		}
		tw.Flush()
	}
	return w.String()
}

// Text is the report's line as dchess eval --epd prints it.
func (r *EPDReport) Text() string {
	return fmt.Sprintf("%s solved %d of %d (%.1f %%)\n", r.Player, r.Solved, r.Total, 100*float64(r.Solved)/float64(r.Total))
}

// Text is the report as dchess eval --puzzles prints it: the share solved,
// then a table by rating bucket.
func (r *PuzzleReport) Text() string {
	var w strings.Builder
	fmt.Fprintf(&w, "%s: solved %d of %d puzzles (%.1f%%), %.1f ms per move\n", r.Player, r.Solved, r.Puzzles, 100*r.Rate, r.MsPerMove)
	tw := tabwriter.NewWriter(&w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "rating\tpuzzles\tsolved\t%\t")
	for _, bk := range r.Buckets {
		fmt.Fprintf(tw, "%d-%d\t%d\t%d\t%.1f\t\n", bk.From, bk.To(), bk.Puzzles, bk.Solved, 100*bk.Rate)
	}
	tw.Flush()
	return w.String()
}

// Text is the report's line as dchess eval --data --pairs prints it.
func (r *PairReport) Text() string {
	ties := ""
	if r.Ties > 0 {
		ties = fmt.Sprintf("; %d ties scored as half", r.Ties)
	}
	return fmt.Sprintf("%s: pair accuracy %.1f%% (%g of %d %s pairs: one position from a game White won, one from a game Black won%s)\n",
		r.Player, 100*r.Accuracy, r.Correct, r.Pairs, r.Split, ties)
}

// Text is the report as dchess eval --data prints it: the action
// accuracy, the static evaluation against Stockfish's win probability, a
// sequence player's decoding, and the --steps table.
func (r *DataReport) Text() string {
	var w strings.Builder
	fmt.Fprintf(&w, "%s: action accuracy %.1f%% (%d of %d %s positions play Stockfish's best move), %.1f ms per move\n",
		r.Player, 100*r.Accuracy, r.Correct, r.Positions, r.Split, r.MsPerMove)
	if v := r.Value; v != nil {
		fmt.Fprintf(&w, "static evaluation against Stockfish's win probability: MSE %.5f, sign agreement %.1f%%, within 0.1 %.1f%% (%d positions)\n",
			v.MSE, 100*v.SignAgreement, 100*v.Within01, v.Positions)
		if q := v.Quiet; q != nil {
			fmt.Fprintf(&w, "  on the quiet ones (not in check, best move not a capture): MSE %.5f, sign agreement %.1f%%, within 0.1 %.1f%% (%d positions)\n",
				q.MSE, 100*q.SignAgreement, 100*q.Within01, q.Positions)
		}
	}
	if d := r.Decoding; d != nil {
		d.writeText(&w)
	}
	if len(r.Sweep) > 0 {
		writeSweep(&w, r.Sweep)
	}
	return w.String()
}

// writeText writes the decoder's lines under the accuracy line.
func (d *DecodingReport) writeText(w io.Writer) {
	trivially := ""
	if d.LegalMask {
		trivially = " (trivially: trained with legal_mask, the model's a_i is over the legal moves only)"
	}
	fmt.Fprintf(w, "decoding with T = %d: the unrestricted a_i (argmax over all %d moves) is legal in %.1f%% (%d of %d)%s\n",
		d.Steps, encode.ActionVocab, 100*d.UnrestrictedLegalRate, d.UnrestrictedLegal, d.Positions, trivially)
	fmt.Fprintf(w, "cross-entropy of Stockfish's move over the legal moves: %.3f nats (a uniform choice among them: %.3f)\n",
		d.LegalCrossEntropy, d.UniformLegalCrossEntropy)
	im := d.Imagined
	if im == nil {
		return
	}
	all, given := im.All, im.GivenActionRight
	fmt.Fprintf(w, "imagined s_{i+1} after Stockfish's a_i: %.1f%% of its %d tokens right, whole block exact in %.1f%% (%d of %d)\n",
		100*all.StateTokenAccuracy, encode.StateLen, 100*all.StateExactRate, all.StateExact, all.StatePositions)
	fmt.Fprintf(w, "  when a_i is right: %.1f%% of tokens, exact in %.1f%% (%d of %d)\n",
		100*given.StateTokenAccuracy, 100*given.StateExactRate, given.StateExact, given.StatePositions)
	wrong := given.StateWrong
	fmt.Fprintf(w, "  its wrong tokens: %d on a_i's origin square, %d on its destination, %d on other squares, %d side to move, castling or en passant\n",
		wrong.Origin, wrong.Destination, wrong.OtherSquares, wrong.SideCastlingPassant)
	fmt.Fprintf(w, "imagined a_{i+1}: %.1f%% is Stockfish's second move (%d of %d); when a_i is right: %.1f%% (%d of %d)\n",
		100*all.NextActionAccuracy, all.NextActionCorrect, all.NextActionPositions,
		100*given.NextActionAccuracy, given.NextActionCorrect, given.NextActionPositions)
}

// writeSweep writes the --steps table, a row for each T.
func writeSweep(w io.Writer, rows []DecodingReport) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "T\taction %\tms/move\tlegal a_i %\ts_{i+1} tokens %\ts_{i+1} exact %\ta_{i+1} %\t")
	for _, d := range rows {
		state, exact, next := "-", "-", "-"
		if im := d.Imagined; im != nil {
			state = fmt.Sprintf("%.1f", 100*im.All.StateTokenAccuracy)
			exact = fmt.Sprintf("%.1f", 100*im.All.StateExactRate)
			next = fmt.Sprintf("%.1f", 100*im.All.NextActionAccuracy)
		}
		fmt.Fprintf(tw, "%d\t%.1f\t%.1f\t%.1f\t%s\t%s\t%s\t\n", d.Steps, 100*d.Accuracy, d.MsPerMove,
			100*d.UnrestrictedLegalRate, state, exact, next)
	}
	tw.Flush()
	if rows[0].LegalMask {
		fmt.Fprintln(w, "legal a_i is 100% by construction: the model was trained with legal_mask")
	}
}
