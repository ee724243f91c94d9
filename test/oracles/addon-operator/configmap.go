package main

import (
	"encoding/json"
	"fmt"
	"module-admission/test/oracles/protocol"
	"strings"

	"github.com/ettle/strcase"
	yamlv3 "gopkg.in/yaml.v3"
	"sigs.k8s.io/yaml"
)

// configMapRequest: the data of ConfigMap/addon-operator, read as addon-operator reads it
// (flant/addon-operator 941fb064 pkg/kube_config_manager/backend/configmap/configmap.go:142-297,
// parseConfigMapData and what it calls).
type configMapRequest struct {
	Data map[string]string `json:"data"`
}

type configMapModule struct {
	Values      json.RawMessage `json:"values,omitempty"`
	Enabled     *bool           `json:"enabled,omitempty"`
	Maintenance string          `json:"maintenance,omitempty"`
}

type configMapResult struct {
	Error   string                     `json:"error,omitempty"`
	Global  json.RawMessage            `json:"global,omitempty"`
	Modules map[string]configMapModule `json:"modules,omitempty"`
}

func configMapOp(raw json.RawMessage) (any, error) {
	req, err := protocol.Decode[configMapRequest](raw)
	if err != nil {
		return nil, err
	}
	r, err := readConfigMap(req.Data)
	if err != nil {
		return configMapResult{Error: err.Error()}, nil
	}
	return r, nil
}

// valuesKey / moduleName are utils.ModuleNameToValuesKey and ModuleNameFromValuesKey
// (pkg/utils/values.go:27-34): ettle/strcase's ToCamel and ToKebab.
func valuesKey(module string) string { return strcase.ToCamel(module) }
func moduleName(key string) string   { return strcase.ToKebab(key) }

func readConfigMap(data map[string]string) (configMapResult, error) {
	r := configMapResult{Modules: map[string]configMapModule{}}
	// getGlobalKubeConfigFromConfigData (configmap.go:168-185) -> utils.NewGlobalValues
	// (pkg/utils/values.go:65-74): sigs.k8s.io/yaml into map[string]interface{}.
	if text, ok := data["global"]; ok {
		var section map[string]any
		if err := yaml.Unmarshal([]byte(text), &section); err != nil {
			return r, fmt.Errorf("ConfigMap: bad yaml at key 'global': global section is not compatible with JSON and YAML: %s", err)
		}
		b, err := json.Marshal(section)
		if err != nil {
			return r, err
		}
		r.Global = b
	}
	// getModulesNamesFromConfigData (configmap.go:189-212): the Enabled and Maintenance suffixes
	// trimmed, then each key must come back from kebab to camel case unchanged.
	names := map[string]bool{}
	for key := range data {
		if key == "global" {
			continue
		}
		key = strings.TrimSuffix(key, "Enabled")
		key = strings.TrimSuffix(key, "Maintenance")
		name := moduleName(key)
		if valuesKey(name) != key {
			return r, fmt.Errorf("bad module name '%s': should be camelCased", key)
		}
		names[name] = true
	}
	for name := range names {
		m, err := readModuleSection(name, data)
		if err != nil {
			return r, fmt.Errorf("bad yaml at key '%s': %s", valuesKey(name), err)
		}
		r.Modules[name] = m
	}
	return r, nil
}

// readModuleSection is fromConfigMapData (configmap.go:241-297) and ModuleConfig.LoadFromValues
// (pkg/utils/module_config.go:138-175): the section by gopkg.in/yaml.v3 into interface{}; a map or a
// list goes through utils.NewValues (pkg/utils/values.go:50-62: sigs.k8s.io/yaml Marshal, then
// Unmarshal), anything else (a scalar, null, an empty or comment-only text) is refused.
func readModuleSection(name string, data map[string]string) (configMapModule, error) {
	key := valuesKey(name)
	var m configMapModule
	if text, ok := data[key]; ok {
		var section any
		if err := yamlv3.Unmarshal([]byte(text), &section); err != nil {
			return m, fmt.Errorf("unmarshal yaml data in a module config key '%s': %v", key, err)
		}
		switch section.(type) {
		case map[string]any, []any:
		default:
			return m, fmt.Errorf("load '%s' values: module config should be array or map. Got: %T", name, section)
		}
		doc, err := yaml.Marshal(map[string]any{key: section})
		if err != nil {
			return m, fmt.Errorf("data is not compatible with JSON and YAML: %s", err)
		}
		var values map[string]any
		if err := yaml.Unmarshal(doc, &values); err != nil {
			return m, fmt.Errorf("convert data YAML to values: %s", err)
		}
		if m.Values, err = json.Marshal(values[key]); err != nil {
			return m, err
		}
	}
	if text, ok := data[key+"Enabled"]; ok {
		switch text {
		case "true", "false":
			enabled := text == "true"
			m.Enabled = &enabled
		default:
			return m, fmt.Errorf("module enabled key '%sEnabled' should have a boolean value, got '%v'", key, text)
		}
	}
	if text, ok := data[key+"Maintenance"]; ok {
		switch text {
		case "NoResourceReconciliation", "noresourcereconciliation":
			m.Maintenance = "NoResourceReconciliation"
		case "":
			m.Maintenance = "Managed"
		default:
			return m, fmt.Errorf("module maintenanceState key '%sMaintenance' can only take 'NoResourceReconciliation', 'noresourcereconciliation' or '' values, got '%v'", key, text)
		}
	}
	return m, nil
}
