// Command oracles answers what the Forkspacer operator v0.1.24 does with an input, with the Go it is
// built with (Go 1.24.9: its Dockerfile builds FROM golang:1.24, which was 1.24.9 when v0.1.24 was
// cut) and the libraries its go.mod names: text/template with its FuncMap, its Module pipeline from
// CRD to install, net/url, robfig/cron v3.0.1, encoding/json and sigs.k8s.io/json numbers. The
// addon-operator oracle (addon-operator/, Go 1.26 as addon-operator's go.mod) answers the rest; the
// tests talk to both through test/support/go-oracle.ts, over the protocol of protocol/.
package main

import "module-admission/test/oracles/protocol"

func main() {
	protocol.Serve(map[string]protocol.Op{
		"template":   templateOp,
		"module":     moduleOp,
		"url":        urlOp,
		"cron":       cronOp,
		"jsonNumber": jsonNumberOp,
	})
}
