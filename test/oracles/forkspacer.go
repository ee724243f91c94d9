package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"module-admission/test/oracles/protocol"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"text/template"

	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/validation"
	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

// moduleRequest: a Module as stored (after the CRD's defaults), judged as the Forkspacer operator
// v0.1.24 judges it on CREATE and then installs it, as far as the object alone decides.
type moduleRequest struct {
	Module json.RawMessage `json:"module"`
	// OperatorCRD is the path of the operator's Module CRD: when given, the API server's own CRD
	// handling (defaults, pruning, validation: crd.go) runs first, as on the way to the webhook.
	OperatorCRD string `json:"operatorCrd,omitempty"`
	// Fill: what randBase62 repeats (see templateRequest.Fill).
	Fill string `json:"fill,omitempty"`
}

// moduleResult: the first step that fails, in the operator's order, with its error text (crd: the
// operator's CRD; decode, webhook: its webhook; adopt, render, install: its controller); Stage is ""
// when every step the object decides passes. Rendered is the rendered spec.helm or
// spec.custom, as the operator holds it after rendering.
type moduleResult struct {
	Stage string `json:"stage,omitempty"`
	Error string `json:"error,omitempty"`
	// ForkError: for an adopted release (nothing rendered at install), where forking its Workspace
	// fails: internal/controller/workspace_fork.go:153-156 (migrateModuleData renders the source
	// Module) and the fork's copy, without existingRelease, rendered and installed like any Module.
	ForkError string          `json:"forkError,omitempty"`
	Config    map[string]any  `json:"config,omitempty"`
	Rendered  json.RawMessage `json:"rendered,omitempty"`
}

func moduleOp(line json.RawMessage) (any, error) {
	req, err := protocol.Decode[moduleRequest](line)
	if err != nil {
		return nil, err
	}
	raw := req.Module
	if req.OperatorCRD != "" {
		crd, err := loadOperatorCRD(req.OperatorCRD)
		if err != nil {
			return nil, err
		}
		// The API server's decoding: whole numbers that fit become int64, others float64.
		var object map[string]any
		if err := utiljson.Unmarshal(raw, &object); err != nil {
			return nil, err
		}
		if errs := crd.admit(object); len(errs) > 0 {
			return moduleResult{Stage: "crd", Error: strings.Join(errs, "; ")}, nil
		}
		if raw, err = json.Marshal(object); err != nil {
			return nil, err
		}
	}
	return judgeModule(raw, req.Fill), nil
}

func judgeModule(raw json.RawMessage, fill string) moduleResult {
	// 1. The webhook's decoder (controller-runtime admission.Decoder -> apimachinery's JSON
	// serializer, which calls sigs.k8s.io/json's UnmarshalCaseSensitivePreserveInts, non-strict):
	// a value that does not fit its Go field (an integer default beyond int64, a string where a
	// bool goes) refuses the object.
	var m Module
	if err := kjson.UnmarshalCaseSensitivePreserveInts(raw, &m); err != nil {
		return moduleResult{Stage: "decode", Error: err.Error()}
	}
	// 2. The validating webhook on CREATE (internal/webhook/v1/module_webhook.go:173-199): the
	// workspace lookup (a cluster read, not modelled), exactly one chart source (:229-267), then
	// GetValidatedConfig (:269-282).
	if h := m.Spec.Helm; h != nil {
		sources := 0
		for _, set := range []bool{h.Chart.Repo != nil, h.Chart.ConfigMap != nil, h.Chart.Git != nil} {
			if set {
				sources++
			}
		}
		if sources != 1 {
			return moduleResult{Stage: "webhook", Error: "spec.helm.chart: must specify exactly one of: repo, configMap, or git"}
		}
	}
	config, err := validatedConfig(&m)
	if err != nil {
		return moduleResult{Stage: "webhook", Error: "spec.config: " + err.Error()}
	}
	r := moduleResult{Config: config}
	funcs := operatorFuncMap(fill, nil)
	switch {
	case m.Spec.Helm != nil:
		h := m.Spec.Helm
		if h.ReleaseName == nil {
			// The mutating webhook always sets one, existingRelease or not (module_webhook.go:76-92);
			// unset, GetReleaseName would panic. Judged as after the webhook, a name of its shape.
			namespace := m.Metadata.Namespace
			if namespace == "" {
				namespace = "default"
			}
			name := namespace + "-0123456789a"
			h.ReleaseName = &name
		}
		// 3. installModule (internal/controller/module_operations.go:73-78): with existingRelease
		// the release is adopted, nothing rendered: helm's GetRelease(name, namespace)
		// (:341) finds no release in a namespace that cannot exist.
		if er := h.ExistingRelease; er != nil {
			if problems := validation.IsDNS1123Label(er.Namespace); len(problems) > 0 {
				r.Stage, r.Error = "adopt", fmt.Sprintf("namespace %q: %s", er.Namespace, problems[0])
			}
			// A fork's copy clears existingRelease (internal/controller/workspace_fork.go) and is
			// installed like any Module: rendered, then installed into spec.helm.namespace.
			copied := *h
			copied.ExistingRelease = nil
			if rendered, err := renderHelmSpec(&copied, config, funcs); err != nil {
				r.ForkError = err.Error()
			} else if err := helmInstallInputs(rendered, h.releaseName()); err != nil {
				r.ForkError = err.Error()
			}
			return r
		}
		// 4. newManager -> RenderHelmSpec (internal/controller/module_controller.go:287-291).
		rendered, err := renderHelmSpec(h, config, funcs)
		if err != nil {
			r.Stage, r.Error = "render", err.Error()
			return r
		}
		r.Rendered, _ = json.Marshal(rendered)
		// 5. ModuleHelmManager.Install with the rendered spec (pkg/manager/helm.go:90-249).
		if err := helmInstallInputs(rendered, h.releaseName()); err != nil {
			r.Stage, r.Error = "install", err.Error()
		}
	case m.Spec.Custom != nil:
		rendered, err := renderSpec(m.Spec.Custom, map[string]any{"config": config}, funcs)
		if err != nil {
			r.Stage, r.Error = "render", "failed to render Custom spec: "+err.Error()
			return r
		}
		r.Rendered, _ = json.Marshal(rendered)
	}
	return r
}

// validatedConfig is GetValidatedConfig (api/v1/module_types.go:744-792): spec.config decoded by
// encoding/json into map[string]any (numbers are float64), then each declared item by the first
// type it has, in the order integer, boolean, string, option, multipleOptions.
func validatedConfig(m *Module) (map[string]any, error) {
	var input map[string]any
	if m.Spec.Config != nil && m.Spec.Config.Raw != nil {
		if err := json.Unmarshal(m.Spec.Config.Raw, &input); err != nil {
			return nil, fmt.Errorf("failed to unmarshal module config: %w", err)
		}
	}
	out := map[string]any{}
	for _, item := range m.Config {
		var given *any
		if v, ok := input[item.Alias]; ok {
			given = &v
		}
		var value any
		var err error
		var kind string
		switch {
		case item.Integer != nil:
			kind = "integer"
			value, err = item.Integer.validate(given)
		case item.Boolean != nil:
			kind = "boolean"
			value, err = item.Boolean.validate(given)
		case item.String != nil:
			kind = "string"
			value, err = item.String.validate(given)
		case item.Option != nil:
			kind = "option"
			value, err = item.Option.validate(given)
		case item.MultipleOptions != nil:
			kind = "multiple options"
			value, err = item.MultipleOptions.validate(given)
		default:
			return nil, fmt.Errorf("unknown config type for alias %q", item.Alias)
		}
		out[item.Alias] = value
		if err != nil {
			return nil, fmt.Errorf("failed to validate %s config for alias %q: %w", kind, item.Alias, err)
		}
	}
	return out, nil
}

// presence is the start every Validate shares (module_types.go:413-423 and the same lines in each
// type): absent -> the default (an error when required); present and not editable -> an error.
func presence(given *any, required, editable bool, typeName string) (done bool, err error) {
	if given == nil {
		if required {
			return true, fmt.Errorf("a value is required for this %s field", typeName)
		}
		return true, nil
	}
	if !editable {
		return true, fmt.Errorf("this %s field is not editable", typeName)
	}
	return false, nil
}

// validate: module_types.go:412-444. A float64 is truncated by int(v).
func (s ConfigItemSpecInteger) validate(given *any) (int, error) {
	if done, err := presence(given, s.Required, s.Editable, "integer"); done {
		return s.Default, err
	}
	var v int
	switch x := (*given).(type) {
	case int:
		v = x
	case float64:
		v = int(x)
	default:
		return s.Default, fmt.Errorf("input is not an integer")
	}
	if s.Min != nil && v < *s.Min {
		return s.Default, fmt.Errorf("value %d is less than minimum %d", v, *s.Min)
	}
	if s.Max != nil && v > *s.Max {
		return s.Default, fmt.Errorf("value %d is greater than maximum %d", v, *s.Max)
	}
	return v, nil
}

// validate: module_types.go:457-476.
func (s ConfigItemSpecBoolean) validate(given *any) (bool, error) {
	if done, err := presence(given, s.Required, s.Editable, "boolean"); done {
		return s.Default, err
	}
	v, ok := (*given).(bool)
	if !ok {
		return s.Default, fmt.Errorf("input is not a boolean")
	}
	return v, nil
}

// validate: module_types.go:492-523. The regex is Go's regexp, matched unanchored.
func (s ConfigItemSpecString) validate(given *any) (string, error) {
	if done, err := presence(given, s.Required, s.Editable, "string"); done {
		return s.Default, err
	}
	v, ok := (*given).(string)
	if !ok {
		return s.Default, fmt.Errorf("input is not a string")
	}
	if s.Regex != nil {
		re, err := regexp.Compile(*s.Regex)
		if err != nil {
			return s.Default, fmt.Errorf("invalid regex pattern: %w", err)
		}
		if !re.MatchString(v) {
			return s.Default, fmt.Errorf("value '%s' does not match the required regex pattern", v)
		}
	}
	return v, nil
}

// validate: module_types.go:540-563.
func (s ConfigItemSpecOption) validate(given *any) (string, error) {
	if done, err := presence(given, s.Required, s.Editable, "option"); done {
		return s.Default, err
	}
	v, ok := (*given).(string)
	if !ok {
		return s.Default, fmt.Errorf("input is not a string")
	}
	if !slices.Contains(s.Values, v) {
		return s.Default, fmt.Errorf("invalid value '%s', must be one of %v", v, s.Values)
	}
	return v, nil
}

// validate: module_types.go:586-615. A JSON-decoded list is []any, never []string: every value
// given is refused; the default (a []string, nil when unset) is what renders.
func (s ConfigItemSpecMultipleOptions) validate(given *any) ([]string, error) {
	if done, err := presence(given, s.Required, s.Editable, "multiple options"); done {
		return s.Default, err
	}
	v, ok := (*given).([]string)
	if !ok {
		return s.Default, fmt.Errorf("input is not an string array")
	}
	if len(v) == 0 && s.Required {
		return s.Default, fmt.Errorf("a value is required for this multiple options field")
	}
	for _, item := range v {
		if !slices.Contains(s.Values, item) {
			return s.Default, fmt.Errorf("invalid option '%s', must be one of %v", item, s.Values)
		}
	}
	return v, nil
}

// renderHelmSpec is RenderHelmSpec after GetValidatedConfig (module_types.go:681-713): the
// effective namespace rendered first, without .namespace, into a string; then all of spec.helm.
func renderHelmSpec(h *ModuleSpecHelm, config map[string]any, funcs template.FuncMap) (*ModuleSpecHelm, error) {
	releaseName := h.releaseName()
	namespace, err := renderSpec(h.namespace(), map[string]any{"config": config, "releaseName": releaseName}, funcs)
	if err != nil {
		return nil, fmt.Errorf("failed to render Helm namespace: %w", err)
	}
	data := map[string]any{"config": config, "releaseName": releaseName, "namespace": namespace}
	rendered, err := renderSpec(h, data, funcs)
	if err != nil {
		return nil, fmt.Errorf("failed to render Helm spec: %w", err)
	}
	return rendered, nil
}

// renderSpec is renderSpecWithTypePreservation (module_types.go:794-826): the value marshalled
// to JSON and decoded into any, every templated string rendered, then marshalled again and
// decoded into the value's own Go type (where a string field given a number fails).
func renderSpec[T any](spec T, data any, funcs template.FuncMap) (T, error) {
	var zero T
	b, err := json.Marshal(spec)
	if err != nil {
		return zero, err
	}
	var tree any
	if err := json.Unmarshal(b, &tree); err != nil {
		return zero, err
	}
	tree, err = renderTree(tree, data, funcs)
	if err != nil {
		return zero, err
	}
	if b, err = json.Marshal(tree); err != nil {
		return zero, err
	}
	var out T
	if err := json.Unmarshal(b, &out); err != nil {
		return zero, err
	}
	return out, nil
}

// renderTree is renderInterface (module_types.go:828-882): map values and list items in turn; a
// string holding both "{{" and "}}" parsed, executed and, when its output is JSON, replaced by the
// decoded value.
func renderTree(v any, data any, funcs template.FuncMap) (any, error) {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			r, err := renderTree(e, data, funcs)
			if err != nil {
				return nil, err
			}
			out[k] = r
		}
		return out, nil
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			r, err := renderTree(e, data, funcs)
			if err != nil {
				return nil, err
			}
			out[i] = r
		}
		return out, nil
	case string:
		if !bytes.Contains([]byte(x), []byte("{{")) || !bytes.Contains([]byte(x), []byte("}}")) {
			return x, nil
		}
		tmpl, err := template.New("").Funcs(funcs).Parse(x)
		if err != nil {
			return nil, err
		}
		out, err := execute(tmpl, data, 0)
		if err != nil {
			return nil, err
		}
		var decoded any
		if json.Unmarshal([]byte(out), &decoded) == nil {
			return decoded, nil
		}
		return out, nil
	}
	return v, nil
}

// helmReleaseName is Helm's release name rule (helm.sh/helm/v3 v3.19.0 pkg/chartutil/validate_name.go,
// ValidateReleaseName): at most 53 characters of a DNS-1123 subdomain's alphabet and shape.
var helmReleaseName = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)

// helmInstallInputs: the steps of ModuleHelmManager.Install (pkg/manager/helm.go:90-249) and
// HelmService.InstallFrom* (pkg/services/helm.go:135-250, MergeHelmValues :554-613) whose outcome the
// rendered spec alone decides. Cluster reads (Secrets, ConfigMaps), the chart download and the
// clone itself are not modelled.
func helmInstallInputs(h *ModuleSpecHelm, releaseName string) error {
	// Helm's install validates the release name before anything else (action.Install.RunWithContext
	// -> chartutil.ValidateReleaseName); the operator passes the unrendered name (helm.go:34,105).
	if len(releaseName) > 53 || !helmReleaseName.MatchString(releaseName) {
		return fmt.Errorf("release name %q: invalid release name, must match regex %s and the length must not be longer than 53", releaseName, helmReleaseName)
	}
	// CreateNamespace = true (services/helm.go:159,222): the API server refuses a namespace name
	// that is not a DNS-1123 label ("" is left out: Helm may fall back to its configured namespace).
	if problems := validation.IsDNS1123Label(h.namespace()); h.namespace() != "" && len(problems) > 0 {
		return fmt.Errorf("namespace %q: %s", h.namespace(), problems[0])
	}
	// MergeHelmValues (services/helm.go:595-604): a raw value must unmarshal (sigs.k8s.io/yaml)
	// into map[string]any.
	for _, v := range h.Values {
		if v.Raw != nil && len(v.Raw.Raw) > 0 {
			var values map[string]any
			if err := yaml.Unmarshal(v.Raw.Raw, &values); err != nil {
				return fmt.Errorf("failed to unmarshal raw helm values: %w", err)
			}
		}
	}
	switch c := h.Chart; {
	case c.Repo != nil:
		// LocateChart with RepoURL "" looks for a local chart of that name in the operator's
		// working directory (services/helm.go:160,179): an empty URL never installs.
		if c.Repo.URL == "" {
			return fmt.Errorf("failed to locate chart %s: no repository URL", c.Repo.Chart)
		}
		if c.Repo.Chart == "" {
			return fmt.Errorf("failed to locate chart: empty chart name")
		}
	case c.Git != nil:
		// helm.go:173-176: url.Parse's error fails the install.
		if _, err := url.Parse(c.Git.Repo); err != nil {
			return err
		}
		// helm.go:225-236: git clone --branch '' fails ("Remote branch  not found").
		if c.Git.Revision == "" {
			return fmt.Errorf("git clone failed: exit status 128. Stderr: fatal: Remote branch  not found in upstream origin")
		}
	}
	return nil
}
