package transformer

import (
	"encoding/json"
	"fmt"

	"github.com/dchess/dchess/dataset/encode"
	"github.com/dchess/dchess/models/dcw"
)

// BiasOnlyTensors returns weights whose predictions are the output biases
// alone: the final layer norm's gain and bias are zero, so every action
// slot predicts by actionBias (UCI move → logit, 0 for the rest) and every
// state slot predicts stateWord. Tests of decoding and evaluation use them
// to know every prediction in advance.
func (t Arch) BiasOnlyTensors(actionBias map[string]float32, stateWord int) ([]dcw.Tensor, error) {
	params := t.InitParams(3)
	for i := range params {
		p := &params[i]
		switch p.Name {
		case "ln.g", "ln.b", "head.action.b":
			clear(p.Data)
		case "head.state.b":
			clear(p.Data)
			p.Data[stateWord] = 4
		}
		if p.Name != "head.action.b" {
			continue
		}
		for uci, logit := range actionBias {
			idx, ok := encode.ActionIndexUCI(uci)
			if !ok {
				return nil, fmt.Errorf("%s is not in the action vocabulary", uci)
			}
			p.Data[idx] = logit
		}
	}
	return params, nil
}

// BiasOnlyFile is a weights file of family (its architecture cfg, stored
// as JSON) holding BiasOnlyTensors: what the sequence families' bias-only
// test weights share.
func (c Arch) BiasOnlyFile(family string, cfg any, actionBias map[string]float32, stateWord int) (*dcw.File, error) {
	arch, err := json.Marshal(cfg)
	if err != nil {
		return nil, err
	}
	params, err := c.BiasOnlyTensors(actionBias, stateWord)
	if err != nil {
		return nil, err
	}
	return &dcw.File{Family: family, Arch: arch, Tensors: params}, nil
}
