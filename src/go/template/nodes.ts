/**
 * The parse tree of Go's text/template/parse (node.go), as plain data. Every node has `pos`, its index
 * in the template text. `String()` in Go is `nodeString` here: error messages quote it.
 */
import type { GoNumber } from "./numbers.js";

export interface Located {
  pos: number;
}

export interface TextNode extends Located {
  type: "text";
  text: string;
}
export interface ActionNode extends Located {
  type: "action";
  line: number;
  pipe: PipeNode;
}
export interface BranchNode extends Located {
  type: "if" | "range" | "with";
  line: number;
  pipe: PipeNode;
  list: ListNode;
  elseList: ListNode | null;
}
export interface TemplateNode extends Located {
  type: "template";
  line: number;
  name: string;
  pipe: PipeNode | null;
}
export interface BreakNode extends Located {
  type: "break" | "continue";
  line: number;
}
export interface ListNode extends Located {
  type: "list";
  nodes: ListItem[];
}
/** {{end}} and {{else}}: they end a list and never appear in a finished tree. */
export interface EndNode extends Located {
  type: "end" | "else";
}

export type ListItem = TextNode | ActionNode | BranchNode | TemplateNode | BreakNode;

export interface PipeNode extends Located {
  type: "pipe";
  line: number;
  isAssign: boolean;
  decl: VariableNode[];
  cmds: CommandNode[];
}
export interface CommandNode extends Located {
  type: "command";
  args: ArgNode[];
}
export interface IdentifierNode extends Located {
  type: "identifier";
  ident: string;
}
/** Where Go's own node for a field chain stands (its first added field), when that is not `pos`. */
interface Extended {
  goPos?: number;
}
export interface VariableNode extends Located, Extended {
  type: "variable";
  /** `$x.a.b` is ["$x", "a", "b"]. */
  ident: string[];
}
export interface FieldNode extends Located, Extended {
  type: "field";
  /** `.a.b` is ["a", "b"]. */
  ident: string[];
}
export interface ChainNode extends Located, Extended {
  type: "chain";
  node: ArgNode;
  field: string[];
}
export interface DotNode extends Located {
  type: "dot";
}
export interface NilNode extends Located {
  type: "nil";
}
export interface BoolNode extends Located {
  type: "bool";
  value: boolean;
}
export interface NumberNode extends Located {
  type: "number";
  text: string;
  value: GoNumber;
}
export interface StringNode extends Located {
  type: "string";
  quoted: string;
  text: string;
}

export type ArgNode =
  | IdentifierNode
  | VariableNode
  | FieldNode
  | ChainNode
  | DotNode
  | NilNode
  | BoolNode
  | NumberNode
  | StringNode
  | PipeNode;

/** Go's Node.String() for the nodes error messages quote. */
export function nodeString(node: ArgNode | EndNode): string {
  switch (node.type) {
    case "end":
      return "{{end}}";
    case "else":
      return "{{else}}";
    case "identifier":
      return node.ident;
    case "variable":
      return node.ident.join(".");
    case "field":
      return `.${node.ident.join(".")}`;
    case "chain": {
      const inner = node.node.type === "pipe" ? `(${nodeString(node.node)})` : nodeString(node.node);
      return `${inner}.${node.field.join(".")}`;
    }
    case "dot":
      return ".";
    case "nil":
      return "nil";
    case "bool":
      return String(node.value);
    case "number":
      return node.text;
    case "string":
      return node.quoted;
    case "pipe":
      return pipeString(node);
  }
}

function pipeString(pipe: PipeNode): string {
  let s = "";
  if (pipe.decl.length > 0) s = `${pipe.decl.map(nodeString).join(", ")} ${pipe.isAssign ? "=" : ":="} `;
  return (
    s +
    pipe.cmds
      .map((c) => c.args.map((a) => (a.type === "pipe" ? `(${nodeString(a)})` : nodeString(a))).join(" "))
      .join(" | ")
  );
}
