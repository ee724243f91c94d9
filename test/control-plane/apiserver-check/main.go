// Command apiserver-check runs kube-apiserver's own validation of the API objects this project
// generates, without a server: CustomResourceDefinitions through apiextensions-apiserver's
// ValidateCustomResourceDefinition (structural schema, CEL compilation, type check and cost estimate
// against the server's limits) and ValidatingAdmissionPolicies through the admissionregistration
// validation (CEL compilation and type check). The objects are decoded and defaulted as the API server
// does before it validates them.
//
// Input: YAML or JSON documents on stdin. Output: a JSON array on stdout, one entry per document, with
// the server's field errors (type, field, detail and the message the API server would answer). Exit
// status 0 whether or not objects are invalid; 2 when the input cannot be read.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsinstall "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/install"
	crdvalidation "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/util/validation/field"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/kubernetes/pkg/apis/admissionregistration"
	admissionregistrationinstall "k8s.io/kubernetes/pkg/apis/admissionregistration/install"
	admissionvalidation "k8s.io/kubernetes/pkg/apis/admissionregistration/validation"
)

// fieldError is one of the server's field errors.
type fieldError struct {
	Type    string `json:"type"`
	Field   string `json:"field"`
	Detail  string `json:"detail"`
	Message string `json:"message"`
}

// result is the server's verdict on one document.
type result struct {
	Kind   string       `json:"kind"`
	Name   string       `json:"name"`
	Errors []fieldError `json:"errors"`
	// Message is what the API server answers a create with (kubectl prints it), empty when valid.
	Message string `json:"message,omitempty"`
	// Problem is set when the document is not an object this command checks.
	Problem string `json:"problem,omitempty"`
}

func main() {
	results, err := check(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, "apiserver-check:", err)
		os.Exit(2)
	}
	out := json.NewEncoder(os.Stdout)
	out.SetIndent("", "  ")
	if err := out.Encode(results); err != nil {
		fmt.Fprintln(os.Stderr, "apiserver-check:", err)
		os.Exit(2)
	}
}

func check(input io.Reader) ([]result, error) {
	scheme := runtime.NewScheme()
	apiextensionsinstall.Install(scheme)
	admissionregistrationinstall.Install(scheme)
	// Decodes any served version into the internal one, defaulted on the way, as the API server does.
	decoder := serializer.NewCodecFactory(scheme).UniversalDecoder()
	reader := utilyaml.NewYAMLReader(bufio.NewReader(input))
	results := []result{}
	for {
		document, err := reader.Read()
		if errors.Is(err, io.EOF) {
			return results, nil
		}
		if err != nil {
			return nil, err
		}
		data, err := utilyaml.ToJSON(document)
		if err != nil {
			return nil, err
		}
		if string(data) == "null" {
			continue
		}
		object, kind, err := decoder.Decode(data, nil, nil)
		if err != nil {
			results = append(results, result{Problem: err.Error()})
			continue
		}
		results = append(results, validate(object, kind))
	}
}

func validate(object runtime.Object, kind *schema.GroupVersionKind) result {
	var name string
	var errs field.ErrorList
	switch typed := object.(type) {
	case *apiextensions.CustomResourceDefinition:
		name = typed.Name
		errs = crdvalidation.ValidateCustomResourceDefinition(context.Background(), typed)
	case *admissionregistration.ValidatingAdmissionPolicy:
		name = typed.Name
		errs = admissionvalidation.ValidateValidatingAdmissionPolicy(typed)
	default:
		return result{Kind: kind.Kind, Problem: fmt.Sprintf("%s is not checked (CustomResourceDefinition, ValidatingAdmissionPolicy)", kind)}
	}
	out := result{Kind: kind.Kind, Name: name, Errors: []fieldError{}}
	for _, e := range errs {
		out.Errors = append(out.Errors, fieldError{Type: string(e.Type), Field: e.Field, Detail: e.Detail, Message: e.Error()})
	}
	if len(errs) > 0 {
		out.Message = apierrors.NewInvalid(kind.GroupKind(), name, errs).Error()
	}
	return out
}
