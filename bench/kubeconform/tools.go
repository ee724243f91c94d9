//go:build tools

// Package tools pins the kubeconform the benchmark compares `validate` with (bench/kubeconform.ts),
// built from the Go module proxy by test/support/go-tools.ts: a benchmark comparison, not a
// dependency of the product.
package tools

import (
	_ "github.com/yannh/kubeconform/cmd/kubeconform"
)
