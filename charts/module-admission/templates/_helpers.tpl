{{/* The chart name, at most 63 characters (a DNS label). */}}
{{- define "module-admission.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
The name of every object of the release. Cut to 59 characters so that "<fullname>-tls" still fits in
a DNS label.
*/}}
{{- define "module-admission.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 59 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 59 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 59 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "module-admission.selectorLabels" -}}
app.kubernetes.io/name: {{ include "module-admission.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "module-admission.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "module-admission.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{- define "module-admission.serviceAccountName" -}}
{{- default (include "module-admission.fullname" .) .Values.serviceAccount.name }}
{{- end }}

{{/* The Secret holding tls.crt / tls.key (and ca.crt), whichever mode fills it. */}}
{{- define "module-admission.tlsSecretName" -}}
{{- if eq .Values.certificates.mode "existingSecret" }}
{{- required "certificates.existingSecret.name is required when certificates.mode is existingSecret" .Values.certificates.existingSecret.name }}
{{- else }}
{{- printf "%s-tls" (include "module-admission.fullname" .) }}
{{- end }}
{{- end }}

{{/* A value by its dotted path ("kyma.webhook.enabled"), as text. Arguments: the root context, the path. */}}
{{- define "module-admission.valueAt" -}}
{{- $value := (index . 0).Values }}
{{- range splitList "." (index . 1) }}{{ $value = index $value . }}{{ end }}
{{- toString $value }}
{{- end }}

{{/*
"true" when a kind's webhooks and policies are served: its entry's enabledBy (files/webhooks.yaml) names
the value that turns them on, true or equal to `equals`; none: always. Arguments: the root context, enabledBy.
*/}}
{{- define "module-admission.servedBy" -}}
{{- $root := index . 0 }}{{- $enabledBy := index . 1 }}
{{- if not $enabledBy }}
{{- "true" }}
{{- else if eq (include "module-admission.valueAt" (list $root $enabledBy.value)) (default "true" $enabledBy.equals) }}
{{- "true" }}
{{- end }}
{{- end }}

{{/*
One webhook of files/webhooks.yaml. A mutating webhook is reinvoked: the defaults are idempotent, so a
second call after other mutations is safe. A webhook called for one object (`object`: the value naming
it, "namespace/name", whose form values.schema.json checks) gets a namespace selector that keeps every
other namespace away before any CEL runs, and a match condition narrowing it to that object; the others
skip the excluded namespaces and, narrowed, call the webhook only where CEL cannot decide.
Arguments: the root context, the entry.
*/}}
{{- define "module-admission.webhook" -}}
{{- $root := index . 0 }}{{- $webhook := index . 1 }}
name: {{ $webhook.name }}
admissionReviewVersions: [v1]
sideEffects: None
timeoutSeconds: {{ $root.Values.webhook.timeoutSeconds }}
failurePolicy: {{ $root.Values.webhook.failurePolicy }}
matchPolicy: Equivalent
{{- if eq $webhook.verb "mutate" }}
reinvocationPolicy: IfNeeded
{{- end }}
clientConfig:
  {{- include "module-admission.clientConfig" (list $root $webhook.path) | nindent 2 }}
rules:
  {{- toYaml $webhook.rules | nindent 2 }}
{{- if $webhook.object }}
{{- $object := splitList "/" (include "module-admission.valueAt" (list $root $webhook.object)) }}
namespaceSelector:
  matchLabels:
    kubernetes.io/metadata.name: {{ index $object 0 | quote }}
matchConditions:
  - name: {{ $webhook.kind }}
    expression: {{ printf "request.namespace == %q && request.name == %q" (index $object 0) (index $object 1) | quote }}
{{- else }}
namespaceSelector:
  {{- include "module-admission.namespaceSelector" $root | nindent 2 }}
{{- with include "module-admission.narrowedConditions" (list $root $webhook.kind $webhook.verb) }}
matchConditions:
  {{- . | nindent 2 }}
{{- end }}
{{- end }}
{{- end }}

{{/*
Namespaces the webhooks never see: kube-system, the release's own (so the webhook never waits on
itself), and any the user adds.
*/}}
{{- define "module-admission.namespaceSelector" -}}
matchExpressions:
  - key: kubernetes.io/metadata.name
    operator: NotIn
    values:
      {{- range uniq (concat (list "kube-system" .Release.Namespace) .Values.webhook.excludedNamespaces) }}
      - {{ . | quote }}
      {{- end }}
{{- end }}

{{/* Annotations that bring the CA into a webhook configuration, per certificate mode. */}}
{{- define "module-admission.webhookAnnotations" -}}
{{- if eq .Values.certificates.mode "certManager" -}}
annotations:
  cert-manager.io/inject-ca-from: {{ printf "%s/%s" .Release.Namespace (include "module-admission.fullname" .) }}
{{- end }}
{{- end }}

{{/*
The clientConfig of a webhook at a path. caBundle: set here for existingSecret; cert-manager's injector
sets it for certManager; the server patches it in for selfSigned (and Helm leaves it alone on upgrade,
since the chart never owns the field).
*/}}
{{- define "module-admission.clientConfig" -}}
{{- $root := index . 0 -}}
service:
  name: {{ include "module-admission.fullname" $root }}
  namespace: {{ $root.Release.Namespace }}
  path: {{ index . 1 }}
  port: 443
{{- if eq $root.Values.certificates.mode "existingSecret" }}
caBundle: {{ required "certificates.existingSecret.caBundle is required when certificates.mode is existingSecret" $root.Values.certificates.existingSecret.caBundle }}
{{- end }}
{{- end }}

{{/*
The name of both webhook configurations. The API server calls mutating webhook configurations in the
order of their names: this one sorts before the Forkspacer operator's
(forkspacer-mutating-webhook-configuration), so that beside it (forkspacer.mode alongside) our release
name is set first and the operator's defaulter, which fills only an empty one, leaves it.
*/}}
{{- define "module-admission.webhookConfigurationName" -}}
{{- printf "forkspacer-admission-%s" (include "module-admission.fullname" .) }}
{{- end }}

{{/* The container image: by digest when one is given (immutable), else by tag (default: appVersion). */}}
{{- define "module-admission.image" -}}
{{- if .Values.image.digest }}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}
{{- end }}

{{/*
Native admission policies (docs/native-policies.md): "true" when nativePolicies.enabled and the cluster
serves ValidatingAdmissionPolicy in admissionregistration.k8s.io/v1 (Kubernetes 1.30+); else empty, and
no webhook is narrowed (what the policies would enforce stays the webhook's). `helm template` needs
--api-versions admissionregistration.k8s.io/v1/ValidatingAdmissionPolicy.
*/}}
{{- define "module-admission.nativePolicies" -}}
{{- if and .Values.nativePolicies.enabled (.Capabilities.APIVersions.Has "admissionregistration.k8s.io/v1/ValidatingAdmissionPolicy") -}}
true
{{- end }}
{{- end }}

{{/*
The MutatingAdmissionPolicy API the cluster serves: v1 (Kubernetes 1.36+), else v1beta1 (1.34 and 1.35,
where it is off unless the API server enables it), else empty: the mutating webhook keeps every mutation.
*/}}
{{- define "module-admission.mutatingPolicyApi" -}}
{{- if and (include "module-admission.nativePolicies" .) .Values.nativePolicies.mutating -}}
{{- if .Capabilities.APIVersions.Has "admissionregistration.k8s.io/v1/MutatingAdmissionPolicy" -}}
admissionregistration.k8s.io/v1
{{- else if .Capabilities.APIVersions.Has "admissionregistration.k8s.io/v1beta1/MutatingAdmissionPolicy" -}}
admissionregistration.k8s.io/v1beta1
{{- end }}
{{- end }}
{{- end }}

{{/* Whether a kind's policies render: where the chart runs its webhooks for that kind (files/webhooks.yaml). */}}
{{- define "module-admission.policyKindEnabled" -}}
{{- $root := index . 0 }}{{- $kind := index . 1 }}
{{- $served := false }}
{{- range $webhook := $root.Files.Get "files/webhooks.yaml" | fromYamlArray }}
{{- if and (eq $webhook.kind $kind) (include "module-admission.servedBy" (list $root $webhook.enabledBy)) }}{{ $served = true }}{{ end }}
{{- end }}
{{- if $served -}}
true
{{- end }}
{{- end }}

{{/* A rule's action: ruleActions' word for it, else its default (deny for an error rule, warn for a warning). */}}
{{- define "module-admission.ruleAction" -}}
{{- $root := index . 0 }}{{- $rule := index . 1 }}{{- $default := index . 2 }}
{{- default $default (get $root.Values.ruleActions $rule) }}
{{- end }}

{{/*
A narrowed webhook's matchConditions (nativePolicies.mode narrowed): the webhook is called only where
a rule (or mutation) CEL cannot express may find something, as each rule's declaration says
(files/policies/webhook-conditions.yaml). Nothing when the policies do not render (or, for a mutating
webhook, where the cluster serves no MutatingAdmissionPolicy), or when some rule needs every request.
Arguments: the root context, the kind, "validate" or "mutate".
*/}}
{{- define "module-admission.narrowedConditions" -}}
{{- $root := index . 0 }}{{- $kind := index . 1 }}{{- $webhook := index . 2 }}
{{- $native := and (include "module-admission.nativePolicies" $root) (eq $root.Values.nativePolicies.mode "narrowed") }}
{{- if and $native (or (eq $webhook "validate") (include "module-admission.mutatingPolicyApi" $root)) }}
{{- $expressions := list }}
{{- $always := false }}
{{- range $entry := $root.Files.Get "files/policies/webhook-conditions.yaml" | fromYamlArray }}
{{- if and (eq $entry.kind $kind) (eq $entry.webhook $webhook) }}
{{- range $condition := $entry.when }}
{{- $active := false }}
{{- range $rule := $condition.rules }}
{{- $off := eq (include "module-admission.ruleAction" (list $root $rule "deny")) "off" }}
{{- if and (eq $rule "module.workspace-exists") (not $root.Values.workspaceCheck.enabled) }}{{ $off = true }}{{ end }}
{{- if not $off }}{{ $active = true }}{{ end }}
{{- end }}
{{- if $active }}
{{- if eq $condition.expression "true" }}{{ $always = true }}{{ end }}
{{- $expressions = append $expressions (printf "(%s)" $condition.expression) }}
{{- end }}
{{- end }}
{{- end }}
{{- end }}
{{- if not $always }}
- name: not-expressible-in-cel
  expression: {{ default "false" (join " || " $expressions) | quote }}
{{- end }}
{{- end }}
{{- end }}

{{/*
serve --memory-budget, in MiB: resources.limits.memory less the process's base of 128 MiB (Node, the
main thread's heap, TLS; docs/operations.md, "Memory budget"); empty without a memory limit (serve's
default then holds).
*/}}
{{- define "module-admission.memoryBudgetMb" -}}
{{- $limit := (.Values.resources.limits | default dict).memory -}}
{{- if $limit -}}
{{- $text := toString $limit -}}
{{- if kindIs "float64" $limit -}}{{- $text = printf "%.0f" $limit -}}{{- end -}}
{{- $number := regexFind "^[0-9]+(\\.[0-9]+)?" $text -}}
{{- $suffix := trimPrefix $number $text -}}
{{- $units := dict "" 1 "k" 1000 "M" 1000000 "G" 1000000000 "T" 1000000000000 "Ki" 1024 "Mi" 1048576 "Gi" 1073741824 "Ti" 1099511627776 -}}
{{- if or (not $number) (not (hasKey $units $suffix)) -}}
{{- fail (printf "resources.limits.memory: %q is not a memory quantity the chart reads (a number, with k, M, G, T, Ki, Mi, Gi or Ti)" $text) -}}
{{- end -}}
{{- sub (div (mulf (float64 $number) (get $units $suffix) | int64) 1048576) 128 -}}
{{- end -}}
{{- end }}

{{/*
Where the kubelet probes: the metrics listener (plain HTTP, its own connections: a probe never waits
behind review traffic nor is kept out by its connections), or the HTTPS port when metrics are off.
*/}}
{{- define "module-admission.probePort" -}}
{{- if ne (toString .Values.metricsBindAddress) "0" -}}
port: metrics
scheme: HTTP
{{- else -}}
port: https
scheme: HTTPS
{{- end -}}
{{- end }}
