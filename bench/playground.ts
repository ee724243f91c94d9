// `npm run bench:playground`: how long the playground takes from the last keystroke to the verdict on a
// 10 KB Module, in a real headless Chromium (the target: 200 ms). Each round types one
// character at the end of the object (Input.insertText, as a keyboard does); the page stamps the input
// event and the moment its verdict stops being `aria-busy`, so the figure includes the page's pause
// before judging (it waits for typing to stop) and the rendering of the findings.
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import { playgroundHandler } from "../src/cli/playground-files.js";
import { launchChromium } from "../test/support/chromium.js";
import { buildPlayground, paste, readVerdict, settled } from "../test/support/playground.js";

const rounds = Number(process.argv[2] ?? 30);

/** examples/modules/redis.yaml's Modules with config entries added until the text is about 10 KB. */
function tenKilobyteModule(): string {
  const base = readFileSync(new URL("../examples/modules/redis.yaml", import.meta.url), "utf8");
  const entries: string[] = [];
  for (let i = 0; base.length + entries.join("").length < 10_000; i++) {
    entries.push(
      `  - name: Setting ${i}\n    alias: setting${i}\n    string:\n      default: value-${i}\n      regex: "^[a-z0-9-]+$"\n`,
    );
  }
  return base.replace("config:\n", `config:\n${entries.join("")}`);
}

buildPlayground();
const handler = playgroundHandler();
if (!handler) throw new Error("the playground was not built");
const server = createServer(handler);
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
const { port } = server.address() as { port: number };
const browser = await launchChromium();
try {
  const page = await browser.newPage();
  await page.goto(`http://127.0.0.1:${port}/`);
  await readVerdict(page);
  const object = tenKilobyteModule();
  await paste(page, "object", object);
  const first = await readVerdict(page);
  await page.evaluate(`(() => {
    const verdict = document.getElementById("verdict");
    window.latencies = [];
    document.getElementById("object").addEventListener("input", () => { window.typedAt = performance.now(); });
    new MutationObserver(() => {
      if (verdict.getAttribute("aria-busy") === "false" && window.typedAt !== undefined) {
        window.latencies.push(performance.now() - window.typedAt);
        window.typedAt = undefined;
      }
    }).observe(verdict, { attributes: true });
  })()`);
  for (let i = 0; i < rounds; i++) {
    await page.evaluate(`(() => {
      const editor = document.getElementById("object");
      editor.focus();
      editor.setSelectionRange(editor.value.length, editor.value.length);
    })()`);
    await page.send("Input.insertText", { text: i % 2 === 0 ? "\n" : " " });
    await settled(page);
  }
  const latencies = (await page.evaluate<number[]>("window.latencies")).sort((a, b) => a - b);
  const at = (q: number) =>
    latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? NaN;
  console.log(
    `playground: ${object.length} bytes, ${first.summary?.objects} objects (${first.verdict}); ` +
      `keystroke to verdict over ${latencies.length} rounds: median ${at(0.5).toFixed(0)} ms, ` +
      `p90 ${at(0.9).toFixed(0)} ms, max ${at(1).toFixed(0)} ms (includes the page's 60 ms pause)`,
  );
} finally {
  await browser.close();
  server.close();
}
