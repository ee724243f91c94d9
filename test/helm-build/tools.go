//go:build tools

// Package tools pins the helm the tests run, built from the Go module proxy by
// test/support/go-tools.ts (its own module: helm's dependency graph is not the control plane's).
package tools

import (
	_ "helm.sh/helm/v4/cmd/helm"
)
