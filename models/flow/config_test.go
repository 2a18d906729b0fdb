package flow

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/dchess/dchess/configs"
)

// TestConfigFilesSpellOutTheModelSection: every key of Config is written
// in the flow configs, with no other, and configs/flow.yaml is exactly
// DefaultConfig.
func TestConfigFilesSpellOutTheModelSection(t *testing.T) {
	for _, name := range []string{"flow", "flow-small", "test/flow"} {
		data, err := configs.Read(name)
		if err != nil {
			t.Fatal(err)
		}
		var file struct {
			Model yaml.Node `yaml:"model"`
		}
		if err := yaml.Unmarshal(data, &file); err != nil {
			t.Fatal(err)
		}
		raw, err := yaml.Marshal(&file.Model)
		if err != nil {
			t.Fatal(err)
		}
		var section struct {
			Family string `yaml:"family"`
			Config `yaml:",inline"`
		}
		dec := yaml.NewDecoder(bytes.NewReader(raw))
		dec.KnownFields(true)
		if err := dec.Decode(&section); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		section.Config.Family = section.Family
		if err := section.Config.Validate(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if keys, want := len(file.Model.Content)/2, 1+len(yamlKeys(Config{})); keys != want {
			t.Errorf("%s: %d model keys, want family and Config's %d", name, keys, want-1)
		}
		if name == "flow" && section.Config != DefaultConfig() {
			t.Errorf("configs/flow.yaml is %+v, DefaultConfig %+v", section.Config, DefaultConfig())
		}
	}
}

// yamlKeys lists the keys v's struct fields take in a config file.
func yamlKeys(v any) []string {
	var keys []string
	for _, f := range reflect.VisibleFields(reflect.TypeOf(v)) {
		if k, _, _ := strings.Cut(f.Tag.Get("yaml"), ","); k != "-" && k != "" {
			keys = append(keys, k)
		}
	}
	return keys
}
