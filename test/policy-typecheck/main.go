// Command policy-typecheck runs, for every ValidatingAdmissionPolicy of a cluster, the type check that
// kube-controller-manager's validatingadmissionpolicy-status controller writes into the policy's
// status.typeChecking: the same TypeChecker (k8s.io/apiserver), with the schemas of the matched kinds
// resolved from the API server's OpenAPI, as the controller resolves a custom resource's. The tests
// start no controller manager; this gives them its verdict. Prints {"<policy>": [warnings]} as JSON.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	"k8s.io/apiserver/pkg/cel/openapi/resolver"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/restmapper"
	"k8s.io/client-go/tools/clientcmd"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: policy-typecheck KUBECONFIG")
		os.Exit(2)
	}
	config, err := clientcmd.BuildConfigFromFlags("", os.Args[1])
	if err != nil {
		fail(err)
	}
	client, err := kubernetes.NewForConfig(config)
	if err != nil {
		fail(err)
	}
	discovery := client.Discovery()
	checker := &validating.TypeChecker{
		SchemaResolver: &resolver.ClientDiscoveryResolver{Discovery: discovery},
		RestMapper:     restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(discovery)),
	}
	policies, err := client.AdmissionregistrationV1().ValidatingAdmissionPolicies().List(context.Background(), metav1.ListOptions{})
	if err != nil {
		fail(err)
	}
	warnings := map[string][]admissionv1.ExpressionWarning{}
	for i := range policies.Items {
		policy := &policies.Items[i]
		warnings[policy.Name] = checker.Check(policy)
	}
	if err := json.NewEncoder(os.Stdout).Encode(warnings); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "policy-typecheck:", err)
	os.Exit(1)
}
