package main

import (
	"encoding/json"
	"module-admission/test/oracles/protocol"

	"github.com/robfig/cron/v3"
)

// cronRequest: a schedule as the Forkspacer operator's Workspace webhook parses it
// (forkspacer/forkspacer v0.1.24 internal/webhook/v1/workspace_webhook.go:259-266): robfig/cron
// v3.0.1's parser with pkg/constants/cron/base.go's options, SecondOptional | Minute | Hour | Dom |
// Month | Dow | Descriptor.
type cronRequest struct {
	Spec string `json:"spec"`
}

type cronResult struct {
	Error string `json:"error,omitempty"`
}

var operatorCronParser = cron.NewParser(cron.SecondOptional | cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor)

func cronOp(raw json.RawMessage) (any, error) {
	req, err := protocol.Decode[cronRequest](raw)
	if err != nil {
		return nil, err
	}
	// robfig's parser panics on some specs ("TZ=UTC" without a schedule); the panic answers as one.
	if _, err := operatorCronParser.Parse(req.Spec); err != nil {
		return cronResult{Error: err.Error()}, nil
	}
	return cronResult{}, nil
}
