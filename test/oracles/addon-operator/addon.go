package main

import (
	"encoding/json"
	"fmt"
	"module-admission/test/oracles/protocol"
	"sort"

	"github.com/go-openapi/spec"
	"github.com/go-openapi/strfmt"
	"github.com/go-openapi/swag"
	"github.com/go-openapi/validate"
	"sigs.k8s.io/yaml"
)

// addonValuesRequest: one module's config values, judged as addon-operator judges a ConfigMap
// section of an enabled module (flant/addon-operator 941fb064): the config-values schema loaded
// (pkg/values/validation/schemas.go:312-346, LoadSchemaFromBytes and PrepareSchemas' config
// branch), the schema's defaults under the user's values (pkg/module_manager/models/modules/
// values_storage.go:248-273, GenerateNewConfigValues), then validateObject (schemas.go:164-217):
// x-deckhouse-validations first, then go-openapi's validator.
type addonValuesRequest struct {
	// ConfigSchema is openapi/config-values.yaml's text.
	ConfigSchema string `json:"configSchema"`
	// Key is the values key (camelCase module name, or "global"): it starts every message.
	Key       string          `json:"key"`
	Values    json.RawMessage `json:"values"`
	OldValues json.RawMessage `json:"oldValues,omitempty"`
}

type addonValuesResult struct {
	LoadError string `json:"loadError,omitempty"`
	// Effective is the values validated: defaults under the user's values.
	Effective json.RawMessage `json:"effective,omitempty"`
	// CelError is cel.ValidateTransition's error (a malformed rule, a compile or evaluation
	// error): addon-operator refuses the values with it.
	CelError string `json:"celError,omitempty"`
	// Errors are the failed rules' messages, or go-openapi's, sorted.
	Errors []string `json:"errors,omitempty"`
	Valid  bool     `json:"valid"`
}

func addonValuesOp(raw json.RawMessage) (any, error) {
	req, err := protocol.Decode[addonValuesRequest](raw)
	if err != nil {
		return nil, err
	}
	schema, err := loadConfigSchema([]byte(req.ConfigSchema))
	if err != nil {
		return addonValuesResult{LoadError: err.Error()}, nil
	}
	var user map[string]any
	if err := json.Unmarshal(req.Values, &user); err != nil {
		return nil, fmt.Errorf("values: %w", err)
	}
	var old any
	if len(req.OldValues) > 0 {
		if err := json.Unmarshal(req.OldValues, &old); err != nil {
			return nil, fmt.Errorf("oldValues: %w", err)
		}
	}
	// mergeLayers({}, openapiDefaultsTransformer(config), configV) (values_storage.go:262-266):
	// ApplyDefaults on an empty map (values_defaulting_transformers.go:19-33), merged, then the
	// user's values merged over them (pkg/utils/mergemap.go).
	defaults := map[string]any{}
	applyDefaults(defaults, schema)
	effective := mergeMaps(mergeMaps(map[string]any{}, defaults), user)
	r := addonValuesResult{}
	r.Effective, _ = json.Marshal(effective)
	violations, err := celValidate(schema, effective, old)
	if err != nil {
		r.CelError = err.Error()
		return r, nil
	}
	if len(violations) > 0 {
		for _, v := range violations {
			r.Errors = append(r.Errors, v.Error())
		}
		sort.Strings(r.Errors)
		return r, nil
	}
	result := validate.NewSchemaValidator(schema, nil, req.Key, strfmt.Default).Validate(effective)
	for _, e := range result.Errors {
		r.Errors = append(r.Errors, e.Error())
	}
	sort.Strings(r.Errors)
	r.Valid = result.IsValid()
	return r, nil
}

// loadConfigSchema is LoadSchemaFromBytes (schemas.go:312-330: sigs.k8s.io/yaml into interface{},
// swag.YAMLToJSON, json into spec.Schema, spec.ExpandSchema with no base: a relative file $ref resolves
// against the working directory) and the AdditionalPropertiesTransformer PrepareSchemas applies to the
// config schema (schemas.go:342-345).
func loadConfigSchema(text []byte) (*spec.Schema, error) {
	var doc any
	if err := yaml.Unmarshal(text, &doc); err != nil {
		return nil, fmt.Errorf("yaml unmarshal: %v", err)
	}
	j, err := swag.YAMLToJSON(doc)
	if err != nil {
		return nil, fmt.Errorf("yaml to json: %v", err)
	}
	s := new(spec.Schema)
	if err := json.Unmarshal(j, s); err != nil {
		return nil, fmt.Errorf("json unmarshal: %v", err)
	}
	if err := spec.ExpandSchema(s, s, nil); err != nil {
		return nil, fmt.Errorf("expand schema: %v", err)
	}
	return closeSchema(s), nil
}

// closeSchema is AdditionalPropertiesTransformer.Transform (pkg/values/validation/schema/
// additional-properties.go:10-43): additionalProperties false wherever it is unset, at the root, in
// each property that has none set (and below it), and in items; never in combinators.
func closeSchema(s *spec.Schema) *spec.Schema {
	if s == nil {
		return nil
	}
	if s.AdditionalProperties == nil {
		s.AdditionalProperties = &spec.SchemaOrBool{Allows: false}
	}
	for k, prop := range s.Properties {
		if prop.AdditionalProperties == nil {
			prop.AdditionalProperties = &spec.SchemaOrBool{Allows: false}
			p := prop
			s.Properties[k] = *closeSchema(&p)
		}
	}
	if s.Items != nil {
		if s.Items.Schema != nil {
			s.Items.Schema = closeSchema(s.Items.Schema)
		}
		for i, item := range s.Items.Schemas {
			it := item
			s.Items.Schemas[i] = *closeSchema(&it)
		}
	}
	return s
}

// applyDefaults is validation.ApplyDefaults (pkg/values/validation/defaulting.go:16-71): a
// property's non-nil default fills an absent key (default: null is no default), then every key
// with a property schema is defaulted below; list items by items' single schema.
func applyDefaults(obj any, s *spec.Schema) {
	if s == nil {
		return
	}
	switch o := obj.(type) {
	case map[string]any:
		for k, prop := range s.Properties {
			if prop.Default == nil {
				continue
			}
			if _, found := o[k]; !found {
				o[k] = deepCopyJSON(prop.Default)
			}
		}
		for k, v := range o {
			if prop, found := s.Properties[k]; found {
				applyDefaults(v, &prop)
			}
		}
	case []any:
		if s.Items == nil {
			return
		}
		for _, v := range o {
			applyDefaults(v, s.Items.Schema)
		}
	}
}

// deepCopyJSON copies a JSON-decoded value (as runtime.DeepCopyJSONValue does for defaults).
func deepCopyJSON(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = deepCopyJSON(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = deepCopyJSON(e)
		}
		return out
	}
	return v
}

// mergeMaps is utils.MergeValues' mergeMap (pkg/utils/mergemap.go:11-38): src over dst, maps
// merged key by key (copied), anything else replaced.
func mergeMaps(dst, src map[string]any) map[string]any {
	for k, sv := range src {
		sm, sIsMap := sv.(map[string]any)
		if dv, ok := dst[k]; ok {
			if dm, dIsMap := dv.(map[string]any); dIsMap && sIsMap {
				dst[k] = mergeMaps(dm, sm)
				continue
			}
		}
		if sIsMap {
			dst[k] = deepCopyJSON(sm)
		} else {
			dst[k] = sv
		}
	}
	return dst
}
