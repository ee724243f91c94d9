// Command go-decode-webhook is the benchmark's Go comparison: a webhook written with Go's standard
// library alone that does the least a controller-runtime webhook does for a review: it reads the
// body, decodes the AdmissionReview (the object kept as raw JSON, as runtime.RawExtension keeps it),
// decodes the object into its Go type, and answers allowed with the request's uid. Same TLS policy as
// module-admission: TLS 1.2 or newer, HTTP/1.1 only.
//
// Usage: go-decode-webhook CERT_DIR PORT
package main

import (
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

type admissionReview struct {
	APIVersion string             `json:"apiVersion"`
	Kind       string             `json:"kind"`
	Request    *admissionRequest  `json:"request,omitempty"`
	Response   *admissionResponse `json:"response,omitempty"`
}

type groupVersionKind struct {
	Group   string `json:"group"`
	Version string `json:"version"`
	Kind    string `json:"kind"`
}

type groupVersionResource struct {
	Group    string `json:"group"`
	Version  string `json:"version"`
	Resource string `json:"resource"`
}

type userInfo struct {
	Username string              `json:"username,omitempty"`
	UID      string              `json:"uid,omitempty"`
	Groups   []string            `json:"groups,omitempty"`
	Extra    map[string][]string `json:"extra,omitempty"`
}

type admissionRequest struct {
	UID       string               `json:"uid"`
	Kind      groupVersionKind     `json:"kind"`
	Resource  groupVersionResource `json:"resource"`
	Name      string               `json:"name,omitempty"`
	Namespace string               `json:"namespace,omitempty"`
	Operation string               `json:"operation"`
	UserInfo  userInfo             `json:"userInfo"`
	Object    json.RawMessage      `json:"object,omitempty"`
	OldObject json.RawMessage      `json:"oldObject,omitempty"`
	DryRun    *bool                `json:"dryRun,omitempty"`
	Options   json.RawMessage      `json:"options,omitempty"`
}

type admissionResponse struct {
	UID     string `json:"uid"`
	Allowed bool   `json:"allowed"`
}

// objectMeta is metav1.ObjectMeta's JSON (the fields a webhook's decode fills).
type objectMeta struct {
	Name              string            `json:"name,omitempty"`
	GenerateName      string            `json:"generateName,omitempty"`
	Namespace         string            `json:"namespace,omitempty"`
	UID               string            `json:"uid,omitempty"`
	ResourceVersion   string            `json:"resourceVersion,omitempty"`
	Generation        int64             `json:"generation,omitempty"`
	CreationTimestamp *time.Time        `json:"creationTimestamp,omitempty"`
	DeletionTimestamp *time.Time        `json:"deletionTimestamp,omitempty"`
	Labels            map[string]string `json:"labels,omitempty"`
	Annotations       map[string]string `json:"annotations,omitempty"`
	Finalizers        []string          `json:"finalizers,omitempty"`
	ManagedFields     []struct {
		Manager    string          `json:"manager,omitempty"`
		Operation  string          `json:"operation,omitempty"`
		APIVersion string          `json:"apiVersion,omitempty"`
		Time       *time.Time      `json:"time,omitempty"`
		FieldsType string          `json:"fieldsType,omitempty"`
		FieldsV1   json.RawMessage `json:"fieldsV1,omitempty"`
	} `json:"managedFields,omitempty"`
}

// module is the Forkspacer Module's Go type as its JSON decodes (api/v1 module_types.go's shape);
// free-form values (helm values, config values) stay raw, as runtime.RawExtension keeps them.
type module struct {
	APIVersion string     `json:"apiVersion"`
	Kind       string     `json:"kind"`
	Metadata   objectMeta `json:"metadata"`
	Config     []struct {
		Name    string          `json:"name"`
		Alias   string          `json:"alias"`
		Integer json.RawMessage `json:"integer,omitempty"`
		Boolean json.RawMessage `json:"boolean,omitempty"`
		String  json.RawMessage `json:"string,omitempty"`
		Option  json.RawMessage `json:"option,omitempty"`
		Options json.RawMessage `json:"multipleOptions,omitempty"`
	} `json:"config,omitempty"`
	Spec struct {
		Helm *struct {
			ReleaseName *string `json:"releaseName,omitempty"`
			Chart       struct {
				Repo *struct {
					URL     string `json:"url"`
					Chart   string `json:"chart"`
					Version string `json:"version,omitempty"`
				} `json:"repo,omitempty"`
				Git       json.RawMessage `json:"git,omitempty"`
				ConfigMap json.RawMessage `json:"configMap,omitempty"`
			} `json:"chart"`
			Namespace string `json:"namespace,omitempty"`
			Values    []struct {
				File      string          `json:"file,omitempty"`
				Raw       json.RawMessage `json:"raw,omitempty"`
				ConfigMap json.RawMessage `json:"configMap,omitempty"`
			} `json:"values,omitempty"`
			Outputs         json.RawMessage `json:"outputs,omitempty"`
			Cleanup         json.RawMessage `json:"cleanup,omitempty"`
			ExistingRelease json.RawMessage `json:"existingRelease,omitempty"`
		} `json:"helm,omitempty"`
		Custom    json.RawMessage `json:"custom,omitempty"`
		Workspace struct {
			Name      string `json:"name"`
			Namespace string `json:"namespace,omitempty"`
		} `json:"workspace"`
		Hibernated *bool                      `json:"hibernated,omitempty"`
		Config     map[string]json.RawMessage `json:"config,omitempty"`
	} `json:"spec"`
	Status json.RawMessage `json:"status,omitempty"`
}

func review(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 7<<20))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var in admissionReview
	if err := json.Unmarshal(body, &in); err != nil || in.Request == nil {
		http.Error(w, "not an AdmissionReview", http.StatusBadRequest)
		return
	}
	var object module
	raw := in.Request.Object
	if len(raw) == 0 || string(raw) == "null" {
		raw = in.Request.OldObject
	}
	if err := json.Unmarshal(raw, &object); err != nil {
		http.Error(w, "object: "+err.Error(), http.StatusBadRequest)
		return
	}
	out, _ := json.Marshal(admissionReview{
		APIVersion: "admission.k8s.io/v1",
		Kind:       "AdmissionReview",
		Response:   &admissionResponse{UID: in.Request.UID, Allowed: true},
	})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(out)))
	_, _ = w.Write(out)
}

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: go-decode-webhook CERT_DIR PORT")
		os.Exit(2)
	}
	dir := os.Args[1]
	pair, err := tls.LoadX509KeyPair(filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) })
	mux.HandleFunc("POST /", review)
	server := &http.Server{
		Handler:     mux,
		IdleTimeout: 90 * time.Second,
		TLSConfig: &tls.Config{
			Certificates: []tls.Certificate{pair},
			MinVersion:   tls.VersionTLS12,
			NextProtos:   []string{"http/1.1"},
		},
		// HTTP/1.1 only, as module-admission serves.
		TLSNextProto: map[string]func(*http.Server, *tls.Conn, http.Handler){},
	}
	listener, err := net.Listen("tcp", "127.0.0.1:"+os.Args[2])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("{\"msg\":\"listening\",\"port\":%d}\n", listener.Addr().(*net.TCPAddr).Port)
	if err := server.ServeTLS(listener, "", ""); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
