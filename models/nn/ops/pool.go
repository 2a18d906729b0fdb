package ops

// maxArg keeps the larger of best[i] and v[i] with where it came from:
// where v[i] > best[i] (never for a NaN v[i]), best[i], bestAt[i] = v[i],
// vAt[i]. The comparisons fall at random, so this is written with vector
// blends (or, in plain Go, selects) rather than branches.
func maxArg(best []float32, bestAt []int32, v []float32, vAt []int32) {
	n := len(best)
	v, bestAt, vAt = v[:n], bestAt[:n], vAt[:n]
	i := 0
	if useAsm && n >= 8 {
		i = n &^ 7
		maxArg8(i, &best[0], &bestAt[0], &v[0], &vAt[0])
	}
	for ; i < n; i++ {
		if v[i] > best[i] {
			best[i], bestAt[i] = v[i], vAt[i]
		}
	}
}

// reluArg applies ReLU to v, letting NaN through so a diverged network
// shows in the loss, and marks with at[i] = -1 the values it zeroed.
func reluArg(v []float32, at []int32) {
	n := len(v)
	at = at[:n]
	i := 0
	if useAsm && n >= 8 {
		i = n &^ 7
		reluArg8(i, &v[0], &at[0])
	}
	for ; i < n; i++ {
		a := at[i]
		if !(v[i] > 0) {
			a = -1
		}
		at[i] = a
		v[i] = max(v[i], 0)
	}
}
