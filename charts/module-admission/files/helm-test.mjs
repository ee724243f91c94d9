// `helm test`: posts one AdmissionReview (a Module with an invalid release name) to the webhook
// Service, verifying its certificate against the CA the API server trusts, and passes only if the
// webhook answers that review, by uid, with a denial. Run by the image's own Node.js (no shell there).
import { readFileSync } from "node:fs";
import { request } from "node:https";

const { WEBHOOK_URL, CA_FILE, CA_BUNDLE } = process.env;
const ca = CA_BUNDLE ? Buffer.from(CA_BUNDLE, "base64").toString("utf8") : readFileSync(CA_FILE, "utf8");
const uid = `helm-test-${Date.now()}`;
const module = {
  apiVersion: "batch.forkspacer.com/v1",
  kind: "Module",
  metadata: { name: "helm-test", namespace: "default" },
  spec: {
    helm: {
      releaseName: "Not_A_Label",
      namespace: "default",
      chart: { repo: { url: "https://charts.example.com", chart: "x", version: "1.0.0" } },
    },
    workspace: { name: "helm-test" },
  },
};
const review = {
  apiVersion: "admission.k8s.io/v1",
  kind: "AdmissionReview",
  request: {
    uid,
    kind: { group: "batch.forkspacer.com", version: "v1", kind: "Module" },
    resource: { group: "batch.forkspacer.com", version: "v1", resource: "modules" },
    name: "helm-test",
    namespace: "default",
    operation: "CREATE",
    userInfo: { username: "helm-test" },
    object: module,
    dryRun: true,
  },
};
const body = JSON.stringify(review);
const fail = (message) => {
  console.error(`helm test: ${message}`);
  process.exit(1);
};
const req = request(
  WEBHOOK_URL,
  { method: "POST", ca, headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) }, timeout: 10000 },
  (res) => {
    let text = "";
    res.setEncoding("utf8");
    res.on("data", (chunk) => (text += chunk));
    res.on("end", () => {
      if (res.statusCode !== 200) fail(`HTTP ${res.statusCode}: ${text}`);
      const answer = JSON.parse(text).response;
      if (answer?.uid !== uid) fail(`the answer is not for this review: ${text}`);
      if (answer.allowed !== false) fail(`an invalid Module was admitted: ${text}`);
      console.log(`helm test: the webhook denied the invalid Module: ${answer.status?.message}`);
    });
  },
);
req.on("timeout", () => req.destroy(new Error("no answer within 10 s")));
req.on("error", (error) => fail(error.message));
req.end(body);
