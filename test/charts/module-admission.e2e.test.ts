import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { run as runCel } from "@bufbuild/cel";
import { webhookPath } from "../../src/admission/resource-kind.js";
import { toCel } from "../../src/cel/to-cel.js";
import { moduleKind } from "../../src/resources/module/index.js";
import {
  addonOperator,
  caBundle,
  find,
  helmLint,
  helmTemplate,
  type Manifest,
  releaseNamespace,
  render,
  variants,
} from "../support/chart.js";
import { withoutGo } from "../support/go-tools.js";
import { schemaProblems } from "../support/kubernetes-schemas.js";
import {
  type LabelSelector,
  namespaceLabels,
  type PolicyRule,
  rulesAllow,
  selectorMatches,
} from "../support/kubernetes-semantics.js";
import { type LiveServer, startLiveServer } from "../support/live-server.js";
import { helmModule } from "../support/modules.js";
import { admissionReview } from "../support/reviews.js";

const fullname = "rel-module-admission";
/** Both webhook configurations' name: it sorts before the operator's forkspacer-mutating-webhook-configuration. */
const configurationName = `forkspacer-admission-${fullname}`;

const args = (manifests: Manifest[]): string[] =>
  find(manifests, "Deployment").spec.template.spec.containers[0].args;

const serviceAccountRules = (manifests: Manifest[]) => {
  const account = find(manifests, "Deployment").spec.template.spec.serviceAccountName;
  const bound = (binding: Manifest) =>
    binding.subjects.some(
      (s: { kind: string; name: string; namespace: string }) =>
        s.kind === "ServiceAccount" && s.name === account && s.namespace === releaseNamespace,
    );
  const rulesOf = (bindingKind: string, roleKind: string) =>
    manifests
      .filter((m) => m.kind === bindingKind && bound(m))
      .flatMap((binding): PolicyRule[] => find(manifests, roleKind, binding.roleRef.name).rules);
  return {
    namespaced: [...rulesOf("RoleBinding", "Role"), ...rulesOf("ClusterRoleBinding", "ClusterRole")],
    clusterWide: rulesOf("ClusterRoleBinding", "ClusterRole"),
  };
};

describe("helm lint --strict and helm template, real helm binary", { skip: withoutGo }, () => {
  for (const [name, values] of Object.entries(variants)) {
    test(`${name}: lint passes and every manifest matches its kind's Kubernetes schema`, async () => {
      const lint = await helmLint(values);
      assert.equal(lint.code, 0, lint.stdout + lint.stderr);
      assert.match(lint.stdout, /1 chart\(s\) linted, 0 chart\(s\) failed/);
      const manifests = await render(values);
      assert.ok(manifests.length >= 8, `only ${manifests.length} manifests`);
      for (const manifest of manifests) {
        assert.deepEqual(schemaProblems(manifest), [], `${manifest.kind} ${manifest.metadata.name}`);
      }
    });
  }

  test("the schema check catches a misspelt field and a wrong type (it is not vacuous)", async () => {
    const deployment = structuredClone(find(await render(), "Deployment"));
    deployment.spec.template.spec.containers[0].securityContext.readOnlyRootFilesytem = true;
    deployment.spec.replicas = "two";
    const problems = schemaProblems(deployment);
    assert.ok(
      problems.some((p) => p.includes("readOnlyRootFilesytem: unknown field")),
      problems.join("\n"),
    );
    assert.ok(
      problems.some((p) => p.startsWith("/spec/replicas")),
      problems.join("\n"),
    );
  });

  test("no Module or Workspace CRD in either mode, --include-crds or not: the operator's stays or install-crds applies ours", async () => {
    for (const mode of ["alongside", "replace"]) {
      const crds = (await render({ forkspacer: { mode } })).filter(
        (m) => m.kind === "CustomResourceDefinition",
      );
      assert.deepEqual(crds, [], mode);
    }
  });

  test("bad values stop the render with a message naming the value", async () => {
    const cases: [object, RegExp][] = [
      [{ certificates: { mode: "acme" } }, /\/certificates\/mode': value must be one of 'selfSigned'/],
      [
        { webhook: { failurePolicy: "Maybe" } },
        /\/webhook\/failurePolicy': value must be one of 'Fail', 'Ignore'/,
      ],
      [
        { certificates: { mode: "existingSecret", existingSecret: { caBundle } } },
        /certificates\.existingSecret\.name is required/,
      ],
      [
        { certificates: { mode: "existingSecret", existingSecret: { name: "my-tls" } } },
        /certificates\.existingSecret\.caBundle is required/,
      ],
      [
        { addonOperator: { ...addonOperator, modulesVolume: {} } },
        /addonOperator\.modulesVolume is required/,
      ],
      [
        { addonOperator: { ...addonOperator, configMap: "addon-operator" } },
        /\/addonOperator\/configMap': 'addon-operator' does not match pattern/,
      ],
    ];
    for (const [values, message] of cases) {
      const result = await helmTemplate(values);
      assert.notEqual(result.code, 0, JSON.stringify(values));
      assert.match(result.stderr, message);
    }
  });
});

describe("Deployment, Service and PodDisruptionBudget", { skip: withoutGo }, () => {
  let manifests: Manifest[];
  before(async () => {
    manifests = await render();
  });

  test("2 replicas, non-root, read-only root filesystem, no capabilities, RuntimeDefault seccomp", () => {
    const deployment = find(manifests, "Deployment", fullname);
    assert.equal(deployment.spec.replicas, 2);
    const pod = deployment.spec.template.spec;
    assert.equal(pod.securityContext.runAsNonRoot, true);
    assert.ok(pod.securityContext.runAsUser > 0);
    assert.equal(pod.securityContext.seccompProfile.type, "RuntimeDefault");
    const [container, ...others] = pod.containers;
    assert.equal(others.length, 0);
    assert.equal(container.securityContext.readOnlyRootFilesystem, true);
    assert.equal(container.securityContext.allowPrivilegeEscalation, false);
    assert.deepEqual(container.securityContext.capabilities.drop, ["ALL"]);
    assert.equal(container.securityContext.capabilities.add, undefined);
    assert.ok(container.resources.requests.cpu && container.resources.requests.memory);
    assert.ok(container.resources.limits.memory);
  });

  test("the image follows the chart's appVersion and the container runs `serve` on 8443", () => {
    const container = find(manifests, "Deployment").spec.template.spec.containers[0];
    assert.equal(container.image, "ghcr.io/forkspacer/module-admission:0.1.0");
    assert.equal(container.command, undefined, "the image's entrypoint (node dist/cli/main.js) runs");
    assert.equal(container.args[0], "serve");
    assert.ok(container.args.includes("--port=8443"));
    assert.deepEqual(
      container.ports.map((p: { name: string; containerPort: number }) => [p.name, p.containerPort]),
      [
        ["https", 8443],
        ["metrics", 8080],
      ],
    );
  });

  test("probes: liveness and startup on /healthz, readiness on /readyz, on the metrics listener (HTTPS when it is off)", async () => {
    const probes = (rendered: Manifest[]) => {
      const container = find(rendered, "Deployment").spec.template.spec.containers[0];
      return ["livenessProbe", "startupProbe", "readinessProbe"].map((probe) => container[probe].httpGet);
    };
    assert.deepEqual(probes(manifests), [
      { path: "/healthz", port: "metrics", scheme: "HTTP" },
      { path: "/healthz", port: "metrics", scheme: "HTTP" },
      { path: "/readyz", port: "metrics", scheme: "HTTP" },
    ]);
    assert.deepEqual(probes(await render({ metricsBindAddress: "0" })), [
      { path: "/healthz", port: "https", scheme: "HTTPS" },
      { path: "/healthz", port: "https", scheme: "HTTPS" },
      { path: "/readyz", port: "https", scheme: "HTTPS" },
    ]);
  });

  test("--memory-budget: resources.limits.memory less 128 MiB, in MiB, whatever the quantity's unit", async () => {
    const budget = (rendered: Manifest[]) =>
      args(rendered).filter((arg: string) => arg.startsWith("--memory-budget"));
    assert.deepEqual(budget(manifests), ["--memory-budget=512"]);
    for (const [memory, expected] of [
      ["1Gi", "--memory-budget=896"],
      [536870912, "--memory-budget=384"],
      ["600M", "--memory-budget=444"],
    ] as const) {
      assert.deepEqual(
        budget(await render({ resources: { limits: { memory } } })),
        [expected],
        String(memory),
      );
    }
    // Without a memory limit (null removes the default), serve's own default holds.
    assert.deepEqual(budget(await render({ resources: { limits: { memory: null } } })), []);
    await assert.rejects(render({ resources: { limits: { memory: "lots" } } }), /resources.limits.memory/);
  });

  test("topology spread, PDB and Service select exactly the chart's pods", () => {
    const deployment = find(manifests, "Deployment");
    const podLabels = deployment.spec.template.metadata.labels;
    const otherPod = { ...podLabels, "app.kubernetes.io/instance": "another-release" };
    const selectors: [string, LabelSelector][] = [
      ["Deployment", deployment.spec.selector],
      ["PodDisruptionBudget", find(manifests, "PodDisruptionBudget").spec.selector],
      ["Service", { matchLabels: find(manifests, "Service").spec.selector }],
      ...deployment.spec.template.spec.topologySpreadConstraints.map(
        (c: { topologyKey: string; labelSelector: LabelSelector }) => [c.topologyKey, c.labelSelector],
      ),
    ];
    for (const [what, selector] of selectors) {
      assert.ok(selectorMatches(selector, podLabels), what);
      assert.ok(!selectorMatches(selector, otherPod), what);
    }
    const keys = deployment.spec.template.spec.topologySpreadConstraints.map(
      (c: { topologyKey: string }) => c.topologyKey,
    );
    assert.deepEqual(keys, ["kubernetes.io/hostname", "topology.kubernetes.io/zone"]);
  });

  test("user topology constraints get the pod selector added", async () => {
    const constraints = [{ maxSkew: 2, topologyKey: "rack", whenUnsatisfiable: "DoNotSchedule" }];
    const deployment = find(await render({ topologySpreadConstraints: constraints }), "Deployment");
    const [constraint] = deployment.spec.template.spec.topologySpreadConstraints;
    assert.equal(constraint.topologyKey, "rack");
    assert.ok(selectorMatches(constraint.labelSelector, deployment.spec.template.metadata.labels));
  });

  test("a PodDisruptionBudget keeps one webhook up through voluntary disruptions", () => {
    assert.equal(find(manifests, "PodDisruptionBudget").spec.minAvailable, 1);
  });

  test("the Service sends 443 to the container's https port", () => {
    const https = find(manifests, "Service").spec.ports.find((p: { name: string }) => p.name === "https");
    assert.equal(https.port, 443);
    assert.equal(https.targetPort, "https");
  });
});

describe("webhook configurations", { skip: withoutGo }, () => {
  let manifests: Manifest[];
  before(async () => {
    manifests = await render();
  });

  const configurations = (): [Manifest, Manifest] => [
    find(manifests, "MutatingWebhookConfiguration", configurationName),
    find(manifests, "ValidatingWebhookConfiguration", configurationName),
  ];

  test("Module webhooks: CREATE and UPDATE of modules.batch.forkspacer.com v1 on the core's paths", () => {
    const [mutating, validating] = configurations();
    assert.equal(mutating.webhooks.length, 1);
    assert.equal(validating.webhooks.length, 1);
    for (const [configuration, verb] of [
      [mutating, "mutate"],
      [validating, "validate"],
    ] as const) {
      const [webhook] = configuration.webhooks;
      assert.deepEqual(webhook.clientConfig.service, {
        name: fullname,
        namespace: releaseNamespace,
        path: webhookPath(moduleKind, verb),
        port: 443,
      });
      assert.deepEqual(webhook.rules, [
        {
          apiGroups: ["batch.forkspacer.com"],
          apiVersions: ["v1"],
          resources: ["modules"],
          operations: ["CREATE", "UPDATE"],
          scope: "Namespaced",
        },
      ]);
      assert.deepEqual(webhook.admissionReviewVersions, ["v1"]);
      assert.equal(webhook.sideEffects, "None");
      assert.equal(webhook.timeoutSeconds, 5);
      assert.equal(webhook.failurePolicy, "Fail");
    }
    assert.equal(mutating.webhooks[0].reinvocationPolicy, "IfNeeded");
    assert.equal(find(manifests, "Service").metadata.name, fullname);
  });

  test("alongside (default): our mutating configuration sorts before the operator's, so our release name comes first", () => {
    const [mutating] = configurations();
    assert.ok(mutating.metadata.name < "forkspacer-mutating-webhook-configuration", mutating.metadata.name);
    assert.deepEqual(
      configurations().map((c) => c.webhooks.map((w: Manifest) => w.clientConfig.service.path)),
      [["/mutate-batch-forkspacer-com-v1-module"], ["/validate-batch-forkspacer-com-v1-module"]],
    );
  });

  test("replace: all four of the operator's paths, Workspaces on their own, each answered by the server", async () => {
    const rendered = await render({ forkspacer: { mode: "replace" } });
    const webhooks = ["MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"].flatMap(
      (kind) => find(rendered, kind, configurationName).webhooks as Manifest[],
    );
    assert.deepEqual(
      webhooks.map((w) => [w.clientConfig.service.path, w.rules[0].resources[0]]),
      [
        ["/mutate-batch-forkspacer-com-v1-module", "modules"],
        ["/mutate-batch-forkspacer-com-v1-workspace", "workspaces"],
        ["/validate-batch-forkspacer-com-v1-module", "modules"],
        ["/validate-batch-forkspacer-com-v1-workspace", "workspaces"],
      ],
    );
    const server = await startLiveServer();
    try {
      for (const webhook of webhooks) {
        const [kind, resource] =
          webhook.rules[0].resources[0] === "workspaces"
            ? ["Workspace", "workspaces"]
            : ["Module", "modules"];
        const object =
          kind === "Module"
            ? helmModule()
            : {
                apiVersion: "batch.forkspacer.com/v1",
                kind,
                metadata: { name: "dev", namespace: "default" },
                spec: {},
              };
        const reply = await server.post(
          webhook.clientConfig.service.path,
          admissionReview({ operation: "CREATE", object, kind, resource }),
        );
        assert.equal(reply.status, 200);
        assert.equal(reply.json.response.allowed, true, JSON.stringify(reply.json.response.status));
      }
    } finally {
      await server.close();
    }
  });

  test("failurePolicy is configurable", async () => {
    const rendered = await render({ webhook: { failurePolicy: "Ignore" } });
    for (const kind of ["MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"]) {
      assert.equal(find(rendered, kind).webhooks[0].failurePolicy, "Ignore");
    }
  });

  test("namespaceSelector leaves out kube-system, the release namespace and listed ones", async () => {
    const rendered = await render({ webhook: { excludedNamespaces: ["legacy"] } });
    for (const kind of ["MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"]) {
      const selector = find(rendered, kind).webhooks[0].namespaceSelector;
      for (const namespace of ["kube-system", releaseNamespace, "legacy"]) {
        assert.ok(!selectorMatches(selector, namespaceLabels(namespace)), `${kind} sees ${namespace}`);
      }
      for (const namespace of ["default", "team-a"]) {
        assert.ok(selectorMatches(selector, namespaceLabels(namespace)), `${kind} misses ${namespace}`);
      }
    }
  });

  describe("through the real HTTPS server", () => {
    let server: LiveServer;
    before(async () => {
      server = await startLiveServer();
    });
    after(() => server.close());

    test("the paths in the webhook configurations answer AdmissionReviews", async () => {
      for (const configuration of configurations()) {
        const { path } = configuration.webhooks[0].clientConfig.service;
        const reply = await server.post(path, admissionReview({ operation: "CREATE", object: helmModule() }));
        assert.equal(reply.status, 200, path);
        assert.equal(reply.json.kind, "AdmissionReview", path);
        assert.equal(typeof reply.json.response.allowed, "boolean", path);
      }
    });

    test("the probe paths answer 200", async () => {
      const container = find(manifests, "Deployment").spec.template.spec.containers[0];
      for (const probe of [container.livenessProbe, container.readinessProbe, container.startupProbe]) {
        assert.equal((await server.get(probe.httpGet.path)).status, 200, probe.httpGet.path);
      }
    });
  });
});

describe("certificate modes", { skip: withoutGo }, () => {
  const webhookConfigurations = (manifests: Manifest[]) =>
    manifests.filter((m) => m.kind.endsWith("WebhookConfiguration"));
  const certVolume = (manifests: Manifest[]) =>
    find(manifests, "Deployment").spec.template.spec.volumes.find(
      (v: { name: string }) => v.name === "certs",
    );

  test("selfSigned: the server keeps its certificate in <fullname>-tls and patches both configurations", async () => {
    const manifests = await render();
    assert.ok(args(manifests).includes(`--self-signed-secret=${releaseNamespace}/${fullname}-tls`));
    const patched = args(manifests)
      .find((a) => a.startsWith("--webhook-configuration="))
      ?.split("=")[1];
    for (const configuration of webhookConfigurations(manifests)) {
      assert.equal(configuration.metadata.name, patched);
      assert.equal(configuration.metadata.annotations, undefined);
      // The server owns caBundle: the chart must not set it, or every upgrade would wipe it.
      assert.equal(configuration.webhooks[0].clientConfig.caBundle, undefined);
    }
    assert.ok(certVolume(manifests).emptyDir, "the server writes its certificate files: a writable volume");
    assert.ok(!manifests.some((m) => m.apiVersion.startsWith("cert-manager.io")));
  });

  test("certManager: Issuer + Certificate for the Service, CA injected into both configurations", async () => {
    const manifests = await render(variants.certManager);
    const certificate = find(manifests, "Certificate", fullname);
    const issuer = find(manifests, "Issuer");
    assert.deepEqual(certificate.spec.issuerRef, {
      name: issuer.metadata.name,
      kind: "Issuer",
      group: "cert-manager.io",
    });
    assert.ok(certificate.spec.dnsNames.includes(`${fullname}.${releaseNamespace}.svc`));
    assert.equal(certVolume(manifests).secret.secretName, certificate.spec.secretName);
    for (const configuration of webhookConfigurations(manifests)) {
      assert.equal(
        configuration.metadata.annotations["cert-manager.io/inject-ca-from"],
        `${releaseNamespace}/${certificate.metadata.name}`,
      );
      assert.equal(configuration.webhooks[0].clientConfig.caBundle, undefined);
    }
    assert.ok(!args(manifests).some((a) => a.startsWith("--self-signed-secret")));
  });

  test("certManager with issuerRef: no Issuer of the chart's own", async () => {
    const manifests = await render(variants["certManager with an existing ClusterIssuer"]);
    assert.ok(!manifests.some((m) => m.kind === "Issuer"));
    assert.deepEqual(find(manifests, "Certificate").spec.issuerRef, {
      name: "corp-ca",
      kind: "ClusterIssuer",
    });
  });

  test("existingSecret: the user's Secret is mounted and the user's CA is the caBundle", async () => {
    const manifests = await render(variants.existingSecret);
    assert.equal(certVolume(manifests).secret.secretName, "my-tls");
    for (const configuration of webhookConfigurations(manifests)) {
      assert.equal(configuration.webhooks[0].clientConfig.caBundle, caBundle);
      assert.equal(configuration.metadata.annotations, undefined);
    }
    assert.ok(!manifests.some((m) => m.apiVersion.startsWith("cert-manager.io")));
    assert.ok(!args(manifests).some((a) => a.startsWith("--self-signed-secret")));
  });
});

describe("least-privilege RBAC", { skip: withoutGo }, () => {
  test("selfSigned with the Workspace check: its Secret, its two configurations, workspaces list/watch", async () => {
    const { namespaced, clusterWide } = serviceAccountRules(await render());
    const secret = { group: "", resource: "secrets", name: `${fullname}-tls` };
    for (const verb of ["get", "update", "create"]) {
      assert.ok(rulesAllow(namespaced, { verb, ...secret }), verb);
    }
    // The Secret is renewed by a whole-object update; patch was never used.
    assert.ok(!rulesAllow(namespaced, { verb: "patch", ...secret }));
    for (const verb of ["get", "update", "delete"]) {
      assert.ok(!rulesAllow(namespaced, { verb, group: "", resource: "secrets", name: "other" }), verb);
    }
    for (const verb of ["list", "watch", "delete"]) {
      assert.ok(!rulesAllow(namespaced, { verb, ...secret }), verb);
    }
    for (const resource of ["mutatingwebhookconfigurations", "validatingwebhookconfigurations"]) {
      const group = "admissionregistration.k8s.io";
      assert.ok(rulesAllow(clusterWide, { verb: "patch", group, resource, name: configurationName }));
      assert.ok(rulesAllow(clusterWide, { verb: "get", group, resource, name: configurationName }));
      assert.ok(!rulesAllow(clusterWide, { verb: "patch", group, resource, name: "someone-elses" }));
      assert.ok(!rulesAllow(clusterWide, { verb: "delete", group, resource, name: configurationName }));
    }
    const workspaces = { group: "batch.forkspacer.com", resource: "workspaces" };
    assert.ok(rulesAllow(clusterWide, { verb: "list", ...workspaces }));
    assert.ok(rulesAllow(clusterWide, { verb: "watch", ...workspaces }));
    assert.ok(
      !rulesAllow(clusterWide, { verb: "get", ...workspaces, name: "dev" }),
      "answers come from the cache",
    );
    assert.ok(
      !rulesAllow(clusterWide, { verb: "get", group: "", resource: "secrets", name: `${fullname}-tls` }),
    );
  });

  test("no wildcards in any rule", async () => {
    for (const values of Object.values(variants)) {
      for (const rule of [...serviceAccountRules(await render(values)).namespaced]) {
        for (const list of [rule.verbs, rule.apiGroups ?? [], rule.resources ?? []]) {
          assert.ok(!list.includes("*"), JSON.stringify(rule));
        }
      }
    }
  });

  test("certManager with the Workspace check off: no rules and no API token at all", async () => {
    const manifests = await render({
      certificates: { mode: "certManager" },
      workspaceCheck: { enabled: false },
    });
    assert.deepEqual(serviceAccountRules(manifests).namespaced, []);
    assert.ok(!manifests.some((m) => /Role/.test(m.kind)));
    assert.equal(find(manifests, "ServiceAccount").automountServiceAccountToken, false);
    assert.ok(args(manifests).includes("--workspace-check=off"));
  });

  test("Workspace check off in selfSigned mode: no workspace rule, the certificate rules stay", async () => {
    const { clusterWide } = serviceAccountRules(await render({ workspaceCheck: { enabled: false } }));
    assert.ok(
      !rulesAllow(clusterWide, { verb: "list", group: "batch.forkspacer.com", resource: "workspaces" }),
    );
    assert.ok(
      rulesAllow(clusterWide, {
        verb: "patch",
        group: "admissionregistration.k8s.io",
        resource: "validatingwebhookconfigurations",
        name: configurationName,
      }),
    );
  });
});

describe("rule actions", { skip: withoutGo }, () => {
  const args = (manifests: Manifest[]): string[] =>
    find(manifests, "Deployment").spec.template.spec.containers[0].args;

  test("ruleActions become --rule-action flags, in rule id order; none by default", async () => {
    assert.ok(!args(await render()).some((arg) => arg.startsWith("--rule-action")));
    const manifests = await render({
      ruleActions: { "module.workspace-exists": "warn", "module.config-value": "off" },
    });
    assert.deepEqual(
      args(manifests).filter((arg) => arg.startsWith("--rule-action")),
      ["--rule-action=module.config-value=off", "--rule-action=module.workspace-exists=warn"],
    );
  });

  test("logReviews becomes --log-reviews: denials by default; another value fails the install", async () => {
    assert.deepEqual(
      args(await render()).filter((arg) => arg.startsWith("--log-reviews")),
      ["--log-reviews=denied"],
    );
    assert.ok(args(await render({ logReviews: "all" })).includes("--log-reviews=all"));
    await assert.rejects(render({ logReviews: "verbose" }), /logReviews/);
  });

  test("reviewWorkers become the review worker flags; a deadline the webhook timeout cannot wait for fails the install", async () => {
    const workerFlags = (manifests: Manifest[]) =>
      args(manifests).filter((arg) => /^--(review-workers|worker-heap-mb|review-deadline-ms)=/.test(arg));
    assert.deepEqual(workerFlags(await render()), [
      "--review-workers=2",
      "--worker-heap-mb=96",
      "--review-deadline-ms=1000",
    ]);
    // The defaults' flags are serve's own defaults.
    const { defaultPool } = await import("../../src/cli/serve-reviews.js");
    assert.deepEqual(defaultPool, { size: 2, heapMb: 96, deadlineMs: 1000 });
    assert.deepEqual(
      workerFlags(await render({ reviewWorkers: { count: 4, heapMb: 64, deadlineMs: 500 } })),
      ["--review-workers=4", "--worker-heap-mb=64", "--review-deadline-ms=500"],
    );
    await assert.rejects(render({ reviewWorkers: { count: 0 } }), /reviewWorkers/);
    await assert.rejects(render({ reviewWorkers: { heapMb: "lots" } }), /reviewWorkers/);
    // 2,000 ms of CPU may take 6 s of wall time (serve's own bound): the API server gave up after 5 s.
    const { wallLimitMs } = await import("../../src/isolation/review-pool.js");
    assert.equal(wallLimitMs(2000), 6000);
    await assert.rejects(
      render({ reviewWorkers: { deadlineMs: 2000 } }),
      /reviewWorkers.deadlineMs 2000: a review may take 6000 ms of wall time, not within webhook.timeoutSeconds \(5 s\)/,
    );
    assert.ok(
      workerFlags(await render({ reviewWorkers: { deadlineMs: 2000 }, webhook: { timeoutSeconds: 10 } }))
        .length === 3,
    );
  });

  test("an action other than deny, warn or off, or an id no rule declares, fails the install", async () => {
    await assert.rejects(render({ ruleActions: { "module.source": "block" } }), /ruleActions/);
    await assert.rejects(
      render({ ruleActions: { "Module Source": "warn" } }),
      /additional properties 'Module Source' not allowed/,
    );
    // The ids are the rule catalogue's (docs/rules.md): a misspelt one would leave its rule denying.
    await assert.rejects(
      render({ ruleActions: { "module.relase-name": "warn" } }),
      /additional properties 'module.relase-name' not allowed/,
    );
  });

  test("a warning rule takes warn or off, never deny", async () => {
    await render({ ruleActions: { "module.unknown-field": "off" } });
    await assert.rejects(
      render({ ruleActions: { "module.unknown-field": "deny" } }),
      /ruleActions\/module.unknown-field': value must be one of 'warn', 'off'/,
    );
  });
});

describe("optional features", { skip: withoutGo }, () => {
  test("off by default: only the Module webhooks, no CRD (alongside: the operator's CRDs stay)", async () => {
    const manifests = await render();
    const webhooks = manifests
      .filter((m) => m.kind.endsWith("WebhookConfiguration"))
      .flatMap((m) => m.webhooks.map((w: { name: string }) => w.name));
    assert.deepEqual(webhooks, [
      "mutate.modules.batch.forkspacer.com",
      "validate.modules.batch.forkspacer.com",
    ]);
    assert.deepEqual(
      manifests.filter((m) => m.kind === "CustomResourceDefinition").map((m) => m.metadata.name),
      [],
    );
  });

  const kymaWebhooks = (manifests: Manifest[]) =>
    find(manifests, "ValidatingWebhookConfiguration").webhooks.filter((w: { name: string }) =>
      w.name.endsWith(".operator.kyma-project.io"),
    );
  const crdNames = (manifests: Manifest[]) =>
    manifests.filter((m) => m.kind === "CustomResourceDefinition").map((m) => m.metadata.name);
  const kymaCrds = [
    "moduletemplates.operator.kyma-project.io",
    "modulereleasemetas.operator.kyma-project.io",
  ];

  test("kyma.webhook.enabled: ModuleTemplate and ModuleReleaseMeta webhooks, list/watch on templates, no CRD", async () => {
    const manifests = await render({ kyma: { webhook: { enabled: true } } });
    const webhooks = kymaWebhooks(manifests);
    assert.deepEqual(
      webhooks.map((w: { name: string; clientConfig: { service: { path: string } } }) => [
        w.name,
        w.clientConfig.service.path,
      ]),
      [
        [
          "validate.moduletemplates.operator.kyma-project.io",
          "/validate-operator-kyma-project-io-v1beta2-moduletemplate",
        ],
        [
          "validate.modulereleasemetas.operator.kyma-project.io",
          "/validate-operator-kyma-project-io-v1beta2-modulereleasemeta",
        ],
      ],
    );
    assert.deepEqual(webhooks[1].rules, [
      {
        apiGroups: ["operator.kyma-project.io"],
        apiVersions: ["v1beta2"],
        resources: ["modulereleasemetas"],
        operations: ["CREATE", "UPDATE"],
        scope: "Namespaced",
      },
    ]);
    assert.deepEqual(crdNames(manifests), [], "Kyma's CRDs stay lifecycle-manager's");
    const { clusterWide } = serviceAccountRules(manifests);
    const templates = { group: "operator.kyma-project.io", resource: "moduletemplates" };
    assert.ok(rulesAllow(clusterWide, { verb: "list", ...templates }));
    assert.ok(rulesAllow(clusterWide, { verb: "watch", ...templates }));
    assert.ok(!rulesAllow(clusterWide, { verb: "get", ...templates, name: "keda-1.2.0" }));
    assert.ok(args(manifests).includes("--moduletemplate-check=auto"));
    // Every served path has its webhook, and every webhook path is served.
    const server = await startLiveServer();
    try {
      for (const webhook of webhooks) {
        const reply = await server.post(
          webhook.clientConfig.service.path,
          admissionReview({ operation: "CREATE" }),
        );
        assert.notEqual(reply.status, 404, webhook.clientConfig.service.path);
      }
    } finally {
      await server.close();
    }
  });

  test("kyma.crd.install alone: both Kyma CRDs (both versions), kept on uninstall, no Kyma webhook or RBAC", async () => {
    const manifests = await render({ kyma: { crd: { install: true } } });
    assert.deepEqual(crdNames(manifests).sort(), [...kymaCrds].sort());
    for (const name of kymaCrds) {
      assert.equal(
        find(manifests, "CustomResourceDefinition", name).metadata.annotations["helm.sh/resource-policy"],
        "keep",
      );
    }
    const templates = find(manifests, "CustomResourceDefinition", kymaCrds[0]);
    assert.deepEqual(
      templates.spec.versions.map((v: { name: string; served: boolean; storage: boolean }) => [
        v.name,
        v.served,
        v.storage,
      ]),
      [
        ["v1beta1", false, false],
        ["v1beta2", true, true],
      ],
    );
    assert.deepEqual(kymaWebhooks(manifests), []);
    const { clusterWide } = serviceAccountRules(manifests);
    assert.ok(
      !rulesAllow(clusterWide, {
        verb: "list",
        group: "operator.kyma-project.io",
        resource: "moduletemplates",
      }),
    );
    assert.ok(args(manifests).includes("--moduletemplate-check=off"));
  });

  test("the old kyma.enabled switch is refused by the values schema, with a message", async () => {
    const result = await helmTemplate({ kyma: { enabled: true } });
    assert.notEqual(result.code, 0);
    assert.match(result.stderr, /enabled/);
  });

  test("addonOperator.enabled: a ConfigMap webhook that matches that one ConfigMap and no other", async () => {
    const manifests = await render({ addonOperator });
    const webhook = find(manifests, "ValidatingWebhookConfiguration").webhooks.find(
      (w: { clientConfig: { service: { path: string } } }) =>
        w.clientConfig.service.path === "/validate-addon-operator-configmap",
    );
    assert.deepEqual(webhook.rules, [
      {
        apiGroups: [""],
        apiVersions: ["v1"],
        resources: ["configmaps"],
        operations: ["CREATE", "UPDATE"],
        scope: "Namespaced",
      },
    ]);
    const sent = (namespace: string, name: string) =>
      selectorMatches(webhook.namespaceSelector, namespaceLabels(namespace)) &&
      webhook.matchConditions.every(
        (condition: { expression: string }) =>
          runCel(condition.expression, {
            request: new Map([
              ["namespace", namespace],
              ["name", name],
            ]),
          }) === true,
      );
    assert.ok(sent("addon-system", "addon-operator"));
    assert.ok(!sent("addon-system", "other"));
    assert.ok(!sent("default", "addon-operator"));
    const pod = find(manifests, "Deployment").spec.template.spec;
    const container = pod.containers[0];
    assert.ok(container.args.includes("--modules-dir=/modules"));
    assert.ok(container.args.includes("--addon-configmap=addon-system/addon-operator"));
    const mount = container.volumeMounts.find((m: { mountPath: string }) => m.mountPath === "/modules");
    assert.equal(mount.readOnly, true);
    const volume = pod.volumes.find((v: { name: string }) => v.name === mount.name);
    assert.deepEqual(volume.persistentVolumeClaim, { claimName: "modules" });
  });
});

describe("least privilege (issue 15)", { skip: withoutGo }, () => {
  const account = `system:serviceaccount:${releaseNamespace}:${fullname}`;

  /** The policy's verdict on an update, as the API server evaluates it: matchConditions, then validations. */
  const policyVerdict = (policy: Manifest, username: string, oldObject: unknown, object: unknown) => {
    const request = new Map<string, unknown>([["userInfo", new Map([["username", username]])]]);
    const context = { request, object: toCel(object, undefined), oldObject: toCel(oldObject, undefined) };
    const matched = policy.spec.matchConditions.every(
      (condition: { expression: string }) => runCel(condition.expression, context as never) === true,
    );
    if (!matched) return "not matched";
    const failed = policy.spec.validations.filter(
      (validation: { expression: string }) => runCel(validation.expression, context as never) !== true,
    );
    return failed.length === 0 ? "allowed" : "denied";
  };

  test("selfSigned: a ValidatingAdmissionPolicy lets the service account change only caBundle", async () => {
    const manifests = await render();
    const policy = find(manifests, "ValidatingAdmissionPolicy", `${fullname}-ca-bundle-only`);
    const binding = find(manifests, "ValidatingAdmissionPolicyBinding", `${fullname}-ca-bundle-only`);
    assert.equal(binding.spec.policyName, policy.metadata.name);
    assert.deepEqual(binding.spec.validationActions, ["Deny"]);
    assert.deepEqual(policy.spec.matchConstraints.resourceRules[0].resourceNames, [configurationName]);
    assert.deepEqual(policy.spec.matchConstraints.resourceRules[0].operations, ["UPDATE"]);
    for (const kind of ["MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"]) {
      const stored = find(manifests, kind, configurationName);
      const changed = (change: (copy: any) => void) => {
        const copy = structuredClone(stored);
        change(copy);
        return policyVerdict(policy, account, stored, copy);
      };
      assert.equal(
        changed(() => {}),
        "allowed",
        kind,
      );
      assert.equal(
        changed((c) => {
          for (const webhook of c.webhooks) webhook.clientConfig.caBundle = "bmV3IENB";
        }),
        "allowed",
        `${kind}: caBundle`,
      );
      const forbidden: Record<string, (c: any) => void> = {
        "service redirected": (c) => {
          c.webhooks[0].clientConfig.service.name = "attacker";
        },
        "url instead of service": (c) => {
          delete c.webhooks[0].clientConfig.service;
          c.webhooks[0].clientConfig.url = "https://attacker.example.com/";
        },
        "rules widened": (c) => {
          c.webhooks[0].rules[0].resources = ["*"];
        },
        "namespaceSelector dropped": (c) => {
          delete c.webhooks[0].namespaceSelector;
        },
        "failurePolicy relaxed": (c) => {
          c.webhooks[0].failurePolicy = c.webhooks[0].failurePolicy === "Fail" ? "Ignore" : "Fail";
        },
        "timeout changed": (c) => {
          c.webhooks[0].timeoutSeconds = 30;
        },
        "objectSelector added": (c) => {
          c.webhooks[0].objectSelector = { matchLabels: { skip: "no" } };
        },
        "webhook added": (c) => {
          c.webhooks.push({ ...structuredClone(c.webhooks[0]), name: "extra.example.com" });
        },
        "webhook renamed": (c) => {
          c.webhooks[0].name = "renamed.example.com";
        },
        "label changed": (c) => {
          c.metadata.labels["app.kubernetes.io/instance"] = "other";
        },
        "finalizer added": (c) => {
          c.metadata.finalizers = ["example.com/stuck"];
        },
      };
      for (const [name, change] of Object.entries(forbidden)) {
        assert.equal(changed(change), "denied", `${kind}: ${name}`);
      }
      // Other users (helm upgrades, administrators) are not this policy's business.
      const redirect = structuredClone(stored);
      redirect.webhooks[0].clientConfig.service.name = "elsewhere";
      assert.equal(policyVerdict(policy, "kubernetes-admin", stored, redirect), "not matched");
    }
  });

  test("the policy comes only with selfSigned (no patch permission otherwise) and can be turned off", async () => {
    for (const values of [
      { certificates: { mode: "certManager" } },
      { caBundlePolicy: { enabled: false } },
    ]) {
      const kinds = (await render(values)).map((m) => m.kind);
      assert.ok(!kinds.includes("ValidatingAdmissionPolicy"), JSON.stringify(values));
      assert.ok(!kinds.includes("ValidatingAdmissionPolicyBinding"), JSON.stringify(values));
    }
  });

  test("an optional NetworkPolicy admits the webhook port only, metrics only from the peers given", async () => {
    assert.ok(!(await render()).some((m) => m.kind === "NetworkPolicy"), "off by default");
    const closed = find(await render({ networkPolicy: { enabled: true } }), "NetworkPolicy", fullname);
    assert.deepEqual(closed.spec.policyTypes, ["Ingress"]);
    assert.deepEqual(closed.spec.ingress, [{ ports: [{ port: 8443, protocol: "TCP" }] }]);
    const manifests = await render(variants["network policy with metrics peers"]);
    const policy = find(manifests, "NetworkPolicy", fullname);
    const pod = find(manifests, "Deployment").spec.template;
    assert.ok(selectorMatches(policy.spec.podSelector, pod.metadata.labels));
    assert.deepEqual(policy.spec.ingress[1], {
      ports: [{ port: 8080, protocol: "TCP" }],
      from: [{ namespaceSelector: { matchLabels: { team: "monitoring" } } }],
    });
    const ports = pod.spec.containers[0].ports.map((p: { containerPort: number }) => p.containerPort);
    assert.deepEqual(ports, [8443, 8080]);
  });

  test("metrics listen where --metrics-bind-address says, and the pod exposes no metrics port when off", async () => {
    const container = (manifests: Manifest[]) =>
      find(manifests, "Deployment").spec.template.spec.containers[0];
    const standard = container(await render());
    assert.ok(standard.args.includes("--metrics-bind-address=:8080"));
    assert.deepEqual(standard.ports.find((p: { name: string }) => p.name === "metrics")?.containerPort, 8080);
    const local = container(await render({ metricsBindAddress: "127.0.0.1:9090" }));
    assert.ok(local.args.includes("--metrics-bind-address=127.0.0.1:9090"));
    assert.equal(local.ports.find((p: { name: string }) => p.name === "metrics")?.containerPort, 9090);
    const off = container(await render({ metricsBindAddress: "0" }));
    assert.ok(off.args.includes("--metrics-bind-address=0"));
    assert.ok(!off.ports.some((p: { name: string }) => p.name === "metrics"));
  });

  test("the playground: off by default (no flag, no port); playgroundBindAddress serves it on a container port of its own", async () => {
    const container = (manifests: Manifest[]) =>
      find(manifests, "Deployment").spec.template.spec.containers[0];
    const standard = container(await render());
    assert.ok(!standard.args.some((arg: string) => arg.startsWith("--playground")));
    assert.ok(!standard.ports.some((p: { name: string }) => p.name === "playground"));
    const on = container(await render({ playgroundBindAddress: "127.0.0.1:8090" }));
    assert.ok(on.args.includes("--playground=127.0.0.1:8090"));
    assert.equal(on.ports.find((p: { name: string }) => p.name === "playground")?.containerPort, 8090);
    assert.deepEqual(
      on.ports.map((p: { containerPort: number }) => p.containerPort),
      [8443, 8080, 8090],
    );
    // --set playgroundBindAddress=0 gives the number 0: off as well.
    const off = container(await render({ playgroundBindAddress: 0 }));
    assert.ok(!off.args.some((arg: string) => arg.startsWith("--playground")));
  });

  test("the pod runs at system-cluster-critical priority unless told otherwise", async () => {
    assert.equal(
      find(await render(), "Deployment").spec.template.spec.priorityClassName,
      "system-cluster-critical",
    );
    const custom = await render({ priorityClassName: "webhooks" });
    assert.equal(find(custom, "Deployment").spec.template.spec.priorityClassName, "webhooks");
  });
});
