package main

import (
	"encoding/json"
	"module-admission/test/oracles/protocol"
	"net/url"
)

// urlRequest: a URL text as url.Parse reads it (the Forkspacer operator parses
// spec.helm.chart.git.repo so: forkspacer/forkspacer v0.1.24 pkg/manager/helm.go:173) and as
// url.ParseRequestURI reads it (go-openapi strfmt's "uri" format, which lifecycle-manager's
// ModuleTemplate CRD puts on spec.resources[].link).
type urlRequest struct {
	Raw string `json:"raw"`
}

type urlResult struct {
	Error           string `json:"error,omitempty"`
	Scheme          string `json:"scheme,omitempty"`
	Opaque          string `json:"opaque,omitempty"`
	Host            string `json:"host,omitempty"`
	Path            string `json:"path,omitempty"`
	String          string `json:"string,omitempty"`
	RequestURIError string `json:"requestURIError,omitempty"`
}

func urlOp(raw json.RawMessage) (any, error) {
	req, err := protocol.Decode[urlRequest](raw)
	if err != nil {
		return nil, err
	}
	r := urlResult{}
	if u, err := url.Parse(req.Raw); err != nil {
		r.Error = err.Error()
	} else {
		r.Scheme, r.Opaque, r.Host, r.Path, r.String = u.Scheme, u.Opaque, u.Host, u.Path, u.String()
	}
	if _, err := url.ParseRequestURI(req.Raw); err != nil {
		r.RequestURIError = err.Error()
	}
	return r, nil
}
