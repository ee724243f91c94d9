/**
 * The parser of Go's text/template/parse (parse.go, Go 1.24), function for function, with the same
 * three-token look-ahead, so that it accepts and refuses what Go does, with Go's messages:
 * `template: <name>:<line>: <what>`. One deliberate difference: nesting (parentheses, if/range/with,
 * block) deeper than `maxNestingDepth` is an error, so that no input can exhaust the stack.
 */
import type { WorkBudget } from "../../budget/work-budget.js";
import { GoSyntaxError, goQuote, unquote } from "../strconv/go-strings.js";
import { costs } from "./costs.js";
import { type Item, ItemType, itemString, Lexer } from "./lexer.js";
import {
  type ArgNode,
  type BranchNode,
  type CommandNode,
  type EndNode,
  type ListItem,
  type ListNode,
  nodeString,
  type PipeNode,
  type TemplateNode,
  type VariableNode,
} from "./nodes.js";
import { NumberError, newNumber } from "./numbers.js";

/**
 * Go limits nested parentheses to 10000 levels (1000 on WebAssembly, whose stack is small) and
 * control structures not at all; JavaScript's stack is small too, so both share Go's WebAssembly limit.
 */
export const maxNestingDepth = 1000;

/** A parse error: Go's message, the line Go names, and where in the text the parser stood. */
export class TemplateParseError extends Error {
  constructor(
    message: string,
    readonly line: number,
    readonly offset: number,
    /** For `function "x" not defined`: the function's name. */
    readonly undefinedFunction?: string,
  ) {
    super(message);
  }
}

type Node = ListItem | EndNode;
const isEnd = (n: Node): n is EndNode => n.type === "end" || n.type === "else";

interface Shared {
  lex: Lexer;
  charge: ((units: number) => void) | undefined;
  funcs: ReadonlySet<string>;
  trees: Map<string, ListNode>;
  parseName: string;
  depth: number;
}

const emptyItem: Item = { type: ItemType.EOF, pos: 0, val: "", line: 0 };

/** Go's IsEmptyTree: nothing but space text (and comments, which the parser drops). */
function isEmptyTree(list: ListNode | undefined): boolean {
  if (list === undefined) return true;
  return list.nodes.every((n) => n.type === "text" && n.text.trim() === "");
}

/** One parse.Tree while it is being parsed: the top-level template, a define or a block body. */
class Tree {
  private readonly token: Item[] = [emptyItem, emptyItem, emptyItem];
  private peekCount = 0;
  /** The variables in scope, as a stack and as counts (a look-up per use must not be linear). */
  private readonly vars: string[] = ["$"];
  private readonly varCounts = new Map<string, number>([["$", 1]]);
  private actionLine = 0;
  private rangeDepth = 0;
  root: ListNode | null = null;

  constructor(
    private name: string,
    private readonly s: Shared,
  ) {}

  // Token stream.

  private next(): Item {
    if (this.peekCount > 0) this.peekCount--;
    else this.token[0] = this.s.lex.nextItem();
    return this.token[this.peekCount] as Item;
  }
  private backup(): void {
    this.peekCount++;
  }
  private backup2(t1: Item): void {
    this.token[1] = t1;
    this.peekCount = 2;
  }
  private backup3(t2: Item, t1: Item): void {
    this.token[1] = t1;
    this.token[2] = t2;
    this.peekCount = 3;
  }
  private peek(): Item {
    if (this.peekCount > 0) return this.token[this.peekCount - 1] as Item;
    this.peekCount = 1;
    this.token[0] = this.s.lex.nextItem();
    return this.token[0];
  }
  private nextNonSpace(): Item {
    let token: Item;
    do token = this.next();
    while (token.type === ItemType.Space);
    return token;
  }
  private peekNonSpace(): Item {
    const token = this.nextNonSpace();
    this.backup();
    return token;
  }

  // Errors.

  errorf(message: string, undefinedFunction?: string): never {
    const at = this.token[0] as Item;
    const goMessage = `template: ${this.s.parseName}:${at.line}: ${message}`;
    throw new TemplateParseError(goMessage, at.line, at.pos, undefinedFunction);
  }
  private expect(expected: ItemType, context: string): Item {
    const token = this.nextNonSpace();
    if (token.type !== expected) this.unexpected(token, context);
    return token;
  }
  private expectOneOf(expected1: ItemType, expected2: ItemType, context: string): Item {
    const token = this.nextNonSpace();
    if (token.type !== expected1 && token.type !== expected2) this.unexpected(token, context);
    return token;
  }
  private unexpected(token: Item, context: string): never {
    if (token.type === ItemType.Error) {
      let extra = "";
      if (this.actionLine !== 0 && this.actionLine !== token.line) {
        extra = ` in action started at ${this.s.parseName}:${this.actionLine}`;
        if (token.val.endsWith(" action")) extra = extra.slice(" in action".length); // avoid "action in action"
      }
      this.errorf(`${itemString(token)}${extra}`);
    }
    this.errorf(`unexpected ${itemString(token)} in ${context}`);
  }
  private nest(): void {
    this.s.charge?.(costs.nesting);
    if (++this.s.depth > maxNestingDepth) this.errorf("max expression depth exceeded");
  }

  // Trees.

  startParse(): void {
    this.s.lex.options = { breakOK: !this.s.funcs.has("break"), continueOK: !this.s.funcs.has("continue") };
  }

  /** add: a define may replace an empty template of the same name, never a non-empty one. */
  add(): void {
    const existing = this.s.trees.get(this.name);
    const root = this.root as ListNode;
    if (existing === undefined || isEmptyTree(existing)) {
      this.s.trees.set(this.name, root);
      return;
    }
    if (!isEmptyTree(root)) this.errorf(`template: multiple definition of template ${goQuote(this.name)}`);
  }

  /** parse: the top level, which alone may hold {{define}}. */
  parse(): void {
    this.root = { type: "list", pos: this.peek().pos, nodes: [] };
    while (this.peek().type !== ItemType.EOF) {
      if (this.peek().type === ItemType.LeftDelim) {
        const delim = this.next();
        if (this.nextNonSpace().type === ItemType.Define) {
          const definition = new Tree("definition", this.s);
          definition.startParse();
          definition.parseDefinition();
          continue;
        }
        this.backup2(delim);
      }
      const n = this.textOrAction();
      if (isEnd(n)) this.errorf(`unexpected ${nodeString(n)}`);
      this.root.nodes.push(n);
    }
  }

  private parseDefinition(): void {
    const context = "define clause";
    const name = this.expectOneOf(ItemType.String, ItemType.RawString, context);
    this.name = this.unquote(name.val);
    this.expect(ItemType.RightDelim, context);
    const [list, end] = this.itemList();
    this.root = list;
    if (end.type !== "end") this.errorf(`unexpected ${nodeString(end)} in ${context}`);
    this.add();
  }

  private itemList(): [ListNode, EndNode] {
    const list: ListNode = { type: "list", pos: this.peekNonSpace().pos, nodes: [] };
    while (this.peekNonSpace().type !== ItemType.EOF) {
      const n = this.textOrAction();
      if (isEnd(n)) return [list, n];
      list.nodes.push(n);
    }
    return this.errorf("unexpected EOF");
  }

  private textOrAction(): Node {
    const token = this.nextNonSpace();
    switch (token.type) {
      case ItemType.Text:
        return { type: "text", pos: token.pos, text: token.val };
      case ItemType.LeftDelim:
        this.actionLine = token.line;
        try {
          return this.action();
        } finally {
          this.actionLine = 0;
        }
      default:
        return this.unexpected(token, "input");
    }
  }

  private action(): Node {
    const token = this.nextNonSpace();
    switch (token.type) {
      case ItemType.Block:
        return this.blockControl();
      case ItemType.Break:
      case ItemType.Continue:
        return this.breakControl(token);
      case ItemType.Else:
        return this.elseControl();
      case ItemType.End:
        return { type: "end", pos: this.expect(ItemType.RightDelim, "end").pos };
      case ItemType.If:
        return this.control("if");
      case ItemType.Range:
        return this.control("range");
      case ItemType.Template:
        return this.templateControl();
      case ItemType.With:
        return this.control("with");
    }
    this.backup();
    const start = this.peek();
    // Do not pop variables; they persist until "end".
    return {
      type: "action",
      pos: start.pos,
      line: start.line,
      pipe: this.pipeline("command", ItemType.RightDelim),
    };
  }

  private breakControl(keyword: Item): Node {
    const name = keyword.type === ItemType.Break ? "break" : "continue";
    const token = this.nextNonSpace();
    if (token.type !== ItemType.RightDelim) this.unexpected(token, `{{${name}}}`);
    if (this.rangeDepth === 0) this.errorf(`{{${name}}} outside {{range}}`);
    return { type: name, pos: keyword.pos, line: keyword.line };
  }

  private pipeline(context: string, end: ItemType): PipeNode {
    const token = this.peekNonSpace();
    const pipe: PipeNode = {
      type: "pipe",
      pos: token.pos,
      line: token.line,
      isAssign: false,
      decl: [],
      cmds: [],
    };
    // Are there declarations or assignments?
    for (let v = this.peekNonSpace(); v.type === ItemType.Variable; v = this.peekNonSpace()) {
      this.next();
      // Three-token look-ahead: in "$x foo", "foo" (not ":=") says $x is an argument.
      const tokenAfterVariable = this.peek();
      const next = this.peekNonSpace();
      if (next.type === ItemType.Assign || next.type === ItemType.Declare) {
        pipe.isAssign = next.type === ItemType.Assign;
        this.nextNonSpace();
        pipe.decl.push(this.newVariable(v.pos, v.val));
        this.pushVar(v.val);
      } else if (next.type === ItemType.Char && next.val === ",") {
        this.nextNonSpace();
        pipe.decl.push(this.newVariable(v.pos, v.val));
        this.pushVar(v.val);
        if (context === "range" && pipe.decl.length < 2) {
          const after = this.peekNonSpace().type;
          if (after === ItemType.Variable || after === ItemType.RightDelim || after === ItemType.RightParen) {
            continue; // second initialized variable in a range pipeline
          }
          this.errorf("range can only initialize variables");
        }
        this.errorf(`too many declarations in ${context}`);
      } else if (tokenAfterVariable.type === ItemType.Space) {
        this.backup3(v, tokenAfterVariable);
      } else {
        this.backup2(v);
      }
      break;
    }
    for (;;) {
      const token = this.nextNonSpace();
      switch (token.type) {
        case end:
          this.checkPipeline(pipe, context);
          return pipe;
        case ItemType.Bool:
        case ItemType.CharConstant:
        case ItemType.Complex:
        case ItemType.Dot:
        case ItemType.Field:
        case ItemType.Identifier:
        case ItemType.Number:
        case ItemType.Nil:
        case ItemType.RawString:
        case ItemType.String:
        case ItemType.Variable:
        case ItemType.LeftParen:
          this.backup();
          pipe.cmds.push(this.command());
          break;
        default:
          this.unexpected(token, context);
      }
    }
  }

  private checkPipeline(pipe: PipeNode, context: string): void {
    if (pipe.cmds.length === 0) this.errorf(`missing value for ${context}`);
    // Only the first command of a pipeline can start with a non executable operand.
    pipe.cmds.forEach((c, i) => {
      const first = c.args[0]?.type;
      if (
        i > 0 &&
        (first === "bool" || first === "dot" || first === "nil" || first === "number" || first === "string")
      ) {
        this.errorf(`non executable command in pipeline stage ${i + 1}`);
      }
    });
  }

  private control(context: "if" | "range" | "with"): BranchNode {
    this.nest();
    const varsBefore = this.vars.length;
    const pipe = this.pipeline(context, ItemType.RightDelim);
    if (context === "range") this.rangeDepth++;
    let [list, next] = this.itemList();
    if (context === "range") this.rangeDepth--;
    let elseList: ListNode | null = null;
    if (next.type === "else") {
      // "{{else if b}}" is "{{else}}{{if b}}...{{end}}" with the inner {{end}} assumed; the same for with.
      if (
        (context === "if" && this.peek().type === ItemType.If) ||
        (context === "with" && this.peek().type === ItemType.With)
      ) {
        this.next();
        elseList = { type: "list", pos: next.pos, nodes: [this.control(context)] };
      } else {
        [elseList, next] = this.itemList();
        if (next.type !== "end") this.errorf(`expected end; found ${nodeString(next)}`);
      }
    }
    this.popVars(varsBefore);
    this.s.depth--;
    return { type: context, pos: pipe.pos, line: pipe.line, pipe, list, elseList };
  }

  private elseControl(): Node {
    const peek = this.peekNonSpace();
    // "{{else if ..." and "{{else with ..." are "{{else}}{{if ..." and "{{else}}{{with ...".
    if (peek.type === ItemType.If || peek.type === ItemType.With) return { type: "else", pos: peek.pos };
    return { type: "else", pos: this.expect(ItemType.RightDelim, "else").pos };
  }

  private blockControl(): TemplateNode {
    const context = "block clause";
    const token = this.nextNonSpace();
    const name = this.parseTemplateName(token, context);
    const pipe = this.pipeline(context, ItemType.RightDelim);
    this.nest();
    const block = new Tree(name, this.s);
    block.startParse();
    const [list, end] = block.itemList();
    block.root = list;
    if (end.type !== "end") this.errorf(`unexpected ${nodeString(end)} in ${context}`);
    block.add();
    this.s.depth--;
    return { type: "template", pos: token.pos, line: token.line, name, pipe };
  }

  private templateControl(): TemplateNode {
    const context = "template clause";
    const token = this.nextNonSpace();
    const name = this.parseTemplateName(token, context);
    let pipe: PipeNode | null = null;
    if (this.nextNonSpace().type !== ItemType.RightDelim) {
      this.backup();
      pipe = this.pipeline(context, ItemType.RightDelim);
    }
    return { type: "template", pos: token.pos, line: token.line, name, pipe };
  }

  private parseTemplateName(token: Item, context: string): string {
    if (token.type !== ItemType.String && token.type !== ItemType.RawString) this.unexpected(token, context);
    return this.unquote(token.val);
  }

  private command(): CommandNode {
    const cmd: CommandNode = { type: "command", pos: this.peekNonSpace().pos, args: [] };
    for (;;) {
      this.peekNonSpace(); // skip leading spaces.
      const operand = this.operand();
      if (operand !== null) cmd.args.push(operand);
      const token = this.next();
      if (token.type === ItemType.Space) continue;
      if (token.type === ItemType.RightDelim || token.type === ItemType.RightParen) this.backup();
      else if (token.type !== ItemType.Pipe) this.unexpected(token, "operand");
      break;
    }
    if (cmd.args.length === 0) this.errorf("empty command");
    return cmd;
  }

  private operand(): ArgNode | null {
    const node = this.term();
    if (node === null) return null;
    if (this.peek().type !== ItemType.Field) return node;
    // Go places the extended node at its first added field (goPos, where execution errors point); the
    // start of the whole chain is kept as pos.
    const pos = node.pos;
    const goPos = this.peek().pos;
    const fields: string[] = [];
    while (this.peek().type === ItemType.Field) fields.push(this.next().val.slice(1));
    // Fields on a field or variable extend it; on a literal they are an error; otherwise a chain.
    switch (node.type) {
      case "field":
        return { type: "field", pos, goPos, ident: [...node.ident, ...fields] };
      case "variable":
        return { type: "variable", pos, goPos, ident: [...node.ident, ...fields] };
      case "bool":
      case "string":
      case "number":
      case "nil":
      case "dot":
        return this.errorf(`unexpected . after term ${goQuote(nodeString(node))}`);
      default:
        return { type: "chain", pos, goPos, node, field: fields };
    }
  }

  private term(): ArgNode | null {
    const token = this.nextNonSpace();
    switch (token.type) {
      case ItemType.Identifier:
        if (!this.s.funcs.has(token.val))
          this.errorf(`function ${goQuote(token.val)} not defined`, token.val);
        return { type: "identifier", pos: token.pos, ident: token.val };
      case ItemType.Dot:
        return { type: "dot", pos: token.pos };
      case ItemType.Nil:
        return { type: "nil", pos: token.pos };
      case ItemType.Variable:
        return this.useVar(token.pos, token.val);
      case ItemType.Field:
        return { type: "field", pos: token.pos, ident: token.val.slice(1).split(".") };
      case ItemType.Bool:
        return { type: "bool", pos: token.pos, value: token.val === "true" };
      case ItemType.CharConstant:
      case ItemType.Complex:
      case ItemType.Number: {
        const kind =
          token.type === ItemType.CharConstant
            ? "char"
            : token.type === ItemType.Complex
              ? "complex"
              : "number";
        this.s.charge?.(costs.number);
        try {
          return { type: "number", pos: token.pos, text: token.val, value: newNumber(token.val, kind) };
        } catch (e) {
          if (e instanceof NumberError || e instanceof GoSyntaxError) this.errorf(e.message);
          throw e;
        }
      }
      case ItemType.LeftParen: {
        this.nest();
        const pipe = this.pipeline("parenthesized pipeline", ItemType.RightParen);
        this.s.depth--;
        return pipe;
      }
      case ItemType.String:
      case ItemType.RawString:
        return { type: "string", pos: token.pos, quoted: token.val, text: this.unquote(token.val) };
    }
    this.backup();
    return null;
  }

  private unquote(quoted: string): string {
    if (quoted.includes("\\")) this.s.charge?.(costs.unquotedChar * quoted.length);
    try {
      return unquote(quoted);
    } catch (e) {
      if (e instanceof GoSyntaxError) this.errorf(e.message);
      throw e;
    }
  }

  private newVariable(pos: number, name: string): VariableNode {
    return { type: "variable", pos, ident: name.split(".") };
  }

  private pushVar(name: string): void {
    this.vars.push(name);
    this.varCounts.set(name, (this.varCounts.get(name) ?? 0) + 1);
  }

  private popVars(n: number): void {
    while (this.vars.length > n) {
      const name = this.vars.pop() as string;
      this.varCounts.set(name, (this.varCounts.get(name) ?? 1) - 1);
    }
  }

  private useVar(pos: number, name: string): VariableNode {
    const v = this.newVariable(pos, name);
    if (!this.varCounts.get(v.ident[0] as string))
      this.errorf(`undefined variable ${goQuote(v.ident[0] as string)}`);
    return v;
  }
}

export interface ParseOptions {
  /** Functions beyond Go's built-ins (the caller's FuncMap keys). */
  functions?: Iterable<string>;
  /** Charged for the parse (see costs.ts) and the analysis. */
  budget?: WorkBudget;
  /** The template's name, as in template.New(name); it appears in messages. Default "". */
  name?: string;
}

/** Go's text/template built-in functions (text/template/funcs.go, builtins()). */
export const goBuiltinFunctions: readonly string[] = [
  "and",
  "call",
  "html",
  "index",
  "slice",
  "js",
  "len",
  "not",
  "or",
  "print",
  "printf",
  "println",
  "urlquery",
  "eq",
  "ge",
  "gt",
  "le",
  "lt",
  "ne",
];

/**
 * template.New(name).Funcs(functions).Parse(text): every template the text defines, by name (the
 * text itself is `name`). Throws TemplateParseError with Go's message on what Go refuses.
 */
export function parseTrees(text: string, options: ParseOptions = {}): Map<string, ListNode> {
  const name = options.name ?? "";
  const { budget } = options;
  const charge = budget && ((units: number) => budget.charge(units, "parsing a template"));
  const shared: Shared = {
    lex: new Lexer(text, charge),
    charge,
    funcs: new Set([...goBuiltinFunctions, ...(options.functions ?? [])]),
    trees: new Map(),
    parseName: name,
    depth: 0,
  };
  const tree = new Tree(name, shared);
  tree.startParse();
  tree.parse();
  tree.add();
  return shared.trees;
}
