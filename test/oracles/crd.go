package main

import (
	"fmt"
	"os"
	"sync"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"
)

// operatorCRD is an operator's own CRD as the API server applies it to an object on CREATE, with the
// API server's own code at the operator's version (k8s.io/apiextensions-apiserver v0.34.1): the
// structural schema's defaults and pruning, then its OpenAPI validation (no CEL: the Forkspacer
// CRDs have none).
type operatorCRD struct {
	structural *structuralschema.Structural
	validator  apiservervalidation.SchemaValidator
}

var (
	crdCache   = map[string]*operatorCRD{}
	crdCacheMu sync.Mutex
)

// loadOperatorCRD reads a CRD file (its first version's schema), once per path.
func loadOperatorCRD(path string) (*operatorCRD, error) {
	crdCacheMu.Lock()
	defer crdCacheMu.Unlock()
	if c, ok := crdCache[path]; ok {
		return c, nil
	}
	text, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var crd apiextensionsv1.CustomResourceDefinition
	if err := yaml.Unmarshal(text, &crd); err != nil {
		return nil, err
	}
	if len(crd.Spec.Versions) == 0 || crd.Spec.Versions[0].Schema == nil {
		return nil, fmt.Errorf("%s: no schema", path)
	}
	var internal apiextensions.JSONSchemaProps
	if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(crd.Spec.Versions[0].Schema.OpenAPIV3Schema, &internal, nil); err != nil {
		return nil, err
	}
	structural, err := structuralschema.NewStructural(&internal)
	if err != nil {
		return nil, err
	}
	validator, _, err := apiservervalidation.NewSchemaValidator(&internal)
	if err != nil {
		return nil, err
	}
	c := &operatorCRD{structural: structural, validator: validator}
	crdCache[path] = c
	return c, nil
}

// admit defaults and prunes the object as the API server decodes it, and validates it: the errors,
// worded as the API server words them, or none.
func (c *operatorCRD) admit(object map[string]any) []string {
	structuraldefaulting.Default(object, c.structural)
	pruning.Prune(object, c.structural, true)
	errs := apiservervalidation.ValidateCustomResource(field.NewPath(""), object, c.validator)
	var out []string
	for _, e := range errs {
		out = append(out, e.Error())
	}
	return out
}
