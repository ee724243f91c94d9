package main

import (
	"encoding/json"
	"module-admission/test/oracles/protocol"
	"strconv"

	kjson "sigs.k8s.io/json"
)

// jsonNumberRequest: one JSON number text, decoded the ways the Forkspacer operator decodes the
// numbers of a Module (forkspacer/forkspacer v0.1.24):
//   - into a Go int field by the webhook's decoder (sigs.k8s.io/json, as apimachinery's JSON
//     serializer decodes: an integer default, min or max of a config item, api/v1/module_types.go:400-406);
//   - into any by encoding/json (spec.config: GetValidatedConfig, module_types.go:747), a float64,
//     then int(v) for an integer item (module_types.go:429-430).
type jsonNumberRequest struct {
	Text string `json:"text"`
}

type jsonNumberResult struct {
	// IntError is the decoder's error for a Go int field; Int its value as decimal text.
	IntError string `json:"intError,omitempty"`
	Int      string `json:"int,omitempty"`
	// FloatError is encoding/json's error decoding into any; Float the float64's shortest text
	// (strconv 'g', as JSON marshals it) and Truncated int(float64) as decimal text.
	FloatError string `json:"floatError,omitempty"`
	Float      string `json:"float,omitempty"`
	Truncated  string `json:"truncated,omitempty"`
}

func jsonNumberOp(raw json.RawMessage) (any, error) {
	req, err := protocol.Decode[jsonNumberRequest](raw)
	if err != nil {
		return nil, err
	}
	r := jsonNumberResult{}
	var field struct {
		Default int `json:"default"`
	}
	if err := kjson.UnmarshalCaseSensitivePreserveInts([]byte(`{"default":`+req.Text+`}`), &field); err != nil {
		r.IntError = err.Error()
	} else {
		r.Int = strconv.Itoa(field.Default)
	}
	var v any
	if err := json.Unmarshal([]byte(req.Text), &v); err != nil {
		r.FloatError = err.Error()
	} else if f, ok := v.(float64); ok {
		r.Float = strconv.FormatFloat(f, 'g', -1, 64)
		r.Truncated = strconv.Itoa(int(f))
	}
	return r, nil
}
