/**
 * Template execution as Go 1.24's text/template does it (exec.go), for the values the Forkspacer
 * operator passes: data of maps, strings, ints and bools, Go's built-in functions and randBase62
 * (funcs.ts), the default missingkey (a missing key prints `<no value>`), errors worded as Go words
 * them. Where Go's behaviour is not modelled (a printf verb, a value type) it throws Unsupported, and
 * the caller must then not decide anything from the template.
 *
 * Bounded by construction: every step charges the caller's WorkBudget by what it does (`costs`), every
 * string it builds by its length, and output counts against the review's rendering cap. Lists and
 * control structures are walked with a stack of frames, not by recursion, so that template calls can
 * nest as deep as Go allows (`maxExecDepth`, then Go's own error) whatever JavaScript's stack holds;
 * the only recursion left is into parenthesized pipelines, which the parser bounds (maxNestingDepth).
 */
import { Buffer } from "node:buffer";
import type { WorkBudget } from "../../budget/work-budget.js";
import { goQuote } from "../strconv/go-strings.js";
import { costs } from "./costs.js";
import { formatValue } from "./fmt.js";
import {
  builtins,
  type CallContext,
  chargePrinting,
  chargeSorting,
  GoError,
  isTrue,
  type ParamType,
  type Signature,
} from "./funcs.js";
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
  GoComplex,
  GoFloat,
  type GoMap,
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

/**
 * How deep template calls may nest: Go's maxExecDepth (exec.go; 1000 only on WebAssembly, which the
 * operator is not built for). The call that would go deeper fails with Go's message.
 */
export const maxExecDepth = 100_000;

const missing = Symbol("missing");
type Final = Value | typeof missing;

class ExecFailure extends Error {}

/** reflect.Value.String(): a string's text; `<T Value>` for a value of another type; `<invalid Value>`. */
function reflectString(v: Final): string {
  if (v === missing || v === undefined) return "<invalid Value>";
  if (typeof v === "string") return v;
  return `<${typeName(v as GoValue | Boxed)} Value>`;
}

/**
 * The walk's stack: what is left to do, innermost last. A template call keeps its list and what to
 * restore in one frame, and variables are two parallel arrays, so that a call 100,000 deep holds one
 * object per level (the live ones cost the garbage collector at every pass).
 */
type Frame =
  /** The nodes of a list still to walk, from `next`, with their dot. */
  | { kind: "list"; nodes: readonly ListItem[]; next: number; dot: Value }
  /** A called template's list; when it is done, the caller's variables (from `base`, the first `mark`) and name. */
  | {
      kind: "call";
      nodes: readonly ListItem[];
      next: number;
      dot: Value;
      base: number;
      mark: number;
      name: string;
    }
  /** The end of an if or with: the variables its pipeline declared go out of scope. */
  | { kind: "scope"; mark: number }
  /**
   * A range: its next iteration, or its end. It iterates over a list's elements, a map's values by
   * sorted key, or 0..count-1 (of a uint type when `uint` is set).
   */
  | {
      kind: "range";
      node: BranchNode;
      list: readonly (GoValue | null)[] | undefined;
      map: GoMap | undefined;
      keys: readonly string[] | undefined;
      count: number;
      uint: GoUint["type"] | undefined;
      next: number;
      mark: number;
      outer: number;
      /** Nothing to iterate, its else list running: a break there ends this range (walkRange recovers it). */
      inElse: boolean;
    };

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
    state.declare("$", data);
    state.run(root, data);
  } catch (e) {
    if (e instanceof ExecFailure) return { ok: false, error: e.message };
    // Only parenthesized pipelines recurse, as deep as the parser allows; should a stack be smaller still.
    if (e instanceof RangeError) throw new Unsupported("a pipeline nesting deeper than the stack allows");
    throw e;
  }
  return { ok: true, output: state.output.join("") };
}

type Node = ArgNode | CommandNode | ListItem | ListNode;

/** Number constants' values by node: parse trees are kept and shared (the parse cache), values immutable. */
const constants = new WeakMap<NumberNode, Value>();

class State implements CallContext {
  /** The variables of every template call in progress; the innermost call's start at `base` (its `$`). */
  private readonly varNames: string[] = [];
  private readonly varValues: Value[] = [];
  private base = 0;
  output: string[] = [];
  private node: Node | undefined;
  private depth = 0;
  private readonly frames: Frame[] = [];

  constructor(
    private readonly text: string,
    private readonly trees: ReadonlyMap<string, ListNode>,
    private tmplName: string,
    private readonly options: ExecOptions,
  ) {}

  /** CallContext: what built-ins charge. */
  readonly charge = (units: number): void => {
    this.options.budget.charge(units, "executing a template");
  };

  get randBase62(): (length: number) => string {
    return this.options.randBase62;
  }

  private at(node: Node): void {
    this.node = node;
  }

  private errorf(message: string): never {
    const node = this.node as Node;
    const end = "goPos" in node && node.goPos !== undefined ? node.goPos : node.pos;
    this.charge(end);
    const before = this.text.slice(0, end);
    const newline = before.lastIndexOf("\n");
    const column = Buffer.byteLength(newline < 0 ? before : before.slice(newline + 1), "utf8");
    let line = 1;
    for (let i = before.indexOf("\n"); i >= 0; i = before.indexOf("\n", i + 1)) line++;
    const where = context(node);
    this.charge(where.length);
    throw new ExecFailure(
      `template: :${line}:${column}: executing ${goQuote(this.tmplName)} at <${where}>: ${message}`,
    );
  }

  /** Text written to the output: paid by its length, and counted against the review's rendering cap. */
  private emit(text: string): void {
    this.charge(text.length);
    this.options.budget.render(text.length, "rendering templates");
    this.output.push(text);
  }

  /** Walks `root` with `dot`: the frames are worked off until none is left. */
  run(root: ListNode, dot: Value): void {
    const frames = this.frames;
    frames.push({ kind: "list", nodes: root.nodes, next: 0, dot });
    while (frames.length > 0) {
      const frame = frames[frames.length - 1] as Frame;
      switch (frame.kind) {
        case "list":
          if (frame.next < frame.nodes.length) this.step(frame.nodes[frame.next++] as ListItem, frame.dot);
          else frames.pop();
          break;
        case "call":
          if (frame.next < frame.nodes.length) {
            this.step(frame.nodes[frame.next++] as ListItem, frame.dot);
            break;
          }
          this.dropVariables(frame.mark);
          this.base = frame.base;
          this.tmplName = frame.name;
          this.depth--;
          frames.pop();
          break;
        case "scope":
          this.dropVariables(frame.mark);
          frames.pop();
          break;
        case "range":
          this.iterate(frame);
          break;
      }
    }
  }

  private step(node: ListItem, dot: Value): void {
    this.charge(costs.node);
    this.at(node);
    switch (node.type) {
      case "text":
        this.emit(node.text);
        return;
      case "action": {
        // Variables an action declares persist until the end of its list.
        const value = this.evalPipeline(dot, node.pipe);
        if (node.pipe.decl.length === 0) this.printValue(node, value);
        return;
      }
      case "if":
      case "with": {
        const mark = this.varNames.length;
        const value = this.evalPipeline(dot, node.pipe);
        const truth = isTrue(unbox(value));
        const list = truth ? node.list : node.elseList;
        this.frames.push({ kind: "scope", mark });
        if (list) this.pushList(list, truth && node.type === "with" ? value : dot);
        return;
      }
      case "range":
        this.startRange(dot, node);
        return;
      case "template":
        this.callTemplate(dot, node);
        return;
      case "break":
      case "continue":
        this.leaveIteration(node.type);
        return;
    }
  }

  private pushList(list: ListNode, dot: Value): void {
    this.frames.push({ kind: "list", nodes: list.nodes, next: 0, dot });
  }

  private printValue(node: ListItem, value: Value): void {
    this.at(node);
    if (value === undefined) {
      this.emit("<no value>");
      return;
    }
    chargePrinting(value, this.charge);
    this.emit(formatValue(value));
  }

  private startRange(dot: Value, node: BranchNode): void {
    this.at(node);
    const outer = this.varNames.length;
    const value = unbox(this.evalPipeline(dot, node.pipe));
    const mark = this.varNames.length;
    const frame: Frame & { kind: "range" } = {
      kind: "range",
      node,
      list: undefined,
      map: undefined,
      keys: undefined,
      count: 0,
      uint: undefined,
      next: 0,
      mark,
      outer,
      inElse: false,
    };
    if (Array.isArray(value)) {
      frame.list = value;
      frame.count = value.length;
    } else if (isMap(value)) {
      frame.map = value;
      frame.keys = this.sortedKeys(value);
      frame.count = frame.keys.length;
    } else if (typeof value === "number" || value instanceof GoUint) {
      // Go 1.24: range over an integer.
      if (node.pipe.decl.length > 1)
        this.errorf(`can't use ${formatValue(value)} to iterate over more than one variable`);
      frame.count = Math.max(0, typeof value === "number" ? value : value.value);
      if (value instanceof GoUint) frame.uint = value.type;
    } else if (typeof value === "bigint") {
      throw new Unsupported("range over an int beyond 2^53-1");
    } else if (value !== undefined) {
      this.errorf(`range can't iterate over ${formatValue(value)}`);
    }
    if (frame.count > 0) {
      this.frames.push(frame);
      return;
    }
    // Nothing to iterate: the else list, with the range's variables in scope until its end. Go's
    // walkRange recovers a break anywhere in the statement: in the else list it ends this range.
    frame.inElse = true;
    this.frames.push(frame);
    if (node.elseList) this.pushList(node.elseList, dot);
  }

  private sortedKeys(map: GoMap): readonly string[] {
    chargeSorting(map, this.charge);
    return sortedKeys(map);
  }

  /** The range's next iteration (the variables of the last one out of scope), or its end. */
  private iterate(frame: Frame & { kind: "range" }): void {
    this.dropVariables(frame.mark);
    if (frame.next >= frame.count) {
      this.frames.pop();
      this.dropVariables(frame.outer);
      return;
    }
    this.charge(costs.iteration);
    const i = frame.next++;
    let index: Value;
    let element: Value;
    if (frame.list) {
      index = i;
      // A []string's elements are strings, an []any's the interfaces that hold them.
      element = frame.list instanceof GoStrings ? frame.list[i] : new Boxed(frame.list[i] ?? null);
    } else if (frame.map) {
      const key = (frame.keys as readonly string[])[i] as string;
      index = key;
      element = new Boxed(frame.map[key] ?? null);
    } else {
      // Go passes the element as the second value, as for channels: the index is invalid.
      index = undefined;
      element = frame.uint === undefined ? i : new GoUint(i, frame.uint);
    }
    this.setRangeVariables(frame.node.pipe, index, element);
    this.pushList(frame.node.list, element);
  }

  /** walkRange's oneIteration: the element (and index) into the range's declared or assigned variables. */
  private setRangeVariables(pipe: PipeNode, index: Value, element: Value): void {
    const decl = pipe.decl;
    if (decl.length === 0) return;
    if (pipe.isAssign) {
      this.assign(decl[0]?.ident[0] as string, decl.length > 1 ? index : element);
      if (decl.length > 1) this.assign(decl[1]?.ident[0] as string, element);
      return;
    }
    const top = this.varValues.length;
    this.varValues[top - 1] = element;
    if (decl.length > 1) this.varValues[top - 2] = index;
  }

  /** break or continue: the frames of the innermost range's body are left (the parser keeps both in a range). */
  private leaveIteration(how: "break" | "continue"): void {
    this.charge(costs.leftIteration);
    const frames = this.frames;
    // A continue in a range's else list goes on to the range around it; a break ends the one it is in.
    const stops = (f: Frame) => f.kind === "range" && (how === "break" || !f.inElse);
    while (!stops(frames[frames.length - 1] as Frame)) frames.pop();
    const range = frames[frames.length - 1] as Frame & { kind: "range" };
    if (how === "break") {
      frames.pop();
      this.dropVariables(range.outer);
    }
  }

  private callTemplate(dot: Value, node: TemplateNode): void {
    this.charge(costs.templateCall);
    this.at(node);
    const tree = this.trees.get(node.name);
    if (!tree) this.errorf(`template ${goQuote(node.name)} not defined`);
    if (this.depth === maxExecDepth) this.errorf(`exceeded maximum template depth (${maxExecDepth})`);
    // Variables the pipeline declares persist in the caller's scope.
    const value = node.pipe ? this.evalPipeline(dot, node.pipe) : undefined;
    // No dynamic scoping: the template sees its own `$` and what it declares, none of the caller's.
    const mark = this.varNames.length;
    this.frames.push({
      kind: "call",
      nodes: tree.nodes,
      next: 0,
      dot: value,
      base: this.base,
      mark,
      name: this.tmplName,
    });
    this.base = mark;
    this.declare("$", value);
    this.tmplName = node.name;
    this.depth++;
  }

  declare(name: string, value: Value): void {
    this.varNames.push(name);
    this.varValues.push(value);
  }

  private dropVariables(mark: number): void {
    this.varNames.length = mark;
    this.varValues.length = mark;
  }

  private assign(name: string, value: Value): void {
    const slot = this.findVar(name);
    if (slot < 0) this.errorf(`undefined variable: ${name}`);
    this.varValues[slot] = value;
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
      if (pipe.isAssign) this.assign(name, result);
      else this.declare(name, result);
    }
    return result;
  }

  /**
   * Where a variable is, by name, the innermost first, as Go looks it up (-1: undefined): paid by the
   * variables passed over.
   */
  private findVar(name: string): number {
    const names = this.varNames;
    for (let i = names.length - 1; i >= this.base; i--) {
      if (names[i] === name) {
        this.charge(costs.variable * (names.length - i));
        return i;
      }
    }
    this.charge(costs.variable * (names.length - this.base));
    return -1;
  }

  private notAFunction(args: ArgNode[] | undefined, final: Final): void {
    if (args && (args.length > 1 || final !== missing))
      this.errorf(`can't give argument to non-function ${nodeString(args[0] as ArgNode)}`);
  }

  private evalCommand(dot: Value, cmd: CommandNode, final: Final): Value {
    this.charge(costs.command);
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

  /** A number constant's value, worked out once per node (its text is read with regular expressions). */
  private idealConstant(node: NumberNode): Value {
    this.at(node);
    if (constants.has(node)) return constants.get(node);
    const value = this.constantValue(node);
    constants.set(node, value);
    return value;
  }

  private constantValue(node: NumberNode): Value {
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
    if (slot < 0) this.errorf(`undefined variable: ${v.ident[0]}`);
    const value = this.varValues[slot];
    if (v.ident.length === 1) {
      this.notAFunction(args, final);
      return value;
    }
    return this.evalFieldChain(value, v.ident, args, final, 1);
  }

  /** The fields `ident[from:]` of `receiver`, one after another. */
  private evalFieldChain(
    receiver: Value,
    ident: readonly string[],
    args: ArgNode[] | undefined,
    final: Final,
    from = 0,
  ): Value {
    const n = ident.length;
    for (let i = from; i < n - 1; i++)
      receiver = this.evalField(ident[i] as string, undefined, missing, receiver);
    return this.evalField(ident[n - 1] as string, args, final, receiver);
  }

  private evalField(name: string, args: ArgNode[] | undefined, final: Final, receiver: Value): Value {
    this.charge(costs.field);
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
    this.charge(costs.call);
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
      return signature.fn(argv, this);
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
    this.charge(costs.argument);
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

function safeInt(n: bigint): number {
  if (n > BigInt(Number.MAX_SAFE_INTEGER) || n < BigInt(Number.MIN_SAFE_INTEGER))
    throw new Unsupported("an integer beyond 2^53");
  return Number(n);
}

const safeUint = (n: bigint | undefined): number => safeInt(n ?? 0n);
