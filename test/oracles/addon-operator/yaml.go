package main

import (
	"encoding/json"
	"fmt"
	"module-admission/test/oracles/protocol"

	yamlv3 "gopkg.in/yaml.v3"
	kyaml "sigs.k8s.io/kustomize/kyaml/yaml"
	"sigs.k8s.io/yaml"
)

// yamlRequest: a YAML text read by one of the Go readings the project models
// (src/go/yaml/dialects.ts, src/manifests/yaml-readings.ts):
//   - "sigs": sigs.k8s.io/yaml v1.6.0's Unmarshal into any, as kubectl apply -f and the operators
//     decode YAML (YAML 1.1 through goyaml.v2, then JSON);
//   - "yaml.v3": gopkg.in/yaml.v3 v3.0.1's Unmarshal into any, then encoding/json, as addon-operator
//     reads a ConfigMap module section before its JSON round trip (see configMapOp for the whole);
//   - "kyaml": sigs.k8s.io/kustomize/kyaml v0.20.1's Parse, then RNode.MarshalJSON, as kustomize
//     (kubectl -k, Flux, Argo CD) turns a resource into the JSON it sends.
type yamlRequest struct {
	Text   string `json:"text"`
	Reader string `json:"reader"`
}

type yamlResult struct {
	Error string          `json:"error,omitempty"`
	Value json.RawMessage `json:"value,omitempty"`
	// GoType is the Go type of the top-level value as decoded, before any JSON conversion
	// (int, uint64, float64, string, bool, time.Time, map[string]interface {}, ...).
	GoType string `json:"goType,omitempty"`
}

func yamlOp(raw json.RawMessage) (any, error) {
	req, err := protocol.Decode[yamlRequest](raw)
	if err != nil {
		return nil, err
	}
	var v any
	switch req.Reader {
	case "sigs":
		if err := yaml.Unmarshal([]byte(req.Text), &v); err != nil {
			return yamlResult{Error: err.Error()}, nil
		}
	case "yaml.v3":
		if err := yamlv3.Unmarshal([]byte(req.Text), &v); err != nil {
			return yamlResult{Error: err.Error()}, nil
		}
	case "kyaml":
		node, err := kyaml.Parse(req.Text)
		if err != nil {
			return yamlResult{Error: err.Error()}, nil
		}
		b, err := node.MarshalJSON()
		if err != nil {
			return yamlResult{Error: err.Error()}, nil
		}
		return yamlResult{Value: b}, nil
	default:
		return nil, fmt.Errorf("unknown reader %q", req.Reader)
	}
	r := yamlResult{GoType: fmt.Sprintf("%T", v)}
	b, err := json.Marshal(v)
	if err != nil {
		r.Error = "json: " + err.Error()
		return r, nil
	}
	r.Value = b
	return r, nil
}
