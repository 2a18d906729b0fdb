// Package configs embeds dchess's YAML configs in the binary, so `dchess
// train --model ann` works outside the repository.
package configs

import (
	"embed"
	"fmt"
)

// FS holds every config: <model>.yaml (the thesis defaults), <model>-wide.yaml
// (stronger variants) and test/<model>.yaml (tiny sizes for tests).
//
//go:embed *.yaml test/*.yaml
var FS embed.FS

// Read returns the embedded config called name (without .yaml), e.g. "ann"
// or "test/cnn".
func Read(name string) ([]byte, error) {
	data, err := FS.ReadFile(name + ".yaml")
	if err != nil {
		return nil, fmt.Errorf("no embedded config %q", name)
	}
	return data, nil
}
