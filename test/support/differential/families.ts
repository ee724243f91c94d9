import type { GoOracle } from "../go-oracle.js";
import { addonValuesDifferential, generateAddonValues } from "./addon-values.js";
import { celDifferential, generateCel } from "./cel.js";
import { configMapDifferential, generateConfigMapData } from "./configmap.js";
import { cronDifferential, generateCron } from "./cron.js";
import { fmtDifferential, generateFmt } from "./fmt.js";
import { generateModule, moduleDifferential } from "./module.js";
import { generateNumber, numberDifferential } from "./numbers.js";
import type { DifferentialRun, Random } from "./random.js";
import { generateTemplate, templateDifferential } from "./template.js";
import { generateTemplateDataModule, templateDataDifferential } from "./template-data.js";
import { generateUrl, urlDifferential } from "./url.js";
import { generateYamlDocument, yamlDifferential } from "./yaml.js";

/** A differential family: a generator of inputs and the comparison of Go's answers with the port's. */
export interface Family<Input = unknown> {
  name: string;
  generate(random: Random): Input;
  run(oracle: GoOracle, inputs: readonly Input[]): Promise<DifferentialRun>;
}

const family = <Input>(f: Family<Input>): Family => f as Family;

/** Every family `npm run fuzz:oracle` runs, in this order. */
export const families: Family[] = [
  family({ name: "urls", generate: generateUrl, run: urlDifferential }),
  family({ name: "cron", generate: generateCron, run: cronDifferential }),
  family({ name: "yaml", generate: generateYamlDocument, run: yamlDifferential }),
  family({ name: "numbers", generate: generateNumber, run: numberDifferential }),
  family({ name: "configmaps", generate: generateConfigMapData, run: configMapDifferential }),
  family({ name: "addon-values", generate: generateAddonValues, run: addonValuesDifferential }),
  family({ name: "cel", generate: generateCel, run: celDifferential }),
  family({ name: "templates", generate: generateTemplate, run: templateDifferential }),
  family({ name: "fmt", generate: generateFmt, run: fmtDifferential }),
  family({ name: "template-data", generate: generateTemplateDataModule, run: templateDataDifferential }),
  family({ name: "modules", generate: generateModule, run: moduleDifferential }),
];
