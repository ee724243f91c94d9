// Command addon-operator answers what addon-operator (flant/addon-operator 941fb064) does with a
// ConfigMap section and a module's values, with the Go its go.mod names (go 1.26) and its libraries'
// versions: gopkg.in/yaml.v3, sigs.k8s.io/yaml, go-openapi/validate with swag pinned as it pins it,
// cel-go; and what kubectl (sigs.k8s.io/yaml) and kustomize (kyaml) read from YAML. Over the protocol
// of ../protocol, beside the Forkspacer oracle (..).
package main

import "module-admission/test/oracles/protocol"

func main() {
	protocol.Serve(map[string]protocol.Op{
		"yaml":        yamlOp,
		"configMap":   configMapOp,
		"addonValues": addonValuesOp,
		"cel":         celOp,
	})
}
