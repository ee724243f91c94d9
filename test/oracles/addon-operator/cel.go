package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"module-admission/test/oracles/protocol"
	"strings"

	"github.com/go-openapi/spec"
	"github.com/google/cel-go/cel"
	celast "github.com/google/cel-go/common/ast"
	"google.golang.org/protobuf/types/known/structpb"
)

// celValidate is addon-operator's cel.ValidateTransition (flant/addon-operator 941fb064
// pkg/values/validation/cel/cel.go:60-194): properties first (present keys, with the old value at
// the same key), then the node's own x-deckhouse-validations, compiled in an environment of plain
// cel-go v0.26 (no Kubernetes libraries: cel.go:146-149) where self and oldSelf are typed by the
// value (cel.go:216-240). A rule reading oldSelf is skipped without an old value; an evaluation
// error holding "no such key:" is skipped; a false rule gives its message.
func celValidate(s *spec.Schema, values, old any) ([]error, error) {
	var violations []error
	if m, ok := values.(map[string]any); ok {
		oldMap, _ := old.(map[string]any)
		for name, prop := range s.Properties {
			v, ok := m[name]
			if !ok {
				continue
			}
			var oldV any
			if oldMap != nil {
				oldV = oldMap[name]
			}
			p := prop
			sub, err := celValidate(&p, v, oldV)
			if err != nil {
				return nil, err
			}
			violations = append(violations, sub...)
		}
	}
	raw, found := s.Extensions["x-deckhouse-validations"]
	if !found {
		return violations, nil
	}
	rules, err := deckhouseRules(raw)
	if err != nil {
		return nil, err
	}
	selfType, self, err := celValue(values)
	if err != nil {
		return nil, err
	}
	haveOld := old != nil
	oldType, oldSelf := cel.DynType, any(nil)
	if haveOld {
		if oldType, oldSelf, err = celValue(old); err != nil {
			return nil, err
		}
	}
	env, err := cel.NewEnv(cel.Variable("self", selfType), cel.Variable("oldSelf", oldType))
	if err != nil {
		return nil, fmt.Errorf("create CEL env: %w", err)
	}
	for _, r := range rules {
		ast, issues := env.Compile(r.expression)
		if issues.Err() != nil {
			return nil, fmt.Errorf("compile the '%s' rule: %w", r.expression, issues.Err())
		}
		if !haveOld && readsOldSelf(ast) {
			continue
		}
		prg, err := env.Program(ast)
		if err != nil {
			return nil, fmt.Errorf("create program for the '%s' rule: %w", r.expression, err)
		}
		out, _, err := prg.Eval(map[string]any{"self": self, "oldSelf": oldSelf})
		if err != nil {
			if strings.Contains(err.Error(), "no such key:") {
				continue
			}
			return nil, fmt.Errorf("evaluate the '%s' rule: %w", r.expression, err)
		}
		pass, ok := out.Value().(bool)
		if !ok {
			return nil, errors.New("rule should return boolean")
		}
		if !pass {
			violations = append(violations, errors.New(r.message))
		}
	}
	return violations, nil
}

type deckhouseRule struct{ expression, message string }

// deckhouseRules reads the extension's list (cel.go:100-125): a list of maps, each with a non-empty
// expression and message. A value of another type where addon-operator asserts a string panics
// there; here it is the same panic.
func deckhouseRules(raw any) ([]deckhouseRule, error) {
	list, ok := raw.([]any)
	if !ok {
		return nil, fmt.Errorf("x-deckhouse-validations invalid")
	}
	var rules []deckhouseRule
	for _, entry := range list {
		m, ok := entry.(map[string]any)
		if !ok || len(m) == 0 {
			return nil, fmt.Errorf("x-deckhouse-validations invalid")
		}
		if v, ok := m["expression"]; !ok || len(v.(string)) == 0 {
			return nil, fmt.Errorf("x-deckhouse-validations invalid: missing expression")
		}
		if v, ok := m["message"]; !ok || len(v.(string)) == 0 {
			return nil, fmt.Errorf("x-deckhouse-validations invalid: missing message")
		}
		rules = append(rules, deckhouseRule{m["expression"].(string), m["message"].(string)})
	}
	return rules, nil
}

// readsOldSelf is expressionUsesOldSelf (cel.go:199-214).
func readsOldSelf(ast *cel.Ast) bool {
	rep := ast.NativeRep()
	if rep == nil {
		return false
	}
	found := celast.MatchDescendants(celast.NavigateAST(rep), func(e celast.NavigableExpr) bool {
		return e.Kind() == celast.IdentKind && e.AsIdent() == "oldSelf"
	})
	return len(found) > 0
}

// celValue is buildCELValueAndType (cel.go:216-240): structpb, so every number is a double.
func celValue(v any) (*cel.Type, any, error) {
	switch x := v.(type) {
	case map[string]any:
		s, err := structpb.NewStruct(x)
		if err != nil {
			return nil, nil, fmt.Errorf("convert values to struct: %w", err)
		}
		return cel.MapType(cel.StringType, cel.DynType), s, nil
	case []any:
		l, err := structpb.NewList(x)
		if err != nil {
			return nil, nil, fmt.Errorf("convert array to list: %w", err)
		}
		return cel.ListType(cel.DynType), l, nil
	default:
		val, err := structpb.NewValue(x)
		if err != nil {
			return nil, nil, fmt.Errorf("convert dyn to value: %w", err)
		}
		return cel.DynType, val, nil
	}
}

// celRequest: one x-deckhouse-validations rule list on one value, as celValidate runs a node's own
// rules (no properties): for generated rules and values.
type celRequest struct {
	Rules   json.RawMessage `json:"rules"`
	Self    json.RawMessage `json:"self"`
	OldSelf json.RawMessage `json:"oldSelf,omitempty"`
}

type celResult struct {
	Error  string   `json:"error,omitempty"`
	Failed []string `json:"failed,omitempty"`
}

func celOp(raw json.RawMessage) (any, error) {
	req, err := protocol.Decode[celRequest](raw)
	if err != nil {
		return nil, err
	}
	var rules, self, old any
	if err := json.Unmarshal(req.Rules, &rules); err != nil {
		return nil, err
	}
	if err := json.Unmarshal(req.Self, &self); err != nil {
		return nil, err
	}
	if len(req.OldSelf) > 0 {
		if err := json.Unmarshal(req.OldSelf, &old); err != nil {
			return nil, err
		}
	}
	s := &spec.Schema{VendorExtensible: spec.VendorExtensible{Extensions: spec.Extensions{"x-deckhouse-validations": rules}}}
	violations, err := celValidate(s, self, old)
	if err != nil {
		return celResult{Error: err.Error()}, nil
	}
	r := celResult{}
	for _, v := range violations {
		r.Failed = append(r.Failed, v.Error())
	}
	return r, nil
}
