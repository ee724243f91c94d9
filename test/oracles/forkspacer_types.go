package main

import (
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// The Forkspacer Module's Go types as far as their JSON shape decides what the operator does:
// field names, JSON tags, omitempty, pointer or value, and the type names json's errors quote
// (forkspacer/forkspacer v0.1.24 api/v1/module_types.go:86-133 Module and ModuleSpec, :155-372 the
// spec types, :395-638 the config items). Written here from that file's declarations; the status
// and metadata fields the operator never renders are left out (unknown fields are dropped on
// decode, as the operator's decoder drops them).

type Module struct {
	Metadata struct {
		Name      string `json:"name,omitempty"`
		Namespace string `json:"namespace,omitempty"`
	} `json:"metadata,omitempty"`
	Config []ConfigItem `json:"config,omitempty,omitzero"`
	Spec   ModuleSpec   `json:"spec"`
}

type ModuleSpec struct {
	Helm       *ModuleSpecHelm          `json:"helm,omitempty"`
	Custom     *ModuleSpecCustom        `json:"custom,omitempty"`
	Workspace  ModuleWorkspaceReference `json:"workspace"`
	Config     *runtime.RawExtension    `json:"config,omitempty"`
	Hibernated bool                     `json:"hibernated"`
}

type ModuleWorkspaceReference struct {
	Name      string `json:"name"`
	Namespace string `json:"namespace"`
}

type ModuleSpecCustom struct {
	Image            string   `json:"image"`
	ImagePullSecrets []string `json:"imagePullSecrets,omitempty"`
	Permissions      []string `json:"permissions,omitempty"`
}

type ModuleSpecHelmChartRepoAuth struct {
	Name      string `json:"name"`
	Namespace string `json:"namespace"`
}

type ModuleSpecHelmChartRepo struct {
	URL     string                       `json:"url"`
	Chart   string                       `json:"chart"`
	Version *string                      `json:"version,omitempty"`
	Auth    *ModuleSpecHelmChartRepoAuth `json:"auth,omitempty"`
}

type ModuleSpecHelmChartConfigMap struct {
	Name      string `json:"name"`
	Namespace string `json:"namespace"`
	Key       string `json:"key"`
}

type ModuleSpecHelmChartGitAuthSecret struct {
	Name      string `json:"name"`
	Namespace string `json:"namespace"`
}

type ModuleSpecHelmChartGitAuth struct {
	HTTPSSecretRef *ModuleSpecHelmChartGitAuthSecret `json:"httpsSecretRef"`
}

type ModuleSpecHelmChartGit struct {
	Repo     string                      `json:"repo"`
	Path     string                      `json:"path"`
	Revision string                      `json:"revision"`
	Auth     *ModuleSpecHelmChartGitAuth `json:"auth,omitempty"`
}

type ModuleSpecHelmChart struct {
	Repo      *ModuleSpecHelmChartRepo      `json:"repo,omitempty"`
	ConfigMap *ModuleSpecHelmChartConfigMap `json:"configMap,omitempty"`
	Git       *ModuleSpecHelmChartGit       `json:"git,omitempty"`
}

type ModuleSpecHelmExistingRelease struct {
	Name      string `json:"name"`
	Namespace string `json:"namespace"`
}

type ModuleSpecHelmValuesConfigMap struct {
	Name      string `json:"name"`
	Namespace string `json:"namespace"`
	Key       string `json:"key"`
}

type ModuleSpecHelmValues struct {
	File      *string                        `json:"file,omitempty"`
	ConfigMap *ModuleSpecHelmValuesConfigMap `json:"configMap,omitempty"`
	Raw       *runtime.RawExtension          `json:"raw,omitempty"`
}

type ModuleSpecHelmOutputValueFromSecret struct {
	Name      string `json:"name"`
	Namespace string `json:"namespace"`
	Key       string `json:"key"`
}

type ModuleSpecHelmOutputValueFrom struct {
	Secret *ModuleSpecHelmOutputValueFromSecret `json:"secret,omitempty"`
}

type ModuleSpecHelmOutput struct {
	Name      string                         `json:"name"`
	Value     *apiextensionsv1.JSON          `json:"value,omitempty"`
	ValueFrom *ModuleSpecHelmOutputValueFrom `json:"valueFrom,omitempty"`
}

type ModuleSpecHelmCleanup struct {
	RemoveNamespace bool `json:"removeNamespace"`
	RemovePVCs      bool `json:"removePVCs"`
}

type ModuleSpecHelmMigration struct {
	PVCs       []string `json:"pvcs,omitempty"`
	ConfigMaps []string `json:"configMaps,omitempty"`
	Secrets    []string `json:"secrets,omitempty"`
}

type ModuleSpecHelm struct {
	ExistingRelease *ModuleSpecHelmExistingRelease `json:"existingRelease,omitempty"`
	ReleaseName     *string                        `json:"releaseName,omitempty"`
	Chart           ModuleSpecHelmChart            `json:"chart"`
	Namespace       string                         `json:"namespace"`
	Values          []ModuleSpecHelmValues         `json:"values,omitempty"`
	Outputs         []ModuleSpecHelmOutput         `json:"outputs,omitempty"`
	Cleanup         ModuleSpecHelmCleanup          `json:"cleanup"`
	Migration       ModuleSpecHelmMigration        `json:"migration"`
}

// namespace is GetNamespace (module_types.go:377-382): existingRelease's namespace when set.
func (h *ModuleSpecHelm) namespace() string {
	if h.ExistingRelease != nil {
		return h.ExistingRelease.Namespace
	}
	return h.Namespace
}

// releaseName is GetReleaseName (module_types.go:387-393): it dereferences ReleaseName, which
// panics when neither it nor existingRelease is set (the mutating webhook always sets it first).
func (h *ModuleSpecHelm) releaseName() string {
	if h.ExistingRelease != nil {
		return h.ExistingRelease.Name
	}
	return *h.ReleaseName
}

type ConfigItemSpecInteger struct {
	Required bool `json:"required"`
	Default  int  `json:"default"`
	Min      *int `json:"min,omitempty"`
	Max      *int `json:"max,omitempty"`
	Editable bool `json:"editable"`
}

type ConfigItemSpecBoolean struct {
	Required bool `json:"required"`
	Default  bool `json:"default"`
	Editable bool `json:"editable"`
}

type ConfigItemSpecString struct {
	Required bool    `json:"required"`
	Default  string  `json:"default"`
	Regex    *string `json:"regex,omitempty"`
	Editable bool    `json:"editable"`
}

type ConfigItemSpecOption struct {
	Required bool     `json:"required"`
	Default  string   `json:"default"`
	Values   []string `json:"values"`
	Editable bool     `json:"editable"`
}

type ConfigItemSpecMultipleOptions struct {
	Required bool     `json:"required"`
	Default  []string `json:"default,omitempty"`
	Values   []string `json:"values"`
	Min      *int     `json:"min,omitempty"`
	Max      *int     `json:"max,omitempty"`
	Editable bool     `json:"editable"`
}

type ConfigItem struct {
	Name            string                         `json:"name"`
	Alias           string                         `json:"alias"`
	Integer         *ConfigItemSpecInteger         `json:"integer,omitempty"`
	Boolean         *ConfigItemSpecBoolean         `json:"boolean,omitempty"`
	String          *ConfigItemSpecString          `json:"string,omitempty"`
	Option          *ConfigItemSpecOption          `json:"option,omitempty"`
	MultipleOptions *ConfigItemSpecMultipleOptions `json:"multipleOptions,omitempty"`
}
