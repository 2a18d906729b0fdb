// Package transformer holds what the sequence families (models/diffusion,
// its one-step policy, models/flow) share beneath them: the network
// (Arch, a bidirectional transformer over action-state-action sequences),
// its Gorgonia training graph and loss (graph.go), its pure-Go forward
// pass for play (net.go), the decoder every player and evaluation reads,
// a_i's restriction to the legal moves, and the comparison of an imagined
// future with a true line. A family adds its own process (how tokens are
// corrupted and decoded) and config on top; this package imports none.
package transformer
