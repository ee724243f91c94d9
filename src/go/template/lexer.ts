/**
 * The scanner of Go's text/template/parse (lex.go, Go 1.24), state for state: the parser depends on
 * its exact tokens (spaces are tokens, a trim marker is swallowed, a lexical error ends the input).
 * Positions are indices into the JavaScript string; lines count "\n" as Go does.
 */

import { goQuote, goUnicode, isPrint } from "../strconv/go-strings.js";
import { costs } from "./costs.js";

export enum ItemType {
  Error,
  Bool,
  Char,
  CharConstant,
  Comment,
  Complex,
  Assign,
  Declare,
  EOF,
  Field,
  Identifier,
  LeftDelim,
  LeftParen,
  Number,
  Pipe,
  RawString,
  RightDelim,
  RightParen,
  Space,
  String,
  Text,
  Variable,
  // Keywords appear after all the rest.
  Keyword,
  Block,
  Break,
  Continue,
  Dot,
  Define,
  Else,
  End,
  If,
  Nil,
  Range,
  Template,
  With,
}

export interface Item {
  type: ItemType;
  pos: number;
  val: string;
  line: number;
}

const keywords: ReadonlyMap<string, ItemType> = new Map([
  [".", ItemType.Dot],
  ["block", ItemType.Block],
  ["break", ItemType.Break],
  ["continue", ItemType.Continue],
  ["define", ItemType.Define],
  ["else", ItemType.Else],
  ["end", ItemType.End],
  ["if", ItemType.If],
  ["range", ItemType.Range],
  ["nil", ItemType.Nil],
  ["template", ItemType.Template],
  ["with", ItemType.With],
]);

/** item.String() in Go: how a token is named in "unexpected X in Y". */
export function itemString(item: Item): string {
  if (item.type === ItemType.EOF) return "EOF";
  if (item.type === ItemType.Error) return item.val;
  if (item.type > ItemType.Keyword) return `<${item.val}>`;
  if ([...item.val].length > 10) return `${goQuote(item.val, 10)}...`;
  return goQuote(item.val);
}

const eof = -1;
const leftDelim = "{{";
const rightDelim = "}}";
const leftComment = "/*";
const rightComment = "*/";
const trimMarkerLen = 2;

const isSpace = (r: number) => r === 32 || r === 9 || r === 13 || r === 10;
const letterOrDigit = /^[\p{L}\p{Nd}]$/u;
/** Go's isAlphaNumeric: '_', unicode.IsLetter or unicode.IsDigit. */
const isAlphaNumeric = (r: number) =>
  r === 95 ||
  (r >= 48 && r <= 57) ||
  (r >= 65 && r <= 90) ||
  (r >= 97 && r <= 122) ||
  (r > 127 && letterOrDigit.test(String.fromCodePoint(r)));
const hasLeftTrimMarker = (s: string, at: number) =>
  s.length - at >= 2 && s[at] === "-" && isSpace(s.charCodeAt(at + 1));
const hasRightTrimMarker = (s: string, at: number) =>
  s.length - at >= 2 && isSpace(s.charCodeAt(at)) && s[at + 1] === "-";
const rightTrimLength = (s: string, from: number, to: number) => {
  let n = 0;
  while (to - n > from && isSpace(s.charCodeAt(to - n - 1))) n++;
  return n;
};
const leftTrimLength = (s: string, from: number) => {
  let n = 0;
  while (from + n < s.length && isSpace(s.charCodeAt(from + n))) n++;
  return n;
};
/** Newlines in s[from, to): a scan of that range only, so that lexing stays linear. */
const countNewlines = (s: string, from: number, to: number) => {
  let n = 0;
  for (let i = from; i < to; i++) if (s.charCodeAt(i) === 10) n++;
  return n;
};

type StateFn = ((l: Lexer) => StateFn) | null;

export interface LexOptions {
  breakOK: boolean;
  continueOK: boolean;
}

export class Lexer {
  private input: string;
  private pos = 0;
  private start = 0;
  private atEOF = false;
  private parenDepth = 0;
  private line = 1;
  private startLine = 1;
  private item: Item = { type: ItemType.EOF, pos: 0, val: "EOF", line: 1 };
  private insideAction = false;
  options: LexOptions = { breakOK: true, continueOK: true };

  /** `charge`, when given, is told of each token's work (costs.token, costs.scannedChar). */
  constructor(
    input: string,
    private readonly charge?: (units: number) => void,
  ) {
    this.input = input;
  }

  /** The next rune, or eof; a surrogate pair is one rune. */
  next(): number {
    if (this.pos >= this.input.length) {
      this.atEOF = true;
      return eof;
    }
    const r = this.input.codePointAt(this.pos) as number;
    this.pos += r > 0xffff ? 2 : 1;
    if (r === 10) this.line++;
    return r;
  }

  peek(): number {
    const r = this.next();
    this.backup();
    return r;
  }

  backup(): void {
    if (!this.atEOF && this.pos > 0) {
      const low = this.input.charCodeAt(this.pos - 1);
      const pair = low >= 0xdc00 && low <= 0xdfff && this.pos >= 2 && this.isHighSurrogate(this.pos - 2);
      this.pos -= pair ? 2 : 1;
      if (low === 10) this.line--;
    }
  }

  private isHighSurrogate(at: number): boolean {
    const c = this.input.charCodeAt(at);
    return c >= 0xd800 && c <= 0xdbff;
  }

  private thisItem(type: ItemType): Item {
    const item = { type, pos: this.start, val: this.input.slice(this.start, this.pos), line: this.startLine };
    this.start = this.pos;
    this.startLine = this.line;
    return item;
  }

  emit(type: ItemType): StateFn {
    return this.emitItem(this.thisItem(type));
  }

  emitItem(item: Item): StateFn {
    this.item = item;
    return null;
  }

  ignore(): void {
    this.line += countNewlines(this.input, this.start, this.pos);
    this.start = this.pos;
    this.startLine = this.line;
  }

  accept(valid: string): boolean {
    const r = this.next();
    if (r !== eof && valid.includes(String.fromCodePoint(r))) return true;
    this.backup();
    return false;
  }

  acceptRun(valid: string): void {
    for (let r = this.next(); r !== eof && valid.includes(String.fromCodePoint(r)); r = this.next()) {}
    this.backup();
  }

  errorf(message: string): StateFn {
    this.item = { type: ItemType.Error, pos: this.start, val: message, line: this.startLine };
    this.start = 0;
    this.pos = 0;
    this.input = "";
    return null;
  }

  nextItem(): Item {
    const from = this.pos;
    this.item = { type: ItemType.EOF, pos: this.pos, val: "EOF", line: this.startLine };
    let state: StateFn = this.insideAction ? lexInsideAction : lexText;
    while (state !== null) state = state(this);
    this.charge?.(costs.token + costs.scannedChar * (this.pos - from));
    return this.item;
  }

  atRightDelim(): { delim: boolean; trimSpaces: boolean } {
    if (
      hasRightTrimMarker(this.input, this.pos) &&
      this.input.startsWith(rightDelim, this.pos + trimMarkerLen)
    ) {
      return { delim: true, trimSpaces: true };
    }
    return { delim: this.input.startsWith(rightDelim, this.pos), trimSpaces: false };
  }

  atTerminator(): boolean {
    const r = this.peek();
    if (isSpace(r)) return true;
    switch (r) {
      case eof:
      case 46: // .
      case 44: // ,
      case 124: // |
      case 58: // :
      case 41: // )
      case 40: // (
        return true;
    }
    return this.input.startsWith(rightDelim, this.pos);
  }

  scanNumber(): boolean {
    this.accept("+-");
    let digits = "0123456789_";
    if (this.accept("0")) {
      if (this.accept("xX")) digits = "0123456789abcdefABCDEF_";
      else if (this.accept("oO")) digits = "01234567_";
      else if (this.accept("bB")) digits = "01_";
    }
    this.acceptRun(digits);
    if (this.accept(".")) this.acceptRun(digits);
    if (digits.length === 10 + 1 && this.accept("eE")) {
      this.accept("+-");
      this.acceptRun("0123456789_");
    }
    if (digits.length === 16 + 6 + 1 && this.accept("pP")) {
      this.accept("+-");
      this.acceptRun("0123456789_");
    }
    this.accept("i");
    if (isAlphaNumeric(this.peek())) {
      this.next();
      return false;
    }
    return true;
  }

  // The state functions, Go's lexText, lexLeftDelim...: static members so that they reach the
  // lexer's private state; each returns the next state, or null once it has set the item.

  static text(l: Lexer): StateFn {
    const x = l.input.indexOf(leftDelim, l.pos);
    if (x >= 0) {
      if (x > l.pos) {
        l.pos = x;
        let trimLength = 0;
        if (hasLeftTrimMarker(l.input, l.pos + leftDelim.length)) {
          trimLength = rightTrimLength(l.input, l.start, l.pos);
        }
        l.pos -= trimLength;
        l.line += countNewlines(l.input, l.start, l.pos);
        const item = l.thisItem(ItemType.Text);
        l.pos += trimLength;
        l.ignore();
        if (item.val.length > 0) return l.emitItem(item);
      }
      return lexLeftDelim;
    }
    l.pos = l.input.length;
    if (l.pos > l.start) {
      l.line += countNewlines(l.input, l.start, l.pos);
      return l.emit(ItemType.Text);
    }
    return l.emit(ItemType.EOF);
  }

  static leftDelim(l: Lexer): StateFn {
    l.pos += leftDelim.length;
    const trimSpace = hasLeftTrimMarker(l.input, l.pos);
    const afterMarker = trimSpace ? trimMarkerLen : 0;
    if (l.input.startsWith(leftComment, l.pos + afterMarker)) {
      l.pos += afterMarker;
      l.ignore();
      return lexComment;
    }
    const item = l.thisItem(ItemType.LeftDelim);
    l.insideAction = true;
    l.pos += afterMarker;
    l.ignore();
    l.parenDepth = 0;
    return l.emitItem(item);
  }

  static comment(l: Lexer): StateFn {
    l.pos += leftComment.length;
    const x = l.input.indexOf(rightComment, l.pos);
    if (x < 0) return l.errorf("unclosed comment");
    l.pos = x + rightComment.length;
    const { delim, trimSpaces } = l.atRightDelim();
    if (!delim) return l.errorf("comment ends before closing delimiter");
    l.line += countNewlines(l.input, l.start, l.pos);
    l.thisItem(ItemType.Comment);
    if (trimSpaces) l.pos += trimMarkerLen;
    l.pos += rightDelim.length;
    if (trimSpaces) l.pos += leftTrimLength(l.input, l.pos);
    l.ignore();
    return lexText;
  }

  static rightDelim(l: Lexer): StateFn {
    const { trimSpaces } = l.atRightDelim();
    if (trimSpaces) {
      l.pos += trimMarkerLen;
      l.ignore();
    }
    l.pos += rightDelim.length;
    const item = l.thisItem(ItemType.RightDelim);
    if (trimSpaces) {
      l.pos += leftTrimLength(l.input, l.pos);
      l.ignore();
    }
    l.insideAction = false;
    return l.emitItem(item);
  }

  static insideAction(l: Lexer): StateFn {
    if (l.atRightDelim().delim) {
      if (l.parenDepth === 0) return lexRightDelim;
      return l.errorf("unclosed left paren");
    }
    const r = l.next();
    if (r === eof) return l.errorf("unclosed action");
    if (isSpace(r)) {
      l.backup(); // Put space back in case we have " -}}".
      return lexSpace;
    }
    switch (r) {
      case 61: // =
        return l.emit(ItemType.Assign);
      case 58: // :
        if (l.next() !== 61) return l.errorf("expected :=");
        return l.emit(ItemType.Declare);
      case 124: // |
        return l.emit(ItemType.Pipe);
      case 34: // "
        return lexQuote;
      case 96: // `
        return lexRawQuote;
      case 36: // $
        return lexVariable;
      case 39: // '
        return lexChar;
      case 40: // (
        l.parenDepth++;
        return l.emit(ItemType.LeftParen);
      case 41: // )
        l.parenDepth--;
        if (l.parenDepth < 0) return l.errorf("unexpected right paren");
        return l.emit(ItemType.RightParen);
    }
    if (r === 46 && l.pos < l.input.length) {
      // special look-ahead for ".field" so we don't break l.backup().
      const c = l.input.charCodeAt(l.pos);
      if (c < 48 || c > 57) return lexField;
    }
    if (r === 46 || r === 43 || r === 45 || (r >= 48 && r <= 57)) {
      l.backup();
      return lexNumber;
    }
    if (isAlphaNumeric(r)) {
      l.backup();
      return lexIdentifier;
    }
    if (r <= 127 && isPrint(r)) return l.emit(ItemType.Char);
    return l.errorf(`unrecognized character in action: ${goUnicode(r)}`);
  }

  static space(l: Lexer): StateFn {
    let numSpaces = 0;
    while (isSpace(l.peek())) {
      l.next();
      numSpaces++;
    }
    // Be careful about a trim-marked closing delimiter, which has a minus after a space.
    if (hasRightTrimMarker(l.input, l.pos - 1) && l.input.startsWith(rightDelim, l.pos - 1 + trimMarkerLen)) {
      l.backup(); // Before the space.
      if (numSpaces === 1) return lexRightDelim; // On the delim, so go right to that.
    }
    return l.emit(ItemType.Space);
  }

  static identifier(l: Lexer): StateFn {
    for (;;) {
      const r = l.next();
      if (isAlphaNumeric(r)) continue;
      l.backup();
      const word = l.input.slice(l.start, l.pos);
      if (!l.atTerminator()) return l.errorf(`bad character ${goUnicode(r)}`);
      const key = keywords.get(word);
      if (key !== undefined && key > ItemType.Keyword) {
        if (
          (key === ItemType.Break && !l.options.breakOK) ||
          (key === ItemType.Continue && !l.options.continueOK)
        ) {
          return l.emit(ItemType.Identifier);
        }
        return l.emit(key);
      }
      if (word[0] === ".") return l.emit(ItemType.Field);
      if (word === "true" || word === "false") return l.emit(ItemType.Bool);
      return l.emit(ItemType.Identifier);
    }
  }

  static fieldOrVariable(l: Lexer, type: ItemType): StateFn {
    if (l.atTerminator()) return l.emit(type === ItemType.Variable ? ItemType.Variable : ItemType.Dot);
    let r: number;
    for (;;) {
      r = l.next();
      if (!isAlphaNumeric(r)) {
        l.backup();
        break;
      }
    }
    if (!l.atTerminator()) return l.errorf(`bad character ${goUnicode(r)}`);
    return l.emit(type);
  }

  static quoted(l: Lexer, quote: number, type: ItemType, what: string): StateFn {
    for (;;) {
      let r = l.next();
      if (r === 92) {
        r = l.next();
        if (r !== eof && r !== 10) continue;
      }
      if (r === eof || r === 10) return l.errorf(`unterminated ${what}`);
      if (r === quote) return l.emit(type);
    }
  }

  static rawQuote(l: Lexer): StateFn {
    const end = l.input.indexOf("`", l.pos);
    if (end < 0) {
      l.line += countNewlines(l.input, l.pos, l.input.length);
      l.pos = l.input.length;
      return l.errorf("unterminated raw quoted string");
    }
    l.line += countNewlines(l.input, l.pos, end);
    l.pos = end + 1;
    return l.emit(ItemType.RawString);
  }

  static number(l: Lexer): StateFn {
    if (!l.scanNumber()) return l.errorf(`bad number syntax: ${goQuote(l.input.slice(l.start, l.pos))}`);
    const sign = l.peek();
    if (sign === 43 || sign === 45) {
      // Complex: 1+2i. No spaces, must end in 'i'.
      if (!l.scanNumber() || l.input[l.pos - 1] !== "i") {
        return l.errorf(`bad number syntax: ${goQuote(l.input.slice(l.start, l.pos))}`);
      }
      return l.emit(ItemType.Complex);
    }
    return l.emit(ItemType.Number);
  }
}

const lexText = Lexer.text;
const lexLeftDelim = Lexer.leftDelim;
const lexComment = Lexer.comment;
const lexRightDelim = Lexer.rightDelim;
const lexInsideAction = Lexer.insideAction;
const lexSpace = Lexer.space;
const lexIdentifier = Lexer.identifier;
const lexField = (l: Lexer) => Lexer.fieldOrVariable(l, ItemType.Field);
const lexVariable = (l: Lexer) =>
  l.atTerminator() ? l.emit(ItemType.Variable) : Lexer.fieldOrVariable(l, ItemType.Variable);
const lexQuote = (l: Lexer) => Lexer.quoted(l, 34, ItemType.String, "quoted string");
const lexChar = (l: Lexer) => Lexer.quoted(l, 39, ItemType.CharConstant, "character constant");
const lexRawQuote = Lexer.rawQuote;
const lexNumber = Lexer.number;
