/**
 * What a parsed template reads and calls, and what its output can be, found without executing it.
 * Dot and variables are followed through `with`, `if`/`with` declarations, `$x := .a.b` and template
 * calls; where the data is not known statically (inside `range`, a template called without data or
 * with a function's result, a variable bound to a function's result or reassigned), a field read is
 * counted in `unresolvedFields` instead.
 */
import { costs } from "./costs.js";
import type { ArgNode, ListItem, ListNode, NumberNode, PipeNode } from "./nodes.js";

export interface Located {
  /** Index of the node in the template text. */
  pos: number;
}
export interface FieldReference extends Located {
  /** The chain from the root data: `.config.replicas` and `$.config.replicas` are ["config", "replicas"]. */
  path: string[];
}
export interface FunctionCall extends Located {
  name: string;
}
export interface TemplateCall extends Located {
  name: string;
}

/** One piece of the top-level template's output, in order. */
export type OutputPart =
  | { kind: "text"; text: string }
  /** An action that prints a field chain of the root data as it is. */
  | { kind: "field"; path: string[] }
  /** An if or with: one of these outputs (an absent else is an empty one). */
  | { kind: "choice"; options: OutputPart[][] }
  /** Anything else: a function's result, a control structure, a template call, a computed value. */
  | { kind: "dynamic" };

export interface TemplateAnalysis {
  fields: FieldReference[];
  /** Field reads whose data the analysis cannot place (so `fields` may not be all the root reads). */
  unresolvedFields: number;
  functions: FunctionCall[];
  templateCalls: TemplateCall[];
  /** Templates the text defines with define or block, besides the top-level one. */
  definedTemplates: string[];
  output: OutputPart[];
}

type Path = string[] | null;

/** Variables in scope: a stack per name, undone when a block ends. */
class Scope {
  private readonly stacks = new Map<string, Path[]>();
  private readonly log: string[] = [];

  constructor(dollar: Path) {
    this.declare("$", dollar);
  }
  mark(): number {
    return this.log.length;
  }
  declare(name: string, path: Path): void {
    const stack = this.stacks.get(name) ?? [];
    stack.push(path);
    this.stacks.set(name, stack);
    this.log.push(name);
  }
  /** `$x = …`: from here on, $x may hold either value. */
  forget(name: string): void {
    const stack = this.stacks.get(name);
    if (stack && stack.length > 0) stack[stack.length - 1] = null;
  }
  lookup(name: string): Path {
    const stack = this.stacks.get(name);
    return stack?.[stack.length - 1] ?? null;
  }
  undo(mark: number): void {
    while (this.log.length > mark) this.stacks.get(this.log.pop() as string)?.pop();
  }
}

class Walker {
  /** Template calls met so far, with the data each passes: the templates to walk next. */
  readonly calls: { name: string; dot: Path }[] = [];
  /** False while walking a template no execution reaches: its reads do not happen. */
  reading = true;
  readonly result: TemplateAnalysis = {
    fields: [],
    unresolvedFields: 0,
    functions: [],
    templateCalls: [],
    definedTemplates: [],
    output: [],
  };

  constructor(private readonly charge: (units: number) => void) {}

  private field(base: Path, ident: string[], pos: number): Path {
    if (base === null) {
      if (this.reading) this.result.unresolvedFields++;
      return null;
    }
    this.charge(costs.analysedField + base.length + ident.length);
    const path = [...base, ...ident];
    if (this.reading) this.result.fields.push({ pos, path });
    return path;
  }

  /** The data path an argument evaluates to, if it is a plain chain of the data; records reads and calls. */
  private arg(node: ArgNode, dot: Path, scope: Scope): Path {
    this.charge(costs.analysedNode);
    switch (node.type) {
      case "field":
        return this.field(dot, node.ident, node.pos);
      case "variable": {
        const [name, ...ident] = node.ident;
        const base = scope.lookup(name as string);
        return ident.length === 0 ? base : this.field(base, ident, node.pos);
      }
      case "dot":
        return dot;
      case "chain": {
        const base = this.arg(node.node, dot, scope);
        return this.field(base, node.field, node.pos);
      }
      case "identifier":
        this.result.functions.push({ pos: node.pos, name: node.ident });
        return null;
      case "pipe":
        return this.pipe(node, dot, scope);
      default:
        return null;
    }
  }

  /** Walks a pipeline; returns the data path it evaluates to when it is one plain chain. */
  private pipe(pipe: PipeNode, dot: Path, scope: Scope): Path {
    let value: Path = null;
    for (const cmd of pipe.cmds) {
      const paths = cmd.args.map((a) => this.arg(a, dot, scope));
      const first = cmd.args[0];
      const plain =
        cmd.args.length === 1 && pipe.cmds.length === 1 && first !== undefined && first.type !== "identifier";
      value = plain ? (paths[0] ?? null) : null;
    }
    for (const v of pipe.decl) {
      const name = v.ident[0] as string;
      if (pipe.isAssign) scope.forget(name);
      else scope.declare(name, pipe.decl.length === 1 ? value : null);
    }
    return value;
  }

  list(list: ListNode | null, dot: Path, scope: Scope, output: OutputPart[] | null): void {
    for (const node of list?.nodes ?? []) this.node(node, dot, scope, output);
  }

  private node(node: ListItem, dot: Path, scope: Scope, output: OutputPart[] | null): void {
    this.charge(costs.analysedNode);
    switch (node.type) {
      case "text":
        output?.push({ kind: "text", text: node.text });
        return;
      case "action": {
        const value = this.pipe(node.pipe, dot, scope);
        if (node.pipe.decl.length === 0) output?.push(printed(node.pipe, value));
        return;
      }
      case "if":
      case "with":
      case "range": {
        const branches: OutputPart[][] | null = output && node.type !== "range" ? [[], []] : null;
        output?.push(branches ? { kind: "choice", options: branches } : { kind: "dynamic" });
        const mark = scope.mark();
        const value = this.pipe(node.pipe, dot, scope);
        if (node.type === "range") for (const v of node.pipe.decl) scope.forget(v.ident[0] as string);
        const inner = node.type === "with" ? value : node.type === "range" ? null : dot;
        this.list(node.list, inner, scope, branches?.[0] ?? null);
        this.list(node.elseList, dot, scope, branches?.[1] ?? null);
        scope.undo(mark);
        return;
      }
      case "template":
        output?.push({ kind: "dynamic" });
        this.result.templateCalls.push({ pos: node.pos, name: node.name });
        this.calls.push({ name: node.name, dot: node.pipe ? this.pipe(node.pipe, dot, scope) : null });
        return;
      case "break":
      case "continue":
        return;
    }
  }
}

/** What an action prints, when it is a literal or a plain data chain. */
function printed(pipe: PipeNode, value: Path): OutputPart {
  const only = pipe.cmds.length === 1 && pipe.cmds[0]?.args.length === 1 ? pipe.cmds[0].args[0] : undefined;
  if (only?.type === "string") return { kind: "text", text: only.text };
  if (only?.type === "bool") return { kind: "text", text: String(only.value) };
  if (only?.type === "number" && printsAsInt(only)) return { kind: "text", text: String(only.value.int) };
  if (value !== null && value.length > 0) return { kind: "field", path: value };
  return { kind: "dynamic" };
}

/** text/template's idealConstant: a constant prints as an int unless it is complex, a float or too big. */
function printsAsInt({ text, value }: NumberNode): boolean {
  if (value.isComplex || !value.isInt) return false;
  const hexInt = /^0[xX]/.test(text) && !/[pP]/.test(text);
  return !value.isFloat || hexInt || text.startsWith("'") || !/[.eEpP]/.test(text);
}

/** Walks of a called template with distinct data, at most; then each is walked once with unknown data. */
const maxTemplateWalks = 32;

/**
 * Analyses the templates of one parse as execution reaches them: the top-level one (`name`) with the
 * root data as dot and `$`, each called template (`{{template}}`, `{{block}}`) with the data its call
 * passes. Templates no execution reaches are walked for their function calls only. `charge` is told
 * of the work, node by node.
 */
export function analyzeTrees(
  trees: ReadonlyMap<string, ListNode>,
  name: string,
  charge: (units: number) => void = () => {},
): TemplateAnalysis {
  const walker = new Walker(charge);
  walker.list(trees.get(name) ?? null, [], new Scope([]), walker.result.output);
  const walked = new Set<string>();
  const reached = new Set<string>();
  for (let i = 0; i < walker.calls.length; i++) {
    const call = walker.calls[i] as { name: string; dot: Path };
    const tree = trees.get(call.name);
    if (tree === undefined) continue;
    const dot = walked.size < maxTemplateWalks ? call.dot : null;
    const key = `${call.name}\n${dot === null ? "?" : dot.join(".")}`;
    if (walked.has(key)) continue;
    walked.add(key);
    reached.add(call.name);
    walker.list(tree, dot, new Scope(dot), null);
  }
  walker.reading = false;
  for (const [other, list] of trees) {
    if (other === name) continue;
    walker.result.definedTemplates.push(other);
    if (!reached.has(other)) walker.list(list, null, new Scope(null), null);
  }
  return walker.result;
}
