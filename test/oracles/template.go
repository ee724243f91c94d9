package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"module-admission/test/oracles/protocol"
	"sort"
	"strconv"
	"strings"
	"text/template"
)

// templateRequest: a template text, parsed as the Forkspacer operator parses it
// (forkspacer/forkspacer v0.1.24 api/v1/module_types.go:853-858, renderInterface:
// template.New("").Funcs(getTemplateFuncMap()).Parse(val)) and, when data is given, executed with
// it (module_types.go:863-864) and read back as JSON (module_types.go:870-876).
type templateRequest struct {
	Text string `json:"text"`
	// Funcs are extra functions beyond Go's built-ins and randBase62, each returning its own name.
	Funcs []string `json:"funcs,omitempty"`
	// Data is decoded as the operator's data is typed: a whole number is a Go int (config integers
	// are ints: module_types.go:400,425-431), any other number a float64, objects map[string]any.
	Data json.RawMessage `json:"data,omitempty"`
	// Fill is the character randBase62 repeats (the operator's is random; a fixed fill makes runs
	// comparable). Default "a".
	Fill string `json:"fill,omitempty"`
	// MaxOutput caps the bytes written (default 256 MiB, more than a template recursing to Go's depth
	// limit writes in practice): a template that writes more fails with errOutputCap, so that no
	// request writes without end.
	MaxOutput int `json:"maxOutput,omitempty"`
}

type templateResult struct {
	ParseError string   `json:"parseError,omitempty"`
	Templates  []string `json:"templates,omitempty"`
	Executed   bool     `json:"executed,omitempty"`
	Output     *string  `json:"output,omitempty"`
	ExecError  string   `json:"execError,omitempty"`
	// JSONKind is what json.Unmarshal into any makes of the output (module_types.go:871-873):
	// "text" when it is not JSON, else null, boolean, number, string, array or object.
	JSONKind string `json:"jsonKind,omitempty"`
}

var errOutputCap = errors.New("oracle: output cap reached")

// cappedBuffer stops a template that writes more than its cap.
type cappedBuffer struct {
	bytes.Buffer
	cap int
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	if b.Len()+len(p) > b.cap {
		return 0, errOutputCap
	}
	return b.Buffer.Write(p)
}

// operatorFuncMap is the operator's FuncMap (module_types.go:657-667, getTemplateFuncMap): Go's
// built-ins plus randBase62(length uint) string. Its strings are random; here they repeat fill.
func operatorFuncMap(fill string, extra []string) template.FuncMap {
	if fill == "" {
		fill = "a"
	}
	m := template.FuncMap{"randBase62": func(length uint) string {
		if length > 1<<24 {
			// The operator would make a string this long; the oracle refuses to spend the memory.
			panic("oracle: randBase62 length above 2^24")
		}
		return strings.Repeat(fill, int(length))
	}}
	for _, name := range extra {
		m[name] = func() string { return name }
	}
	return m
}

func templateOp(raw json.RawMessage) (any, error) {
	req, err := protocol.Decode[templateRequest](raw)
	if err != nil {
		return nil, err
	}
	tmpl, err := template.New("").Funcs(operatorFuncMap(req.Fill, req.Funcs)).Parse(req.Text)
	if err != nil {
		return templateResult{ParseError: err.Error()}, nil
	}
	r := templateResult{}
	for _, t := range tmpl.Templates() {
		r.Templates = append(r.Templates, t.Name())
	}
	sort.Strings(r.Templates)
	if req.Data == nil {
		return r, nil
	}
	data, err := decodeIntData(req.Data)
	if err != nil {
		return nil, err
	}
	r.Executed = true
	out, execErr := execute(tmpl, data, req.MaxOutput)
	if execErr != nil {
		r.ExecError = execErr.Error()
		return r, nil
	}
	r.Output = &out
	r.JSONKind = jsonKindOf(out)
	return r, nil
}

// execute runs a parsed template as renderInterface does (module_types.go:863-868), into a
// buffer capped at maxOutput bytes (default 256 MiB).
func execute(tmpl *template.Template, data any, maxOutput int) (string, error) {
	if maxOutput <= 0 {
		maxOutput = 256 << 20
	}
	buf := &cappedBuffer{cap: maxOutput}
	if err := tmpl.Execute(buf, data); err != nil {
		return "", err
	}
	return buf.String(), nil
}

// jsonKindOf is what the operator's json.Unmarshal into any makes of a rendered string.
func jsonKindOf(rendered string) string {
	var v any
	if err := json.Unmarshal([]byte(rendered), &v); err != nil {
		return "text"
	}
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case float64:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	default:
		return "object"
	}
}

// decodeIntData decodes JSON with whole numbers as int (within int64), other numbers float64.
func decodeIntData(raw json.RawMessage) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return retype(v), nil
}

func retype(v any) any {
	switch x := v.(type) {
	case json.Number:
		if i, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			return int(i)
		}
		f, _ := x.Float64()
		return f
	case map[string]any:
		for k, e := range x {
			x[k] = retype(e)
		}
		return x
	case []any:
		for i, e := range x {
			x[i] = retype(e)
		}
		return x
	}
	return v
}
