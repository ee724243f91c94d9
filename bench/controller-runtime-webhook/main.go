// Command controller-runtime-webhook is the benchmark's peer as the operators run it: a validating
// webhook on controller-runtime v0.22.1 and k8s.io v0.34.1 (the Forkspacer operator's versions), served
// by controller-runtime's own webhook server (its TLS, certificate watcher, metrics and zap logging), that
// decodes the Module into a typed Go struct through the scheme's decoder and admits it: the least such
// a webhook does. HTTP/1.1 only, as kubebuilder's scaffold configures it and module-admission serves.
//
// Usage: controller-runtime-webhook CERT_DIR PORT
package main

import (
	"context"
	"crypto/tls"
	"fmt"
	"net/http"
	"os"
	"strconv"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/controller-runtime/pkg/webhook"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// admitAll is a CustomValidator that admits every Module it is given, once decoded.
type admitAll struct{}

func (admitAll) ValidateCreate(_ context.Context, obj runtime.Object) (admission.Warnings, error) {
	if _, ok := obj.(*Module); !ok {
		return nil, fmt.Errorf("expected a Module, got %T", obj)
	}
	return nil, nil
}

func (admitAll) ValidateUpdate(_ context.Context, _, newObj runtime.Object) (admission.Warnings, error) {
	if _, ok := newObj.(*Module); !ok {
		return nil, fmt.Errorf("expected a Module, got %T", newObj)
	}
	return nil, nil
}

func (admitAll) ValidateDelete(context.Context, runtime.Object) (admission.Warnings, error) {
	return nil, nil
}

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: controller-runtime-webhook CERT_DIR PORT")
		os.Exit(2)
	}
	port, err := strconv.Atoi(os.Args[2])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	// As kubebuilder's scaffold and the operator's main.go: zap, production mode (JSON, info and above).
	logf.SetLogger(zap.New(zap.UseDevMode(false)))
	scheme := runtime.NewScheme()
	groupVersion := schema.GroupVersion{Group: "batch.forkspacer.com", Version: "v1"}
	scheme.AddKnownTypes(groupVersion, &Module{})
	server := webhook.NewServer(webhook.Options{
		Host:    "127.0.0.1",
		Port:    port,
		CertDir: os.Args[1],
		TLSOpts: []func(*tls.Config){func(c *tls.Config) { c.NextProtos = []string{"http/1.1"} }},
	})
	server.Register("/validate-batch-forkspacer-com-v1-module", admission.WithCustomValidator(scheme, &Module{}, admitAll{}))
	server.Register("/readyz", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) }))
	if err := server.Start(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
