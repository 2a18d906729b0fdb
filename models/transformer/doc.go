// Package transformer holds what the sequence families (models/diffusion,
// its one-step policy, models/flow) share beneath them: the decoder every
// player and evaluation reads, a_i's restriction to the legal moves, and
// the comparison of an imagined future with a true line.
package transformer
