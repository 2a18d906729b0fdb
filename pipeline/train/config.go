package train

import (
	"github.com/dchess/dchess/configs"
	"github.com/dchess/dchess/models/family"
)

// LoadConfig reads the config of a new run of the model family: the YAML
// file at path, or with path "" the built-in configs/<model>.yaml, the
// published setup. dchess train and pipeline run read theirs here.
func LoadConfig(path, model string) (*family.Config, error) {
	if path != "" {
		return family.LoadConfig(path, model)
	}
	data, err := configs.Read(model)
	if err != nil {
		return nil, err
	}
	return family.ParseConfig(data, model)
}
