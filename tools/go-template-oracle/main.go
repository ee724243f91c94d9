// Command go-template-oracle parses each case of a fidelity table with Go's own text/template, the
// way the Forkspacer operator does (template.New("").Funcs(funcMap).Parse(text), then Execute),
// and prints Go's verdict as JSON. The TypeScript parser in src/go-template is tested against it.
//
// Input (stdin): {"cases": [{"name": "...", "text": "...", "funcs": ["extra"], "data": {...}}]}.
// Data is decoded as the operator's data is typed: a whole JSON number becomes an int (the operator's
// config integers are Go ints), any other number a float64, objects map[string]any, lists []any.
// Output (stdout): {"goVersion": "...", "results": {"<name>": {"ok": bool, "error": "...",
// "templates": [...], "output": "...", "execError": "...", "json": "<kind>"}}}.
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"sort"
	"strconv"
	"text/template"
)

type testCase struct {
	Name  string         `json:"name"`
	Text  string         `json:"text"`
	Funcs []string       `json:"funcs,omitempty"`
	Data  json.RawMessage `json:"data,omitempty"`
}

type result struct {
	OK        bool     `json:"ok"`
	Error     string   `json:"error,omitempty"`
	Templates []string `json:"templates,omitempty"`
	Output    *string  `json:"output,omitempty"`
	ExecError string   `json:"execError,omitempty"`
	JSON      string   `json:"json,omitempty"`
}

// funcMap is the operator's: Go's built-ins plus randBase62 (api/v1/module_types.go).
func funcMap(extra []string) template.FuncMap {
	// randBase62 gives a string of the requested length, as the operator's does; here all "a"s,
	// so that outputs are reproducible (the TypeScript side is run with the same fill).
	m := template.FuncMap{"randBase62": func(length uint) string {
		b := make([]byte, length)
		for i := range b {
			b[i] = 'a'
		}
		return string(b)
	}}
	for _, name := range extra {
		m[name] = func() string { return name }
	}
	return m
}

// jsonKind is what the operator's json.Unmarshal into `any` makes of a rendered string.
func jsonKind(rendered string) string {
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

func run(c testCase) result {
	tmpl, err := template.New("").Funcs(funcMap(c.Funcs)).Parse(c.Text)
	if err != nil {
		return result{Error: err.Error()}
	}
	r := result{OK: true}
	for _, t := range tmpl.Templates() {
		r.Templates = append(r.Templates, t.Name())
	}
	sort.Strings(r.Templates)
	if c.Data != nil {
		data, err := decodeData(c.Data)
		if err != nil {
			return result{Error: "data: " + err.Error()}
		}
		var buf bytes.Buffer
		if err := tmpl.Execute(&buf, data); err != nil {
			r.ExecError = err.Error()
		} else {
			out := buf.String()
			r.Output = &out
			r.JSON = jsonKind(out)
		}
	}
	return r
}

// decodeData decodes JSON with whole numbers as int, as the operator's config holds them.
func decodeData(raw json.RawMessage) (any, error) {
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

func main() {
	var input struct {
		Cases []testCase `json:"cases"`
	}
	if err := json.NewDecoder(os.Stdin).Decode(&input); err != nil {
		fmt.Fprintln(os.Stderr, "reading cases:", err)
		os.Exit(1)
	}
	results := make(map[string]result, len(input.Cases))
	for _, c := range input.Cases {
		if _, dup := results[c.Name]; dup {
			fmt.Fprintln(os.Stderr, "duplicate case name:", c.Name)
			os.Exit(1)
		}
		results[c.Name] = run(c)
	}
	out := struct {
		GoVersion string            `json:"goVersion"`
		Results   map[string]result `json:"results"`
	}{runtime.Version(), results}
	enc := json.NewEncoder(os.Stdout)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		fmt.Fprintln(os.Stderr, "writing results:", err)
		os.Exit(1)
	}
}
