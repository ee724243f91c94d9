/**
 * Template execution as Go 1.24's text/template does it (exec.go, funcs.go), for the values the
 * Forkspacer operator passes: data of maps, strings, ints and bools, Go's built-in functions and
 * randBase62, the default missingkey (a missing key prints `<no value>`), errors worded as Go words
 * them. Every step charges the caller's WorkBudget. Where Go's behaviour is not modelled (a printf
 * verb, a value type, a recursion deeper than JavaScript's stack allows) it throws Unsupported, and
 * the caller must then not decide anything from the template.
 */
import type { WorkBudget } from "../budget/work-budget.js";
import { type FmtArg, formatValue, formatValueS, sprint, sprintf, sprintln } from "./fmt.js";
import { goQuote, isPrint } from "./go-strings.js";
import {
  type ArgNode,
  type BranchNode,
  type ChainNode,
  type CommandNode,
  type FieldNode,
  type IdentifierNode,
  type ListItem,
  type ListNode,
  type NumberNode,
  nodeString,
  type PipeNode,
  type TemplateNode,
  type VariableNode,
} from "./nodes.js";
import {
  Boxed,
  compareGoStrings,
  GoComplex,
  GoFloat,
  GoStrings,
  GoUint,
  type GoValue,
  isMap,
  sortedKeys,
  typeName,
  Unsupported,
  unbox,
  type Value,
} from "./values.js";

export type ExecResult = { ok: true; output: string } | { ok: false; error: string };

export interface ExecOptions {
  budget: WorkBudget;
  /** randBase62's result for a length (the operator's is random); called only for lengths the budget allows. */
  randBase62: (length: number) => string;
}

/** How deep `{{template}}` calls may nest here; Go allows 100000, JavaScript's stack does not. */
const maxTemplateDepth = 1000;

const missing = Symbol("missing");
type Final = Value | typeof missing;

/** A parameter's type in a built-in's signature: reflect.Value, any, string or uint. */
type ParamType = "value" | "any" | "string" | "uint";

interface Signature {
  params: ParamType[];
  variadic: boolean;
  fn: (args: Value[], options: ExecOptions) => Value;
}

class GoError extends Error {}

/** text/template's limit on nested template calls (exec.go, maxExecDepth). */
const goMaxExecDepth = 100000;

/** Whether two dots are the same Go value: the same primitive, or the same map or list. */
function sameValue(a: Value, b: Value): boolean {
  const x = a instanceof Boxed ? a.value : a;
  const y = b instanceof Boxed ? b.value : b;
  if (x instanceof GoFloat && y instanceof GoFloat) return Object.is(x.value, y.value);
  return Object.is(x, y);
}
class ExecFailure extends Error {}
const breakSignal = { loop: "break" };
const continueSignal = { loop: "continue" };

/**
 * `tmpl.Execute(&buf, data)` for the template `name` of `trees` (parsed from `text`): Go's output, or
 * Go's error message.
 */
export function executeTemplate(
  text: string,
  trees: ReadonlyMap<string, ListNode>,
  name: string,
  data: Value,
  options: ExecOptions,
): ExecResult {
  const root = trees.get(name);
  if (!root) throw new Unsupported("an empty template");
  const state = new State(text, trees, name, options);
  try {
    state.vars.push({ name: "$", value: data });
    state.walk(data, root);
  } catch (e) {
    if (e instanceof ExecFailure) return { ok: false, error: e.message };
    if (e instanceof RangeError) throw new Unsupported("a template nesting deeper than the stack allows");
    throw e;
  }
  return { ok: true, output: state.output.join("") };
}

type Node = ArgNode | CommandNode | ListItem | ListNode;

class State {
  vars: { name: string; value: Value }[] = [];
  output: string[] = [];
  private node: Node | undefined;
  private depth = 0;
  /** The templates being executed, innermost last: each with its dot and the call that entered it. */
  private frames: { name: string; value: Value; entry: TemplateNode }[] = [];

  constructor(
    private readonly text: string,
    private readonly trees: ReadonlyMap<string, ListNode>,
    private tmplName: string,
    private readonly options: ExecOptions,
  ) {}

  private at(node: Node): void {
    this.node = node;
  }

  private errorf(message: string): never {
    const node = this.node as Node;
    const before = this.text.slice(0, "goPos" in node && node.goPos !== undefined ? node.goPos : node.pos);
    const newline = before.lastIndexOf("\n");
    const column = Buffer.byteLength(newline < 0 ? before : before.slice(newline + 1), "utf8");
    let line = 1;
    for (let i = before.indexOf("\n"); i >= 0; i = before.indexOf("\n", i + 1)) line++;
    throw new ExecFailure(
      `template: :${line}:${column}: executing ${goQuote(this.tmplName)} at <${context(node)}>: ${message}`,
    );
  }

  private charge(units: number): void {
    this.options.budget.charge(units, "executing a template");
  }

  walk(dot: Value, node: ListNode | ListItem): void {
    this.charge(1);
    this.at(node);
    switch (node.type) {
      case "list":
        for (const item of node.nodes) this.walk(dot, item);
        return;
      case "text":
        this.charge(node.text.length);
        this.output.push(node.text);
        return;
      case "action": {
        const value = this.evalPipeline(dot, node.pipe);
        if (node.pipe.decl.length === 0) this.printValue(node, value);
        return;
      }
      case "if":
      case "with":
        this.walkIfOrWith(dot, node);
        return;
      case "range":
        this.walkRange(dot, node);
        return;
      case "template":
        this.walkTemplate(dot, node);
        return;
      case "break":
        throw breakSignal;
      case "continue":
        throw continueSignal;
    }
  }

  private printValue(node: ListItem, value: Value): void {
    this.at(node);
    const text = value === undefined ? "<no value>" : formatValue(value);
    this.charge(text.length);
    this.output.push(text);
  }

  private walkIfOrWith(dot: Value, node: BranchNode): void {
    const mark = this.vars.length;
    const value = this.evalPipeline(dot, node.pipe);
    if (isTrue(unbox(value))) this.walk(node.type === "with" ? value : dot, node.list);
    else if (node.elseList) this.walk(dot, node.elseList);
    this.vars.length = mark;
  }

  private walkRange(dot: Value, node: BranchNode): void {
    this.at(node);
    const outer = this.vars.length;
    const value = unbox(this.evalPipeline(dot, node.pipe));
    const mark = this.vars.length;
    const decl = node.pipe.decl.length;
    const iteration = (index: Value, element: Value): boolean => {
      this.charge(1);
      if (decl > 0) (this.vars[this.vars.length - 1] as { value: Value }).value = element;
      if (decl > 1) (this.vars[this.vars.length - 2] as { value: Value }).value = index;
      try {
        this.walk(element, node.list);
      } catch (e) {
        if (e === breakSignal) return false;
        if (e !== continueSignal) throw e;
      } finally {
        this.vars.length = mark;
      }
      return true;
    };
    let ran = false;
    if (Array.isArray(value)) {
      ran = value.length > 0;
      for (let i = 0; i < value.length; i++) if (!iteration(i, element(value, i))) break;
    } else if (isMap(value)) {
      const keys = sortedKeys(value);
      this.charge(keys.length);
      ran = keys.length > 0;
      for (const key of keys) if (!iteration(key, new Boxed(value[key] ?? null))) break;
    } else if (typeof value === "number" || value instanceof GoUint) {
      // Go 1.24: range over an integer.
      if (decl > 1) this.errorf(`can't use ${formatValue(value)} to iterate over more than one variable`);
      const n = typeof value === "number" ? value : value.value;
      ran = n > 0;
      for (let i = 0; i < n; i++) {
        const element = typeof value === "number" ? i : new GoUint(i, value.type);
        if (!iteration(undefined, element)) break;
      }
    } else if (value !== undefined) {
      this.errorf(`range can't iterate over ${formatValue(value)}`);
    }
    // walkRange recovers a break anywhere in the statement: in the else branch it ends this range.
    if (!ran && node.elseList) {
      try {
        this.walk(dot, node.elseList);
      } catch (e) {
        if (e !== breakSignal) throw e;
      }
    }
    this.vars.length = outer;
  }

  private walkTemplate(dot: Value, node: TemplateNode): void {
    this.at(node);
    const tree = this.trees.get(node.name);
    if (!tree) this.errorf(`template ${goQuote(node.name)} not defined`);
    if (this.depth >= maxTemplateDepth) throw new Unsupported("templates nested 1000 deep");
    const value = node.pipe ? this.evalPipeline(dot, node.pipe) : undefined;
    const again = this.frames.findIndex((f) => f.name === node.name && sameValue(f.value, value));
    if (again >= 0) this.recursesForever(again, node);
    const saved = { vars: this.vars, name: this.tmplName };
    this.vars = [{ name: "$", value }];
    this.tmplName = node.name;
    this.depth++;
    this.frames.push({ name: node.name, value, entry: node });
    try {
      this.walk(value, tree);
    } finally {
      this.frames.pop();
      this.depth--;
      this.vars = saved.vars;
      this.tmplName = saved.name;
    }
  }

  /**
   * A template entered again with the dot it is already running with: execution depends on nothing
   * else, so it repeats until Go's depth limit (exec.go, maxExecDepth 100000) stops it. The error is
   * Go's: at the call made by the template running at depth 100000 (which one of the cycle's frames
   * that is follows from the cycle's length), not after 100000 real calls.
   */
  private recursesForever(first: number, node: TemplateNode): never {
    const n = this.frames.length;
    const at = first + ((goMaxExecDepth - (first + 1)) % (n - first));
    this.tmplName = (this.frames[at] as { name: string }).name;
    this.at(at === n - 1 ? node : (this.frames[at + 1] as { entry: TemplateNode }).entry);
    return this.errorf(`exceeded maximum template depth (${goMaxExecDepth})`);
  }

  evalPipeline(dot: Value, pipe: PipeNode): Value {
    this.at(pipe);
    let value: Final = missing;
    for (const cmd of pipe.cmds) {
      value = unbox(this.evalCommand(dot, cmd, value));
    }
    const result = value as Value;
    for (const v of pipe.decl) {
      const name = v.ident[0] as string;
      if (pipe.isAssign) {
        const slot = this.findVar(name);
        if (!slot) this.errorf(`undefined variable: ${name}`);
        slot.value = result;
      } else this.vars.push({ name, value: result });
    }
    return result;
  }

  private findVar(name: string): { name: string; value: Value } | undefined {
    for (let i = this.vars.length - 1; i >= 0; i--) if (this.vars[i]?.name === name) return this.vars[i];
    return undefined;
  }

  private notAFunction(args: ArgNode[] | undefined, final: Final): void {
    if (args && (args.length > 1 || final !== missing))
      this.errorf(`can't give argument to non-function ${nodeString(args[0] as ArgNode)}`);
  }

  private evalCommand(dot: Value, cmd: CommandNode, final: Final): Value {
    this.charge(1);
    const first = cmd.args[0] as ArgNode;
    switch (first.type) {
      case "field":
        return this.evalFieldNode(dot, first, cmd.args, final);
      case "chain":
        return this.evalChainNode(dot, first, cmd.args, final);
      case "identifier":
        return this.evalFunction(dot, first, cmd, cmd.args, final);
      case "pipe":
        this.notAFunction(cmd.args, final);
        return this.evalPipeline(dot, first);
      case "variable":
        return this.evalVariableNode(first, cmd.args, final);
    }
    this.at(first);
    this.notAFunction(cmd.args, final);
    switch (first.type) {
      case "bool":
        return first.value;
      case "dot":
        return dot;
      case "nil":
        return this.errorf("nil is not a command");
      case "number":
        return this.idealConstant(first);
      case "string":
        return first.text;
    }
  }

  private idealConstant(node: NumberNode): Value {
    this.at(node);
    const n = node.value;
    if (n.isComplex) {
      const [re, im] = n.complex as [number, number];
      return new GoComplex(re, im);
    }
    const text = node.text;
    const hexInt = text.length > 2 && text[0] === "0" && /[xX]/.test(text[1] as string) && !/[pP]/.test(text);
    if (n.isFloat && !hexInt && text[0] !== "'" && /[.eEpP]/.test(text))
      return new GoFloat(n.float as number);
    if (n.isInt) return safeInt(n.int as bigint);
    if (n.isUint) this.errorf(`${text} overflows int`);
    return undefined;
  }

  private evalFieldNode(dot: Value, field: FieldNode, args: ArgNode[] | undefined, final: Final): Value {
    this.at(field);
    return this.evalFieldChain(dot, field.ident, args, final);
  }

  private evalChainNode(dot: Value, chain: ChainNode, args: ArgNode[] | undefined, final: Final): Value {
    this.at(chain);
    if (chain.node.type === "nil") this.errorf(`indirection through explicit nil in ${nodeString(chain)}`);
    const receiver = this.evalArg(dot, undefined, chain.node);
    return this.evalFieldChain(receiver, chain.field, args, final);
  }

  private evalVariableNode(v: VariableNode, args: ArgNode[] | undefined, final: Final): Value {
    this.at(v);
    const slot = this.findVar(v.ident[0] as string);
    if (!slot) this.errorf(`undefined variable: ${v.ident[0]}`);
    if (v.ident.length === 1) {
      this.notAFunction(args, final);
      return slot.value;
    }
    return this.evalFieldChain(slot.value, v.ident.slice(1), args, final);
  }

  private evalFieldChain(receiver: Value, ident: string[], args: ArgNode[] | undefined, final: Final): Value {
    const n = ident.length;
    for (let i = 0; i < n - 1; i++)
      receiver = this.evalField(ident[i] as string, undefined, missing, receiver);
    return this.evalField(ident[n - 1] as string, args, final, receiver);
  }

  private evalField(name: string, args: ArgNode[] | undefined, final: Final, receiver: Value): Value {
    this.charge(1);
    if (receiver === undefined) return undefined;
    const type = typeName(receiver);
    if (receiver instanceof Boxed && receiver.value === null)
      this.errorf(`nil pointer evaluating ${type}.${name}`);
    const value = unbox(receiver);
    if (isMap(value)) {
      if ((args && args.length > 1) || final !== missing)
        this.errorf(`${name} is not a method but has arguments`);
      return Object.hasOwn(value, name) ? new Boxed(value[name] ?? null) : undefined;
    }
    return this.errorf(`can't evaluate field ${name} in type ${type}`);
  }

  private evalFunction(
    dot: Value,
    node: IdentifierNode,
    cmd: Node,
    args: ArgNode[] | undefined,
    final: Final,
  ): Value {
    this.at(node);
    const signature = builtins.get(node.ident);
    if (!signature) return this.errorf(`${goQuote(node.ident)} is not a defined function`);
    return this.evalCall(dot, signature, cmd, node.ident, args, final);
  }

  private evalCall(
    dot: Value,
    signature: Signature,
    node: Node,
    name: string,
    allArgs: ArgNode[] | undefined,
    final: Final,
  ): Value {
    const args = allArgs ? allArgs.slice(1) : [];
    const { params, variadic } = signature;
    const numIn = args.length + (final !== missing ? 1 : 0);
    let numFixed = args.length;
    if (variadic) {
      numFixed = params.length - 1;
      if (numIn < numFixed)
        this.errorf(
          `wrong number of args for ${name}: want at least ${params.length - 1} got ${args.length}`,
        );
    } else if (numIn !== params.length) {
      this.errorf(`wrong number of args for ${name}: want ${params.length} got ${numIn}`);
    }
    if (name === "and" || name === "or") {
      let v: Value;
      for (const arg of args) {
        v = this.evalArg(dot, "value", arg);
        if (isTrue(unbox(v)) === (name === "or")) return v;
      }
      if (final !== missing) v = final;
      return v;
    }
    const argv: Value[] = [];
    let i = 0;
    for (; i < numFixed && i < args.length; i++) argv.push(this.evalArg(dot, params[i], args[i] as ArgNode));
    if (variadic) {
      const element = params[params.length - 1] as ParamType;
      for (; i < args.length; i++) argv.push(this.evalArg(dot, element, args[i] as ArgNode));
    }
    if (final !== missing) {
      const type = (
        variadic && numIn - 1 >= numFixed ? params[params.length - 1] : params[numIn - 1]
      ) as ParamType;
      argv.push(this.validateType(final, type));
    }
    // exec.go's evalCall: `call` gets its callee's name first, the first argument's source text, or the
    // piped value's reflect.Value.String() (a string's own text, `<int Value>` for others).
    if (name === "call")
      argv.unshift(args.length > 0 ? nodeString(args[0] as ArgNode) : reflectString(final));
    try {
      return signature.fn(argv, this.options);
    } catch (e) {
      if (!(e instanceof GoError)) throw e;
      this.at(node);
      return this.errorf(`error calling ${name}: ${e.message}`);
    }
  }

  private validateType(value: Value, type: ParamType | undefined): Value {
    if (value === undefined) {
      if (type === undefined || type === "value" || type === "any") return undefined;
      return this.errorf(`invalid value; expected ${type}`);
    }
    if (type === undefined || type === "value" || type === "any") return value;
    let v: Value = value;
    if (v instanceof Boxed && v.value !== null) v = v.value;
    if (type === "string" && typeof v === "string") return v;
    if (type === "uint" && v instanceof GoUint && v.type === "uint") return v;
    return this.errorf(`wrong type for value; expected ${type}; got ${typeName(v as GoValue | Boxed)}`);
  }

  private evalArg(dot: Value, type: ParamType | undefined, node: ArgNode): Value {
    this.charge(1);
    this.at(node);
    switch (node.type) {
      case "dot":
        return this.validateType(dot, type);
      case "nil":
        if (type === "value" || type === "any") return undefined;
        return this.errorf(`cannot assign nil to ${type}`);
      case "field":
        return this.validateType(this.evalFieldNode(dot, node, [node], missing), type);
      case "variable":
        return this.validateType(this.evalVariableNode(node, undefined, missing), type);
      case "pipe":
        return this.validateType(this.evalPipeline(dot, node), type);
      case "identifier":
        return this.validateType(this.evalFunction(dot, node, node, undefined, missing), type);
      case "chain":
        return this.validateType(this.evalChainNode(dot, node, undefined, missing), type);
    }
    switch (type) {
      case "string":
        if (node.type === "string") return node.text;
        return this.errorf(`expected string; found ${nodeString(node)}`);
      case "uint":
        if (node.type === "number" && node.value.isUint) return new GoUint(safeUint(node.value.uint), "uint");
        return this.errorf(`expected unsigned integer; found ${nodeString(node)}`);
      case "value":
      case "any":
        if (node.type === "bool") return node.value;
        if (node.type === "number") return this.idealConstant(node);
        return node.text;
    }
    // A chain's receiver is evaluated with no type; Go reaches this only for nodes the parser refuses.
    throw new Unsupported(`an argument ${nodeString(node)} of no type`);
  }
}

/** Go's Node.String() for the nodes an error can stand at. */
function context(node: Node): string {
  switch (node.type) {
    case "command":
      return node.args.map((a) => (a.type === "pipe" ? `(${nodeString(a)})` : nodeString(a))).join(" ");
    case "template":
      return `{{template ${goQuote(node.name)}${node.pipe ? ` ${nodeString(node.pipe)}` : ""}}}`;
    case "list":
    case "text":
    case "action":
    case "if":
    case "range":
    case "with":
    case "break":
    case "continue":
      throw new Unsupported(`an error at a ${node.type} node`);
    default:
      return nodeString(node);
  }
}

/** reflect.Value.String(): a string's text; `<T Value>` for a value of another type; `<invalid Value>`. */
function reflectString(v: Final): string {
  if (v === missing || v === undefined) return "<invalid Value>";
  if (typeof v === "string") return v;
  return `<${typeName(v as GoValue | Boxed)} Value>`;
}

function safeInt(n: bigint): number {
  if (n > BigInt(Number.MAX_SAFE_INTEGER) || n < BigInt(Number.MIN_SAFE_INTEGER))
    throw new Unsupported("an integer beyond 2^53");
  return Number(n);
}

const safeUint = (n: bigint | undefined): number => safeInt(n ?? 0n);

/** isTrue: whether a value is non-zero (invalid counts as false). */
function isTrue(v: Value): boolean {
  if (v === undefined || v === null) return false;
  if (v instanceof Boxed) return v.value !== null;
  switch (typeof v) {
    case "string":
      return v.length > 0;
    case "number":
      return v !== 0;
    case "boolean":
      return v;
  }
  if (v instanceof GoFloat) return v.value !== 0;
  if (v instanceof GoComplex) return v.re !== 0 || v.im !== 0;
  if (v instanceof GoUint) return v.value !== 0;
  if (Array.isArray(v)) return v.length > 0;
  return Object.keys(v).length > 0;
}

/** A value as an `any` argument holds it: nil for invalid and for a nil interface. */
const toAny = (v: Value): FmtArg => (v instanceof Boxed ? v.value : (v ?? null));

/** funcs.go's evalArgs: html, js and urlquery print their arguments as a template prints a value. */
function evalArgs(args: Value[]): string {
  if (args.length === 1 && typeof args[0] === "string") return args[0];
  return sprint(args.map((a) => (toAny(a) === null ? "<no value>" : toAny(a))));
}

function htmlEscape(s: string): string {
  return s.replace(/[\0"'&<>]/g, (c) =>
    c === "\0"
      ? "\uFFFD"
      : c === '"'
        ? "&#34;"
        : c === "'"
          ? "&#39;"
          : c === "&"
            ? "&amp;"
            : c === "<"
              ? "&lt;"
              : "&gt;",
  );
}

const jsEscapes: Record<string, string> = {
  "\\": "\\\\",
  "'": "\\'",
  '"': '\\"',
  "<": "\\u003C",
  ">": "\\u003E",
  "&": "\\u0026",
  "=": "\\u003D",
};

function jsEscape(s: string): string {
  let out = "";
  for (const ch of s) {
    const r = ch.codePointAt(0) as number;
    const named = jsEscapes[ch];
    if (named) out += named;
    else if (r < 0x20) out += `\\u00${r.toString(16).toUpperCase().padStart(2, "0")}`;
    else if (r < 0x80 || isPrint(r)) out += ch;
    else if (r >= 0xd800 && r <= 0xdfff) out += "\uFFFD";
    else out += `\\u${r.toString(16).toUpperCase().padStart(4, "0")}`;
  }
  return out;
}

/** url.QueryEscape. */
function queryEscape(s: string): string {
  let out = "";
  for (const byte of Buffer.from(s, "utf8")) {
    const c = String.fromCharCode(byte);
    if (/[A-Za-z0-9\-_.~]/.test(c)) out += c;
    else if (c === " ") out += "+";
    else out += `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}

type Kind = "invalid" | "bool" | "int" | "uint" | "float" | "complex" | "string";

function basicKind(v: Value): Kind {
  if (typeof v === "boolean") return "bool";
  if (typeof v === "number") return "int";
  if (typeof v === "string") return "string";
  if (v instanceof GoUint) return "uint";
  if (v instanceof GoFloat) return "float";
  if (v instanceof GoComplex) return "complex";
  return "invalid";
}

const numeric = (v: Value): number =>
  typeof v === "number" ? v : v instanceof GoUint || v instanceof GoFloat ? v.value : Number.NaN;

function eq(arg1: Value, rest: Value[]): boolean {
  const a = unbox(arg1);
  if (rest.length === 0) throw new GoError("missing argument for comparison");
  const k1 = basicKind(a);
  for (const arg of rest) {
    const b = unbox(arg);
    const k2 = basicKind(b);
    let truth = false;
    if (k1 !== k2) {
      if ((k1 === "int" && k2 === "uint") || (k1 === "uint" && k2 === "int"))
        truth = numeric(a) === numeric(b);
      else if (a !== undefined && b !== undefined) throw new GoError("incompatible types for comparison");
    } else if (k1 === "complex") {
      const x = a as GoComplex;
      const y = b as GoComplex;
      truth = x.re === y.re && x.im === y.im;
    } else if (k1 === "bool" || k1 === "string") {
      truth = a === b;
    } else if (k1 !== "invalid") {
      truth = numeric(a) === numeric(b);
    } else if (a === undefined || b === undefined) {
      truth = a === b;
    } else {
      // Two maps or slices (never nil here: JSON decoding and the operator make none).
      const ka = Array.isArray(a) ? "slice" : "map";
      const kb = Array.isArray(b) ? "slice" : "map";
      if (ka !== kb)
        throw new GoError(
          `non-comparable types ${formatValueS(a as GoValue)}: ${typeName(a as GoValue)}, ${typeName(b as GoValue)}: ${formatValue(b as GoValue)}`,
        );
      throw new GoError(`non-comparable type ${formatValueS(b as GoValue)}: ${typeName(b as GoValue)}`);
    }
    if (truth) return true;
  }
  return false;
}

function lt(arg1: Value, arg2: Value): boolean {
  const a = unbox(arg1);
  const k1 = basicKind(a);
  if (k1 === "invalid") throw new GoError("invalid type for comparison");
  const b = unbox(arg2);
  const k2 = basicKind(b);
  if (k2 === "invalid") throw new GoError("invalid type for comparison");
  if (k1 !== k2) {
    if ((k1 === "int" && k2 === "uint") || (k1 === "uint" && k2 === "int")) return numeric(a) < numeric(b);
    throw new GoError("incompatible types for comparison");
  }
  if (k1 === "bool" || k1 === "complex") throw new GoError("invalid type for comparison");
  if (k1 === "string") return compareGoStrings(a as string, b as string) < 0;
  return numeric(a) < numeric(b);
}

const le = (a: Value, b: Value): boolean => lt(a, b) || eq(a, [b]);

function length(item: Value): number {
  if (item instanceof Boxed && item.value === null) throw new GoError("len of nil pointer");
  const v = unbox(item);
  if (v === undefined) throw new GoError("reflect: call of reflect.Value.Type on zero Value");
  if (typeof v === "string") return Buffer.byteLength(v, "utf8");
  if (Array.isArray(v)) return v.length;
  if (isMap(v)) return Object.keys(v).length;
  throw new GoError(`len of type ${typeName(v)}`);
}

function indexArg(index: Value, cap: number): number {
  let x: number;
  if (typeof index === "number") x = index;
  else if (index instanceof GoUint) x = index.value;
  else if (index === undefined) throw new GoError("cannot index slice/array with nil");
  else throw new GoError(`cannot index slice/array with type ${typeName(index)}`);
  if (x < 0 || x > cap) throw new GoError(`index out of range: ${x}`);
  return x;
}

/** A list's element: a []string's as it is, an []any's as the interface it is held in. */
const element = (list: (GoValue | null)[], i: number): Value =>
  list instanceof GoStrings ? list[i] : new Boxed(list[i] ?? null);

function isAscii(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 0x7f) return false;
  return true;
}

function index(args: Value[]): Value {
  let item: Value = unbox(args[0]);
  if (item === undefined) throw new GoError("index of untyped nil");
  for (const raw of args.slice(1)) {
    const i = unbox(raw);
    if (item instanceof Boxed) {
      if (item.value === null) throw new GoError("index of nil pointer");
      item = item.value;
    }
    if (typeof item === "string" || Array.isArray(item)) {
      if (typeof item === "string" && !isAscii(item)) throw new Unsupported("index of a non-ASCII string");
      const x = indexArg(i, item.length);
      if (x === item.length)
        throw new GoError(`reflect: ${typeof item === "string" ? "string" : "slice"} index out of range`);
      item = typeof item === "string" ? new GoUint(item.charCodeAt(x), "uint8") : element(item, x);
    } else if (isMap(item)) {
      if (i === undefined) throw new GoError("value is nil; should be of type string");
      if (typeof i !== "string") throw new GoError(`value has type ${typeName(i)}; should be string`);
      item = new Boxed(Object.hasOwn(item, i) ? (item[i] ?? null) : null);
    } else {
      throw new GoError(`can't index item of type ${typeName(item as GoValue)}`);
    }
  }
  return item;
}

function slice(args: Value[]): Value {
  const item = unbox(args[0]);
  if (item === undefined) throw new GoError("slice of untyped nil");
  const indexes = args.slice(1);
  if (indexes.length > 3) throw new GoError(`too many slice indexes: ${indexes.length}`);
  if (typeof item === "string") {
    if (indexes.length === 3) throw new GoError("cannot 3-index slice a string");
    if (!isAscii(item)) throw new Unsupported("slice of a non-ASCII string");
  } else if (Array.isArray(item)) {
    // The capacity of a JSON-decoded slice is not known here.
    throw new Unsupported("slice of a list");
  } else {
    throw new GoError(`can't slice item of type ${typeName(item)}`);
  }
  const idx = [0, item.length];
  // Go's slice passes its indexes on as they are: a boxed one (read from a map) is refused by type.
  indexes.forEach((v, i) => {
    idx[i] = indexArg(v, item.length);
  });
  const [from, to] = idx as [number, number];
  if (from > to) throw new GoError(`invalid slice index: ${from} > ${to}`);
  return item.slice(from, to);
}

/** The functions of the operator's templates: Go's built-ins (funcs.go, builtins()) and randBase62. */
const builtins = ((): Map<string, Signature> => {
  type Fn = Signature["fn"];
  const fixed = (params: ParamType[], fn: Fn): Signature => ({
    params,
    variadic: false,
    fn,
  });
  const variadic = (params: ParamType[], fn: Fn): Signature => ({
    params,
    variadic: true,
    fn,
  });
  const printArgs = (args: Value[]) => args.map(toAny);
  return new Map<string, Signature>([
    ["and", variadic(["value", "value"], () => undefined)],
    ["or", variadic(["value", "value"], () => undefined)],
    ["not", fixed(["value"], ([a]) => !isTrue(unbox(a)))],
    ["len", fixed(["value"], ([a]) => length(a))],
    ["index", variadic(["value", "value"], index)],
    ["slice", variadic(["value", "value"], slice)],
    [
      "call",
      // The callee's name comes first (evalCall puts it there, as Go does): functions are never values here.
      variadic(["value", "value"], ([name, fn]) => {
        const v = unbox(fn);
        if (v === undefined) throw new GoError("call of nil");
        throw new GoError(`non-function ${name as string} of type ${typeName(v)}`);
      }),
    ],
    ["html", variadic(["any"], (args) => htmlEscape(evalArgs(args)))],
    ["js", variadic(["any"], (args) => jsEscape(evalArgs(args)))],
    ["urlquery", variadic(["any"], (args) => queryEscape(evalArgs(args)))],
    ["print", variadic(["any"], (args) => sprint(printArgs(args)))],
    ["println", variadic(["any"], (args) => sprintln(printArgs(args)))],
    [
      "printf",
      variadic(["string", "any"], ([format, ...args]) => sprintf(format as string, printArgs(args))),
    ],
    ["eq", variadic(["value", "value"], ([a, ...rest]) => eq(a, rest))],
    ["ne", fixed(["value", "value"], ([a, b]) => !eq(a, [b]))],
    ["lt", fixed(["value", "value"], ([a, b]) => lt(a, b))],
    ["le", fixed(["value", "value"], ([a, b]) => le(a, b))],
    ["gt", fixed(["value", "value"], ([a, b]) => !le(a, b))],
    ["ge", fixed(["value", "value"], ([a, b]) => !lt(a, b))],
    [
      "randBase62",
      fixed(["uint"], ([n], options) => {
        const length = (n as GoUint).value;
        options.budget.charge(length, "randBase62");
        return options.randBase62(length);
      }),
    ],
  ]);
})();
