import { parentPort, workerData } from "node:worker_threads";
import { InputError } from "./manifests.js";
import { type Batch, validateBatch } from "./validate-batch.js";

/** A worker thread of `validate --jobs N`: validates its batch, reporting progress and then the result. */
try {
  const result = await validateBatch(workerData as Batch, (bytes) => parentPort?.postMessage({ bytes }));
  parentPort?.postMessage({ result });
} catch (error) {
  if (!(error instanceof InputError)) throw error;
  parentPort?.postMessage({ inputError: error.message });
}
