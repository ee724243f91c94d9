package main

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// Module is a minimal Go type for the Forkspacer Module (its api/v1 module_types.go's shape, written
// for the benchmark: the operator's module is not served by the Go module proxy). Free-form values
// (config values, helm values, outputs) stay raw, as runtime.RawExtension keeps them.
type Module struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Config            []ConfigItem          `json:"config,omitempty"`
	Spec              ModuleSpec            `json:"spec,omitempty"`
	Status            *runtime.RawExtension `json:"status,omitempty"`
}

// ConfigItem is one of the Module's declared config values; its type's settings stay raw.
type ConfigItem struct {
	Name            string                `json:"name"`
	Alias           string                `json:"alias"`
	Integer         *runtime.RawExtension `json:"integer,omitempty"`
	Boolean         *runtime.RawExtension `json:"boolean,omitempty"`
	String          *runtime.RawExtension `json:"string,omitempty"`
	Option          *runtime.RawExtension `json:"option,omitempty"`
	MultipleOptions *runtime.RawExtension `json:"multipleOptions,omitempty"`
}

// ModuleSpec is what the Module installs and where.
type ModuleSpec struct {
	Helm       *HelmModule           `json:"helm,omitempty"`
	Custom     *runtime.RawExtension `json:"custom,omitempty"`
	Workspace  WorkspaceReference    `json:"workspace"`
	Hibernated *bool                 `json:"hibernated,omitempty"`
	Config     *runtime.RawExtension `json:"config,omitempty"`
}

// WorkspaceReference names the Workspace the Module belongs to.
type WorkspaceReference struct {
	Name      string `json:"name"`
	Namespace string `json:"namespace,omitempty"`
}

// HelmModule is a helm release: chart, namespace and values.
type HelmModule struct {
	ReleaseName     *string               `json:"releaseName,omitempty"`
	Chart           HelmChart             `json:"chart"`
	Namespace       string                `json:"namespace,omitempty"`
	Values          []HelmValues          `json:"values,omitempty"`
	Outputs         *runtime.RawExtension `json:"outputs,omitempty"`
	Cleanup         *runtime.RawExtension `json:"cleanup,omitempty"`
	ExistingRelease *runtime.RawExtension `json:"existingRelease,omitempty"`
}

// HelmChart is where the chart comes from.
type HelmChart struct {
	Repo      *ChartRepo            `json:"repo,omitempty"`
	Git       *runtime.RawExtension `json:"git,omitempty"`
	ConfigMap *runtime.RawExtension `json:"configMap,omitempty"`
}

// ChartRepo is a chart in a helm repository.
type ChartRepo struct {
	URL     string `json:"url"`
	Chart   string `json:"chart"`
	Version string `json:"version,omitempty"`
}

// HelmValues is one source of helm values.
type HelmValues struct {
	File      string                `json:"file,omitempty"`
	Raw       *runtime.RawExtension `json:"raw,omitempty"`
	ConfigMap *runtime.RawExtension `json:"configMap,omitempty"`
}

// DeepCopyObject is runtime.Object's copy, written out as controller-gen would generate it.
func (in *Module) DeepCopyObject() runtime.Object {
	if in == nil {
		return nil
	}
	out := new(Module)
	out.TypeMeta = in.TypeMeta
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	if in.Config != nil {
		out.Config = make([]ConfigItem, len(in.Config))
		for i := range in.Config {
			item := in.Config[i]
			out.Config[i] = ConfigItem{
				Name: item.Name, Alias: item.Alias,
				Integer: item.Integer.DeepCopy(), Boolean: item.Boolean.DeepCopy(), String: item.String.DeepCopy(),
				Option: item.Option.DeepCopy(), MultipleOptions: item.MultipleOptions.DeepCopy(),
			}
		}
	}
	out.Spec = ModuleSpec{
		Custom: in.Spec.Custom.DeepCopy(), Workspace: in.Spec.Workspace, Config: in.Spec.Config.DeepCopy(),
	}
	if in.Spec.Hibernated != nil {
		hibernated := *in.Spec.Hibernated
		out.Spec.Hibernated = &hibernated
	}
	if helm := in.Spec.Helm; helm != nil {
		copied := &HelmModule{
			Namespace: helm.Namespace, Outputs: helm.Outputs.DeepCopy(), Cleanup: helm.Cleanup.DeepCopy(),
			ExistingRelease: helm.ExistingRelease.DeepCopy(),
			Chart:           HelmChart{Git: helm.Chart.Git.DeepCopy(), ConfigMap: helm.Chart.ConfigMap.DeepCopy()},
		}
		if helm.ReleaseName != nil {
			name := *helm.ReleaseName
			copied.ReleaseName = &name
		}
		if helm.Chart.Repo != nil {
			repo := *helm.Chart.Repo
			copied.Chart.Repo = &repo
		}
		if helm.Values != nil {
			copied.Values = make([]HelmValues, len(helm.Values))
			for i, values := range helm.Values {
				copied.Values[i] = HelmValues{File: values.File, Raw: values.Raw.DeepCopy(), ConfigMap: values.ConfigMap.DeepCopy()}
			}
		}
		out.Spec.Helm = copied
	}
	out.Status = in.Status.DeepCopy()
	return out
}
