import { join } from "node:path";
import { mutate, validate } from "../src/admission/handler.js";
import { addonOperatorConfigMapKind } from "../src/resources/addon-operator-configmap/index.js";
import { moduleKind } from "../src/resources/module/index.js";
import * as r from "./requests.js";

const which = process.argv[2];
const n = Number(process.argv[3]);
const cm = addonOperatorConfigMapKind({
  modulesDir: join(r.deckhouseDir, "modules"),
  globalHooksDir: join(r.deckhouseDir, "global-hooks"),
  configMap: { namespace: "addon-operator", name: "addon-operator" },
});
const f = {
  validate: () => validate(moduleKind as never, JSON.parse(r.validateBody).request),
  mutate: () => mutate(moduleKind as never, JSON.parse(r.mutateBody).request),
  update: () => validate(moduleKind as never, JSON.parse(r.updateBody).request),
  configmap: () => validate(cm as never, JSON.parse(r.configMapBody).request),
}[which as "validate"];
for (let i = 0; i < n; i++) f();
