import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import type { Page } from "./chromium.js";

const root = fileURLToPath(new URL("../..", import.meta.url));

/** `npm run build:playground`: dist/playground/, from the sources as they are now. */
export function buildPlayground(): void {
  const build = spawnSync(process.execPath, ["--import", "tsx", "scripts/build-playground.ts"], {
    cwd: root,
    encoding: "utf8",
  });
  if (build.status !== 0) throw new Error(`npm run build:playground failed:\n${build.stdout}${build.stderr}`);
}

/**
 * The command as it ships (`npm run compile`'s bundle, dist/cli/main.js), without the type-checking
 * emit of the whole project before it (the page's tests need only the command).
 */
export function bundleCli(): string {
  const bundle = spawnSync(process.execPath, ["scripts/bundle-cli.mjs"], { cwd: root, encoding: "utf8" });
  if (bundle.status !== 0) throw new Error(`bundling failed:\n${bundle.stdout}${bundle.stderr}`);
  return `${root}dist/cli/main.js`;
}

/** `module-admission playground --port 0` (the built command) and the address it serves the page at. */
export async function servePlayground(cli: string): Promise<{ url: string; server: ChildProcess }> {
  const server = spawn(process.execPath, [cli, "playground", "--port", "0"], {
    cwd: root,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  server.stderr?.setEncoding("utf8").on("data", (text: string) => {
    output += text;
  });
  server.stdout?.setEncoding("utf8");
  const exited = once(server, "exit").then(([code]) => {
    throw new Error(`module-admission playground exited (${code}): ${output}`);
  });
  const listening = new Promise<string>((resolve) => {
    server.stdout?.on("data", (text: string) => {
      output += text;
      const url = /playground: (http:\S+)/.exec(output)?.[1];
      if (url) resolve(url);
    });
  });
  const url = await Promise.race([listening, exited]);
  return { url, server };
}

/** What the page shows once its verdict follows the text. */
export interface PageVerdict {
  verdict: string;
  text: string;
  summary: Record<string, unknown> | undefined;
  findings: Record<string, unknown>[];
  mutations: string;
  notChecked: string[];
}

/** Resolves once the page's verdict is on the current text (the verdict is no longer `aria-busy`). */
export function settled(page: Page): Promise<unknown> {
  return page.evaluate(`new Promise((resolve) => {
    const verdict = document.getElementById("verdict");
    const done = () => verdict.getAttribute("aria-busy") === "false";
    if (done()) return resolve(true);
    new MutationObserver((_, observer) => {
      if (done()) { observer.disconnect(); resolve(true); }
    }).observe(verdict, { attributes: true });
  })`);
}

/** Reads the verdict, the findings and the rest from the DOM. */
export async function readVerdict(page: Page): Promise<PageVerdict> {
  await settled(page);
  return page.evaluate<PageVerdict>(`(() => {
    const verdict = document.getElementById("verdict");
    return {
      verdict: verdict.dataset.verdict ?? "",
      text: verdict.textContent,
      summary: verdict.dataset.summary ? JSON.parse(verdict.dataset.summary) : undefined,
      findings: [...document.querySelectorAll("#findings li")].map((li) => JSON.parse(li.dataset.finding)),
      mutations: document.getElementById("mutations").textContent,
      notChecked: [...document.querySelectorAll("#not-checked li")].map((li) => li.textContent),
    };
  })()`);
}

/**
 * Above this size a paste is made as the page sees one (the value set, then an `input` event of type
 * insertFromPaste) rather than through Chromium's editing: Input.insertText of the 400 KB corpus took
 * minutes and gigabytes in the renderer; the page's own work on it, 3 s.
 */
const typedPasteBytes = 16 * 1024;

/** Pastes `text` over an editor's content, as a user does: focus, select all, paste (or delete). */
export async function paste(page: Page, id: string, text: string): Promise<void> {
  const editor = `document.getElementById(${JSON.stringify(id)})`;
  if (text.length > typedPasteBytes) {
    await page.evaluate(`(() => {
      const editor = ${editor};
      editor.focus();
      editor.value = ${JSON.stringify(text)};
      editor.dispatchEvent(new InputEvent("input", { inputType: "insertFromPaste" }));
    })()`);
    return;
  }
  await page.evaluate(`(() => { const editor = ${editor}; editor.focus(); editor.select(); })()`);
  if (text !== "") await page.send("Input.insertText", { text });
  else {
    for (const type of ["keyDown", "keyUp"])
      await page.send("Input.dispatchKeyEvent", {
        type,
        key: "Delete",
        code: "Delete",
        windowsVirtualKeyCode: 46,
      });
  }
}

/** Presses a key (Tab, Enter, Space) in the page, as a keyboard does. */
export async function press(page: Page, key: "Tab" | "Enter" | " ", shift = false): Promise<void> {
  const codes = { Tab: ["Tab", 9], Enter: ["Enter", 13], " ": ["Space", 32] } as const;
  const [code, keyCode] = codes[key];
  const text = key === "Enter" ? "\r" : key === " " ? " " : undefined;
  await page.send("Input.dispatchKeyEvent", {
    type: "keyDown",
    key,
    code,
    windowsVirtualKeyCode: keyCode,
    modifiers: shift ? 8 : 0,
    ...(text ? { text } : {}),
  });
  await page.send("Input.dispatchKeyEvent", { type: "keyUp", key, code, windowsVirtualKeyCode: keyCode });
}
