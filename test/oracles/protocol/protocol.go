// Package protocol is the Go oracles' conversation with the tests (test/support/go-oracle.ts): one JSON
// request a line on stdin, one JSON answer a line on stdout, in order, for as long as stdin stays open.
//
// A request is {"id": N, "op": "<op>", ...op fields}; its answer {"id": N, "result": {...}}, or
// {"id": N, "error": "..."} when the request itself is malformed. An op that panics answers
// {"id": N, "panic": "..."}; one that runs longer than the request's timeout (default 10 s)
// answers {"id": N, "timeout": true} and is left to finish in the background.
package protocol

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"time"
)

// Op answers one request: it decodes its own fields from the request line.
type Op func(line json.RawMessage) (any, error)

type request struct {
	ID      int64   `json:"id"`
	Op      string  `json:"op"`
	Timeout float64 `json:"timeoutSeconds,omitempty"`
}

type answer struct {
	ID      int64  `json:"id"`
	Result  any    `json:"result,omitempty"`
	Error   string `json:"error,omitempty"`
	Panic   string `json:"panic,omitempty"`
	Timeout bool   `json:"timeout,omitempty"`
}

// Serve answers requests with ops (and "version": the Go that built the oracle) until stdin closes.
func Serve(ops map[string]Op) {
	ops["version"] = func(json.RawMessage) (any, error) { return map[string]string{"go": runtime.Version()}, nil }
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	out := bufio.NewWriterSize(os.Stdout, 1<<16)
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	for {
		line, err := in.ReadBytes('\n')
		if len(line) > 0 {
			if encodeErr := enc.Encode(handle(ops, line)); encodeErr != nil {
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

func handle(ops map[string]Op, line []byte) answer {
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

// Decode reads an op's fields from the request line.
func Decode[T any](line json.RawMessage) (T, error) {
	var v T
	err := json.Unmarshal(line, &v)
	return v, err
}
