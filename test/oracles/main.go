// Command oracle answers, over stdin and stdout, what Go and the Go libraries the operators run say
// about an input: one JSON request a line in, one JSON answer a line out, in order, for as long as
// stdin stays open. The project's TypeScript ports (src/go-template, src/go-net-url,
// src/robfig-cron, src/addon-operator, src/resources/module) are tested against it
// (test/support/go-oracle.ts is the client).
//
// A request is {"id": N, "op": "<op>", ...op fields}; its answer {"id": N, "result": {...}}, or
// {"id": N, "error": "..."} when the request itself is malformed. An op that panics answers
// {"id": N, "panic": "..."}; one that runs longer than the request's timeout (default 10 s)
// answers {"id": N, "timeout": true} and is left to finish in the background.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"time"
)

type request struct {
	ID      int64           `json:"id"`
	Op      string          `json:"op"`
	Timeout float64         `json:"timeoutSeconds,omitempty"`
	Raw     json.RawMessage `json:"-"`
}

type answer struct {
	ID      int64  `json:"id"`
	Result  any    `json:"result,omitempty"`
	Error   string `json:"error,omitempty"`
	Panic   string `json:"panic,omitempty"`
	Timeout bool   `json:"timeout,omitempty"`
}

// ops maps an op name to its handler, which decodes the request's own fields from raw.
var ops = map[string]func(raw json.RawMessage) (any, error){
	"version":     func(json.RawMessage) (any, error) { return map[string]string{"go": runtime.Version()}, nil },
	"template":    templateOp,
	"module":      moduleOp,
	"url":         urlOp,
	"cron":        cronOp,
	"jsonNumber":  jsonNumberOp,
	"yaml":        yamlOp,
	"configMap":   configMapOp,
	"addonValues": addonValuesOp,
	"cel":         celOp,
}

func main() {
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	out := bufio.NewWriterSize(os.Stdout, 1<<16)
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	for {
		line, err := in.ReadBytes('\n')
		if len(line) > 0 {
			if encodeErr := enc.Encode(handle(line)); encodeErr != nil {
				fmt.Fprintln(os.Stderr, "oracle: writing an answer:", encodeErr)
				os.Exit(1)
			}
			// Flush when no further request is already waiting: answers stream without a round trip each.
			if in.Buffered() == 0 {
				if flushErr := out.Flush(); flushErr != nil {
					os.Exit(1)
				}
			}
		}
		if err != nil {
			_ = out.Flush()
			return
		}
	}
}

func handle(line []byte) answer {
	var req request
	if err := json.Unmarshal(line, &req); err != nil {
		return answer{ID: -1, Error: "reading the request: " + err.Error()}
	}
	op, ok := ops[req.Op]
	if !ok {
		return answer{ID: req.ID, Error: fmt.Sprintf("unknown op %q", req.Op)}
	}
	timeout := 10 * time.Second
	if req.Timeout > 0 {
		timeout = time.Duration(req.Timeout * float64(time.Second))
	}
	done := make(chan answer, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- answer{ID: req.ID, Panic: fmt.Sprint(r)}
			}
		}()
		result, err := op(line)
		if err != nil {
			done <- answer{ID: req.ID, Error: err.Error()}
			return
		}
		done <- answer{ID: req.ID, Result: result}
	}()
	select {
	case a := <-done:
		return a
	case <-time.After(timeout):
		return answer{ID: req.ID, Timeout: true}
	}
}

// decode reads an op's fields from the request line.
func decode[T any](raw json.RawMessage) (T, error) {
	var v T
	err := json.Unmarshal(raw, &v)
	return v, err
}
