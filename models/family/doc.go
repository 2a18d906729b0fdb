// Package family is the contract between dchess and its model families:
// the descriptor a family registers (Family), the config it is trained
// with (Config, its bounds and sizes), the objective it gives the training
// loop (Objective, with the Sink it streams examples into, the Net its
// graph returns and the Batch its Score reads), the registry, and where
// a family's trained weights are found (the runs folder, the shipped
// weights). docs/training.md ("Model families: the contract") says it in
// prose. It imports no family: each family's package imports it and
// registers itself when told to.
package family
