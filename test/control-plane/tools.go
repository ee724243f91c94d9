//go:build tools

// Package tools pins the control plane the tests run: kube-apiserver and kubectl from
// k8s.io/kubernetes, and etcd, built from the Go module proxy by test/support/go-tools.ts.
package tools

import (
	_ "go.etcd.io/etcd/server/v3"
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kubectl"
)
