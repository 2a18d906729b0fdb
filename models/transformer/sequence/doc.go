// Package sequence holds what the sequence families (models/diffusion, its
// one-step policy, models/flow) share above models/family: the objective
// that trains the transformer on action-state-action lines (each family
// brings its own corruption), the line a record gives, and their
// descriptors' common parts (data, first run, training recipe, bounds,
// size, the player and its order= and steps= settings). models/family
// reads the decoder contract of models/transformer, so these cannot live
// there.
package sequence
